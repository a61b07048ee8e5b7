"""Token-level consultations for training: what the policy sampled, and what the environment added.

``TokenRecorder`` is the consultation loop's recorder (``patient_sim.loop.Recorder``). The doctor's
tokens are kept exactly as sampled (``env_mask`` 1, with their logprobs); everything else — the end of
the doctor's turn, the patient's or measurement responder's reply and the next turn's opening — comes
from rendering **the model's own chat template** with and without the new turn and taking the
difference (``env_mask`` 0). No template marker is written here, so a Llama-3, Gemma or Mistral
checkpoint gets a mask as right as a ChatML one's. A template whose shorter render is not a prefix of
the longer (one that rewrites earlier turns) cannot be masked this way: ``TemplateError`` says so.
"""

from __future__ import annotations

from typing import Any

from patient_sim.loop import TokenTrace
from verifier.llm import Completion
from verifier.types import Message


class TemplateError(ValueError):
    """The chat template cannot be rendered turn by turn (a shorter render is not a prefix)."""


class TokenRecorder:
    """Records one consultation as tokens, bounded by ``max_completion_tokens`` after the prompt."""

    def __init__(self, tokenizer: Any, max_completion_tokens: int | None = None) -> None:
        self.tokenizer = tokenizer
        self.max_completion_tokens = max_completion_tokens
        self._trace: TokenTrace | None = None
        self._text = ""  # the rendered dialogue so far, with the generation prompt of the next turn
        self._end_ids = self._end_of_turn_ids()

    # ------------------------------------------------------------------ rendering
    def render_text(self, messages: list[Message], *, generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(
            [m.model_dump() for m in messages], tokenize=False, add_generation_prompt=generation_prompt
        )

    def render_ids(self, messages: list[Message], *, generation_prompt: bool) -> list[int]:
        ids = self.tokenizer.apply_chat_template(
            [m.model_dump() for m in messages], tokenize=True, add_generation_prompt=generation_prompt
        )
        return list(ids["input_ids"] if hasattr(ids, "keys") else ids)

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False)) if text else []

    def _end_of_turn_ids(self) -> set[int]:
        ids = {self.tokenizer.eos_token_id} if self.tokenizer.eos_token_id is not None else set()
        return ids | {i for i in self.tokenizer.all_special_ids if i is not None}

    # ------------------------------------------------------------------ the loop's recorder
    def start(self, messages: list[Message]) -> None:
        self._trace = TokenTrace(prompt_ids=self.render_ids(messages, generation_prompt=True))
        self._text = self.render_text(messages, generation_prompt=True)

    def room(self) -> int | None:
        if self.max_completion_tokens is None:
            return None
        return self.max_completion_tokens - len(self.trace().completion_ids)

    def record_turn(self, completion: Completion, messages: list[Message], *, done: bool) -> bool:
        """The doctor's sampled tokens, then the environment's as the template renders them. ``messages``
        is the dialogue after the turn (the doctor's message last, or its reply after it). False when
        the token bound cut the environment's part (the episode ends there)."""
        trace = self.trace()
        turn = max(i for i, m in enumerate(messages) if m.role == "assistant")
        sampled = list(completion.tokens)
        trace.completion_ids += sampled
        trace.env_mask += [1] * len(sampled)
        trace.logprobs += list(completion.logprobs or [0.0] * len(sampled))
        env_text = self._environment_text(messages[: turn + 1], messages[turn + 1 :], sampled, done=done)
        env_ids = self._encode(env_text)
        room = self.room()
        fits = room is None or len(env_ids) <= room
        kept = env_ids if fits else env_ids[: max(room or 0, 0)]
        trace.completion_ids += kept
        trace.env_mask += [0] * len(kept)
        trace.logprobs += [0.0] * len(kept)
        return fits

    def _environment_text(self, upto: list[Message], after: list[Message], sampled: list[int], *, done: bool) -> str:
        """The rendered text between the doctor's content and the next doctor turn (or the end)."""
        before = self._text
        with_turn = self.render_text(upto, generation_prompt=False)
        if not with_turn.startswith(before):
            raise TemplateError("the chat template renders earlier turns differently once the doctor's turn is "
                                "added; its environment tokens cannot be masked turn by turn")
        content = upto[-1].content
        turn_text = with_turn[len(before):]
        at = turn_text.find(content) if content else 0
        if at < 0:
            raise TemplateError(f"the chat template does not render the doctor's turn verbatim: {turn_text[:80]!r}")
        glue = turn_text[at + len(content):]  # the template's end of the doctor's turn
        if sampled and sampled[-1] in self._end_ids:  # the policy already closed its turn itself
            closing = self.tokenizer.decode([sampled[-1]])
            glue = glue[len(closing):] if glue.startswith(closing) else glue
        rendered = with_turn
        if after:
            rendered = self.render_text([*upto, *after], generation_prompt=not done)
            if not rendered.startswith(with_turn):
                raise TemplateError("the chat template renders earlier turns differently once the reply is added; "
                                    "its environment tokens cannot be masked turn by turn")
        self._text = rendered
        return glue + rendered[len(with_turn):]

    def trace(self) -> TokenTrace:
        if self._trace is None:
            raise RuntimeError("TokenRecorder.start() was not called")
        return self._trace


def sft_tokens(tokenizer: Any, messages: list[Message]) -> tuple[list[int], list[int]]:
    """A whole dialogue as ``(input_ids, labels)`` for supervised training on the assistant's turns only.

    Rendered the way the rollouts render it (the model's own chat template, turn by turn): the labels
    are the token ids on each assistant turn's content and its template's end-of-turn token (so the
    model learns to stop), and -100 on everything else — the system prompt, the other roles' turns and
    the template's glue between turns.
    """
    recorder = TokenRecorder(tokenizer)
    turns = [i for i, m in enumerate(messages) if m.role == "assistant"]
    if not turns:
        raise ValueError("a dialogue to train on needs at least one assistant turn")
    ids = recorder.render_ids(messages[: turns[0]], generation_prompt=True)
    labels = [-100] * len(ids)
    before = recorder.render_text(messages[: turns[0]], generation_prompt=True)
    for index, turn in enumerate(turns):
        with_turn = recorder.render_text(messages[: turn + 1], generation_prompt=False)
        if not with_turn.startswith(before):
            raise TemplateError("the chat template renders earlier turns differently once an assistant turn is "
                                "added; the dialogue cannot be masked turn by turn")
        turn_ids = recorder._encode(with_turn[len(before):])
        end = next((k for k, t in enumerate(turn_ids) if t in recorder._end_ids), len(turn_ids) - 1)
        ids += turn_ids
        labels += turn_ids[: end + 1] + [-100] * (len(turn_ids) - end - 1)
        upto = turns[index + 1] if index + 1 < len(turns) else len(messages)
        after = recorder.render_text(messages[:upto], generation_prompt=upto < len(messages))
        if not after.startswith(with_turn):
            raise TemplateError("the chat template renders earlier turns differently once a reply is added; the "
                                "dialogue cannot be masked turn by turn")
        env_ids = recorder._encode(after[len(with_turn):])
        ids += env_ids
        labels += [-100] * len(env_ids)
        before = after
    return ids, labels
