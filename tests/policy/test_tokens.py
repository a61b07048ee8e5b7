"""Template-agnostic masking: the environment's tokens come from the model's own chat template.

Two templates: SmolLM2's (ChatML) and a Llama-3-style one set on a copy of the tokenizer with its
special tokens added. The 135M model has no embeddings for Llama-3's tokens, so the doctor is a
scripted policy that returns its turn's tokens the way a real one would (ending in its end-of-turn
token); the patient is scripted too. The test is about the layout of the tokens, not what is said.
"""

from __future__ import annotations

import copy

import pytest

from patient_sim.cases import find_case
from patient_sim.loop import SamplingConfig, new_env, run_consultation
from patient_sim.personas import Persona
from policy.tokens import TemplateError, TokenRecorder
from verifier.llm import Completion
from verifier.types import Message

TURNS = ["When did the pain start?", "REQUEST TEST: ECG", "DIAGNOSIS: STEMI. Call an ambulance now."]


class ScriptedPolicy:
    """Returns fixed turns as a sampling policy would: the text's tokens, then the end-of-turn token."""

    model = "scripted-policy"

    def __init__(self, tokenizer, end_token: str) -> None:
        self.tokenizer, self.end = tokenizer, tokenizer.convert_tokens_to_ids(end_token)

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        text = TURNS[sum(m.role == "assistant" for m in messages)]
        ids = [*self.tokenizer.encode(text, add_special_tokens=False), self.end]
        return Completion(text=text, tokens=ids, logprobs=[-0.5] * len(ids))


class QuietPatient:
    model = "scripted-patient"

    async def complete(self, messages, **_: object) -> Completion:
        return Completion(text="About an hour ago, doctor.")


@pytest.mark.parametrize("template", ["smollm2", "llama3"])
async def test_env_mask_is_zero_exactly_on_environment_tokens(template, embedded, llama3_tokenizer) -> None:
    tokenizer = embedded.tokenizer if template == "smollm2" else llama3_tokenizer
    end = "<|im_end|>" if template == "smollm2" else "<|eot_id|>"
    sampling = SamplingConfig(max_turns=4)
    env = new_env(find_case("acs-stemi"), Persona(mbti="ISTJ"), QuietPatient(), sampling)
    recorder = TokenRecorder(tokenizer)
    result = await run_consultation(env, ScriptedPolicy(tokenizer, end), sampling, recorder=recorder)
    trace = result.tokens
    assert result.termination_reason == "diagnosis" and trace is not None
    assert len(trace.completion_ids) == len(trace.env_mask) == len(trace.logprobs)

    doctor = [t for t, m in zip(trace.completion_ids, trace.env_mask, strict=True) if m == 1]
    assert doctor == [t for text in TURNS for t in [*tokenizer.encode(text, add_special_tokens=False),
                                                    tokenizer.convert_tokens_to_ids(end)]]
    assert all(lp == 0.0 for lp, m in zip(trace.logprobs, trace.env_mask, strict=True) if m == 0)
    environment = tokenizer.decode([t for t, m in zip(trace.completion_ids, trace.env_mask, strict=True) if m == 0])
    for reply in [m.content for m in result.transcript if m.role == "user"][1:]:  # each reply, masked
        assert reply in environment
    assert not any(turn in environment for turn in TURNS)  # no doctor text is ever masked out
    # prompt + completion is exactly the template's rendering of the whole consultation
    rendered = recorder.render_text(env.messages(), generation_prompt=False)
    assert tokenizer.decode(trace.prompt_ids + trace.completion_ids) == rendered
    if template == "llama3":
        assert "<|start_header_id|>user<|end_header_id|>" in environment and "<|im_start|>" not in rendered


async def test_a_template_that_rewrites_earlier_turns_is_refused(embedded) -> None:
    tokenizer = copy.deepcopy(embedded.tokenizer)
    # renders only the last two messages: adding a turn changes what came before it
    tokenizer.chat_template = ("{% for message in messages[-2:] %}{{ message['role'] + ': ' + message['content'] + "
                               "'\\n' }}{% endfor %}{% if add_generation_prompt %}{{ 'assistant: ' }}{% endif %}")
    sampling = SamplingConfig(max_turns=4)
    env = new_env(find_case("acs-stemi"), Persona(mbti="ISTJ"), QuietPatient(), sampling)
    with pytest.raises(TemplateError, match="cannot be masked turn by turn"):
        await run_consultation(env, ScriptedPolicy(tokenizer, "<|im_end|>"), sampling, recorder=TokenRecorder(tokenizer))


def test_the_recorder_needs_a_start() -> None:
    with pytest.raises(RuntimeError, match="start"):
        TokenRecorder(type("T", (), {"eos_token_id": None, "all_special_ids": []})()).trace()


def test_messages_render_the_same_dialogue_as_text_and_ids(embedded) -> None:
    recorder = TokenRecorder(embedded.tokenizer)
    messages = [Message(role="system", content="s"), Message(role="user", content="hello")]
    text = recorder.render_text(messages, generation_prompt=True)
    assert embedded.tokenizer.decode(recorder.render_ids(messages, generation_prompt=True)) == text
