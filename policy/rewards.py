"""TRL reward functions for the three GRPO stages.

Each is a plain callable ``f(prompts, completions, **columns) -> list[float | None]`` (TRL's
contract); dataset columns and a rollout's extra fields arrive as keyword lists, one value per
completion.

* ``rule_reward`` (rule stage): the one diagnosis matcher on the final ``ANSWER:`` plus a format
  term. Pure and synchronous.
* ``RubricReward`` (rubric stage): the verifier's rubric score of the single-turn answer; per-axis
  scores are logged as metrics.
* ``ConsultationReward`` (multi-turn stage): the verifier's score of the whole consultation, with
  the case-grounded rubric; a trajectory with a void doctor turn gets ``None`` (SimpleTIR), which
  TRL excludes from the group baseline and gives no advantage.

``None`` means "unscorable", never 0: a judge that failed is not evidence about the completion.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from verifier import clinical
from verifier.diagnosis import match_diagnosis
from verifier.markers import is_void_turn, parse_diagnosis
from verifier.protocols import Grader
from verifier.types import Case, Message, RubricItem

logger = logging.getLogger(__name__)

ANSWER_MARKER = "ANSWER:"
_ANSWER_RE = re.compile(r"(?:FINAL\s+)?ANSWER\s*[:\-]\s*(.+)", re.IGNORECASE)
_LETTER_RE = re.compile(r"^\(?([A-Ea-e])\)?(?:[.):\s]|$)")
# Without the marker, an option the reply leads a line with ("B) Pneumonia") or "the answer is B".
_OPTION_LINE_RE = re.compile(r"^\s*\(?([A-D])\)\s*\S*", re.MULTILINE)
_ANSWER_IS_RE = re.compile(r"\b(?:answer|choice|option)\s+(?:is|must be|would be)\s*:?\s*\(?([A-D])\b\)?")
_WORD_RE = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset({"the", "a", "an", "of", "is", "and", "with", "to", "most", "likely", "diagnosis"})


class RuleRewardWeights(BaseModel):
    """``reward = match * match_weight + format * format_weight`` (defaults sum to 1).

    The format term is a final ``ANSWER:`` line in the form the question asks for: with
    ``format_letter`` (the default) a multiple-choice answer must be an option letter, as every MCQ
    prompt requests ("ANSWER: <letter>"); the option's text still earns the match term.
    """

    match: float = Field(0.8, ge=0.0)
    format: float = Field(0.2, ge=0.0)
    format_letter: bool = True


# --------------------------------------------------------------------------- pure helpers
def completion_text(completion: Any) -> str:
    """The assistant text of a TRL completion (a string, or a list of chat messages)."""
    if isinstance(completion, str):
        return completion
    return "".join(str(m.get("content", "")) for m in completion if m.get("role", "assistant") == "assistant")


def extract_answer(text: str) -> str | None:
    """The text after the last ``ANSWER:`` marker (first line only), or None without a marker."""
    found = None
    for line in text.splitlines():
        match = _ANSWER_RE.search(line)
        if match and match.group(1).strip():
            found = match.group(1).strip()
    return found


def normalize(text: str) -> str:
    return " ".join(_WORD_RE.findall(text.lower()))


def _token_set(text: str) -> frozenset[str]:
    return frozenset(t for t in _WORD_RE.findall(text.lower()) if t not in _STOPWORDS)


def _unquoted(answer: str) -> str:
    return answer.strip().strip("*\"'`").strip()


def answer_matches(answer: str, accepted: Sequence[str], letter: str | None = None, *, exact: bool = False) -> bool:
    """An accepted form exactly (up to case and punctuation), or one specific condition that names an
    accepted form (``verifier.diagnosis.match_diagnosis``, the matcher the rubric and the consultation
    eval use: a hedged list or a vague category never matches). ``exact`` allows only the former (a
    line read without the ``ANSWER:`` marker must be the answer and nothing else).

    For a multiple-choice item ``letter`` is the correct option: a reply that starts with an option
    letter is judged by that letter alone.
    """
    answer = _unquoted(answer)
    if letter:
        match = _LETTER_RE.match(answer)
        if match:
            return match.group(1).upper() == letter.upper()
    wanted = {normalize(a) for a in accepted if normalize(a)}
    if normalize(answer) in wanted:
        return True
    if exact:
        tokens = _token_set(answer)
        return bool(tokens) and any(tokens == _token_set(a) for a in accepted)
    return match_diagnosis(answer, accepted, conditions=clinical.condition_lines()).matched


def final_answer(text: str, letter: str | None) -> tuple[str | None, bool]:
    """The reply's final answer and whether it used the ``ANSWER:`` format.

    Without the marker the answer is still read, leniently, so that a model that has not learnt
    the format yet gets a learning signal from the match term: for multiple choice the first line
    that starts with an option (``B) ...``) or "the answer is B"; for a short answer a line that is
    exactly one of the accepted names (checked by the caller).
    """
    marked = extract_answer(text)
    if marked is not None:
        return marked, True
    if letter:
        match = _ANSWER_IS_RE.search(text) or _OPTION_LINE_RE.search(text)
        return (match.group(1) if match else None), False
    return None, False


def rule_match(text: str, accepted: Sequence[str], letter: str | None) -> bool:
    answer, _ = final_answer(text, letter)
    if answer is not None:
        return answer_matches(answer, accepted, letter)
    if letter:
        return False
    return any(answer_matches(line, accepted, exact=True) for line in text.splitlines() if line.strip())


def answer_formatted(text: str, letter: str | None, *, letter_required: bool = True) -> bool:
    """Whether the reply ends in an ``ANSWER:`` line of the asked form (an option letter for an MCQ)."""
    answer = extract_answer(text)
    if answer is None:
        return False
    if letter and letter_required:
        return _LETTER_RE.match(_unquoted(answer)) is not None
    return True


def rule_score(text: str, accepted: Sequence[str], letter: str | None, weights: RuleRewardWeights) -> float:
    formatted = answer_formatted(text, letter, letter_required=weights.format_letter)
    return weights.match * float(rule_match(text, accepted, letter)) + weights.format * float(formatted)


def make_rule_reward(weights: RuleRewardWeights | None = None) -> Callable[..., list[float]]:
    """The rule-stage reward over the dataset columns ``accepted`` (list of names) and ``letter``."""
    weights = weights or RuleRewardWeights()

    def rule_reward(
        prompts: list[Any],
        completions: list[Any],
        accepted: list[list[str]],
        letter: list[str | None] | None = None,
        **kwargs: Any,
    ) -> list[float]:
        letters = letter if letter is not None else [None] * len(completions)
        scores = [
            rule_score(completion_text(c), acc, let or None, weights)
            for c, acc, let in zip(completions, accepted, letters, strict=True)
        ]
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and completions:
            texts = [completion_text(c) for c in completions]
            formatted = [answer_formatted(t, let or None, letter_required=weights.format_letter)
                         for t, let in zip(texts, letters, strict=True)]
            log_metric("rule/format_rate", sum(formatted) / len(texts))
            hits = [rule_match(t, acc, let or None) for t, acc, let in zip(texts, accepted, letters, strict=True)]
            log_metric("rule/accuracy", sum(hits) / len(hits))
        return scores

    return rule_reward


rule_reward = make_rule_reward()


# --------------------------------------------------------------------------- verifier-backed
def _messages(raw: Any) -> list[Message]:
    if isinstance(raw, str):
        raw = json.loads(raw)
    return [m if isinstance(m, Message) else Message.model_validate(m) for m in raw]


def _items(raw: Any) -> list[RubricItem]:
    if isinstance(raw, str):
        raw = json.loads(raw)
    return [i if isinstance(i, RubricItem) else RubricItem.model_validate(i) for i in raw]


async def _grade(conversation: list[Message], items: list[RubricItem], grader: Grader) -> Any:
    from verifier.backends.medical import grade_conversation

    return await grade_conversation(conversation, items, grader)


def _log_axes(results: list[Any], log_metric: Any, prefix: str) -> None:
    if not callable(log_metric):
        return
    sums: dict[str, list[float]] = defaultdict(list)
    for result in results:
        if result is None:
            continue
        for key, value in result.scores.items():
            if key.startswith("axis:") or key == "overall":
                sums[key].append(value)
        sums["unscored_items"].append(float(result.unscored))
    for key, values in sums.items():
        log_metric(f"{prefix}/{key}", sum(values) / len(values))


class RubricReward:
    """Rubric stage: the verifier's score of ``prompt + completion`` against the row's ``rubrics``.

    ``rubrics`` is a dataset column of RubricItem dicts (or their JSON). A completion whose every
    item came back unscored gets None.
    """

    __name__ = "rubric_reward"

    def __init__(self, grader: Grader, *, concurrency: int = 8) -> None:
        self.grader = grader
        self.concurrency = concurrency

    async def __call__(
        self, prompts: list[Any], completions: list[Any], rubrics: list[Any], **kwargs: Any
    ) -> list[float | None]:
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(prompt: Any, completion: Any, raw_items: Any) -> Any:
            conversation = [*_messages(prompt), Message(role="assistant", content=completion_text(completion))]
            items = _items(raw_items)
            async with semaphore:
                return await _grade(conversation, items, self.grader)

        results = await asyncio.gather(*(one(p, c, r) for p, c, r in zip(prompts, completions, rubrics, strict=True)))
        _log_axes(list(results), kwargs.get("log_metric"), "rubric")
        return [_reward_or_none(r) for r in results]


class ConsultationReward:
    """Multi-turn stage: the verifier's score of the whole consultation (``transcript`` from the rollout).

    The rubric is the case-grounded one (``rubric_for_case(case)``, cached per case id). Rollouts
    flagged ``void`` (a doctor turn with neither question, order nor answer) get None. ``score="overall"``:
    the verifier's unclipped score instead of its reward in [0, 1] (GRPO's advantages are relative to the
    group, so a score below 0 is no problem, and the order among bad consultations is kept).
    """

    __name__ = "consultation_reward"

    def __init__(
        self,
        grader: Grader,
        cases: dict[str, Case],
        rubric_for_case: Callable[[Case], list[RubricItem]],
        *,
        drop_void: bool = True,
        concurrency: int = 8,
        score: str = "reward",
    ) -> None:
        if score not in ("reward", "overall"):
            raise ValueError(f"consultation reward: score must be 'reward' or 'overall', got {score!r}")
        self.score = score
        self.grader = grader
        self.cases = cases
        self.rubric_for_case = rubric_for_case
        self.drop_void = drop_void
        self.concurrency = concurrency
        self._rubrics: dict[str, list[RubricItem]] = {}

    def rubric(self, case_id: str) -> list[RubricItem]:
        if case_id not in self._rubrics:
            if case_id not in self.cases:
                raise KeyError(f"consultation reward: unknown case id {case_id!r}")
            self._rubrics[case_id] = self.rubric_for_case(self.cases[case_id])
        return self._rubrics[case_id]

    async def __call__(
        self,
        prompts: list[Any],
        completions: list[Any],
        case_id: list[str],
        transcript: list[Any],
        void: list[bool] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        voids = void if void is not None else [False] * len(completions)
        semaphore = asyncio.Semaphore(self.concurrency)
        dialogues = [_messages(raw) for raw in transcript]

        async def one(cid: str, messages: list[Message], is_void: bool) -> Any:
            if is_void and self.drop_void:
                return None
            async with semaphore:
                return await _grade(messages, self.rubric(cid), self.grader)

        results = await asyncio.gather(*(one(c, d, v) for c, d, v in zip(case_id, dialogues, voids, strict=True)))
        log_metric = kwargs.get("log_metric")
        _log_axes(list(results), log_metric, "consultation")
        if callable(log_metric) and voids:
            log_metric("consultation/void_rate", sum(bool(v) for v in voids) / len(voids))
        if callable(log_metric) and dialogues:
            doctor = [[m.content for m in d if m.role == "assistant"] for d in dialogues]
            turns = [turn for turns in doctor for turn in turns]
            if turns:
                log_metric("consultation/void_turn_share", sum(is_void_turn(t) for t in turns) / len(turns))
            log_metric("consultation/diagnosis_stated",
                       sum(bool(turns and parse_diagnosis(turns[-1])) for turns in doctor) / len(doctor))
        return [_reward_or_none(r, self.score) for r in results]


def case_prompt(case: Case) -> str:
    """A patient's single message describing the case (for the rubric stage's case-derived prompts)."""
    d = case.demographics
    who = f"I'm a {d.age}-year-old {d.sex or 'person'}" if d.age else "Hi"
    symptoms = ", ".join(s.lower() for s in case.primary_symptoms + case.secondary_symptoms[:2])
    history = f" I have {case.past_medical_history[0].lower()}." if case.past_medical_history else ""
    return (
        f"{who}. {case.chief_complaint}. {('I also have ' + symptoms + '.') if symptoms else ''}{history} "
        "What do you think is going on and what should I do?"
    )


def rubric_rows(files: Sequence[Any], cases: Sequence[Case] = ()) -> list[dict[str, Any]]:
    """Rubric-stage rows: HealthBench-format records from ``files`` plus one prompt per case.

    A case's rubric is its case-grounded rubric without the items about history taking before the
    diagnosis, which a single reply cannot meet.
    """
    from verifier.healthbench import load_healthbench
    from verifier.types import AskedBeforeDiagnosis, AsksAbout

    rows: list[dict[str, Any]] = []
    for path in files:
        for record in load_healthbench(path):
            rows.append({
                "prompt": [m.model_dump() for m in record.prompt],
                "rubrics": json.dumps([i.model_dump(exclude_none=True) for i in record.rubrics]),
                "item_id": record.prompt_id,
            })
    if cases:
        from rubric_gen.case_rubric import build_case_rubric

        for case in cases:
            items = [i for i in build_case_rubric(case).items
                     if not isinstance(i.check, AskedBeforeDiagnosis | AsksAbout)
                     or (isinstance(i.check, AsksAbout) and not i.check.before_diagnosis)]
            rows.append({
                "prompt": [{"role": "user", "content": case_prompt(case)}],
                "rubrics": json.dumps([i.model_dump(exclude_none=True) for i in items]),
                "item_id": f"case:{case.id}",
            })
    return rows


def _reward_or_none(result: Any, score: str = "reward") -> float | None:
    """The verifier's reward (or its unclipped ``overall`` score), None when it could not grade (TRL leaves
    None out of the group)."""
    if result is None or result.reward is None:
        return None
    return float(result.scores["overall"] if score == "overall" else result.reward)
