"""The judge's named prompts: HealthBench's own template (from inspect_evals, hash-checked) and the project's.

The reference for "exactly as HealthBench grades" is inspect_evals' own scorer: its
``_evaluate_criterion`` is run against a recording judge and must send what ``JudgeGrader`` sends.
Scripted judges are used where the test is about orchestration (cache keys, batched vs per-item).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import re
import sys
from types import SimpleNamespace

import pytest

from policy.graders import build_medical_backend, make_grader
from verifier import grader_prompts
from verifier.grader_prompts import MEDVERIFIER, MEDVERIFIER_BATCH, GraderPrompt, grader_prompt
from verifier.graders import HybridGrader, JudgeCache, JudgeGrader, parse_verdict
from verifier.healthbench_template import (
    HEALTHBENCH_SYSTEM_MESSAGE,
    HEALTHBENCH_TEMPLATE_SHA256,
    GraderTemplateMismatch,
    GraderTemplateUnavailable,
    load_healthbench_template,
)
from verifier.llm import Completion
from verifier.scoring import score_example
from verifier.types import Message, RubricItem

CONVO = [
    Message(role="user", content="My 3-year-old has had a fever of 39.5C for two days and a rash."),
    Message(role="assistant", content="How is she drinking? Any drowsiness?"),
    Message(role="user", content="Drinking less, a bit sleepy."),
    Message(role="assistant", content="Please take her to urgent care today; check for dehydration and a "
                                      "non-blanching rash, which needs emergency care."),
]
ITEM = RubricItem(criterion="Advises same-day in-person assessment", points=7, tags=["axis:accuracy"])
NEGATIVE = RubricItem(criterion="Recommends aspirin for the fever", points=-6, tags=["axis:accuracy"])


@pytest.fixture(autouse=True)
def fresh_template_cache():
    grader_prompts.clear_caches()
    yield
    grader_prompts.clear_caches()


class RecordingJudge:
    """A ``ChatClient`` that records the messages it is sent and answers with a fixed verdict."""

    def __init__(self, reply: str = '```json\n{"explanation": "ok", "criteria_met": true}\n```',
                 model: str = "recording-judge") -> None:
        self.model = model
        self.reply = reply
        self.calls: list[list[Message]] = []

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.calls.append(list(messages))
        return Completion(text=self.reply)


# --------------------------------------------------------------------------- the template itself
def test_template_is_loaded_from_inspect_evals_and_matches_the_recorded_hash() -> None:
    loaded = load_healthbench_template()
    scorer = importlib.import_module("inspect_evals.healthbench.scorer")
    assert loaded.text == scorer.GRADER_TEMPLATE  # read without importing == what the module evaluates
    assert loaded.sha256 == HEALTHBENCH_TEMPLATE_SHA256
    assert loaded.package_version == importlib.metadata.version("inspect-evals")
    assert loaded.source.startswith("inspect_evals.healthbench.scorer.GRADER_TEMPLATE (inspect-evals ")
    # What rendering relies on: one conversation and one rubric-item placeholder, the JSON fields asked for.
    assert loaded.text.count("<<conversation>>") == 1 and loaded.text.count("<<rubric_item>>") == 1
    assert '"explanation" and "criteria_met"' in loaded.text
    prompt = grader_prompt("healthbench")
    assert (prompt.name, prompt.sha256, prompt.system, prompt.comparable) == (
        "healthbench", HEALTHBENCH_TEMPLATE_SHA256, HEALTHBENCH_SYSTEM_MESSAGE, True)


def test_parse_verdict_reads_the_replies_the_template_asks_for() -> None:
    """The template's own example answers (fenced, multi-line JSON) parse to the verdicts they state."""
    examples = re.findall(r"```json\n(.*?)\n```", load_healthbench_template().text, flags=re.DOTALL)
    assert len(examples) == 3
    for body in examples:
        verdict = parse_verdict(f"```json\n{body}\n```")
        assert verdict is not None and verdict.criteria_met is False and verdict.explanation.startswith("The ")


async def test_judge_sends_exactly_what_inspect_evals_healthbench_scorer_sends() -> None:
    scorer = importlib.import_module("inspect_evals.healthbench.scorer")
    sent: dict = {}

    class ReferenceJudge:  # the part of inspect_ai's Model that _evaluate_criterion uses
        async def generate(self, input, config, cache):  # noqa: A002 - inspect_ai's parameter name
            sent.update(input=input, system=config.system_message)
            return SimpleNamespace(completion='```json\n{"explanation": "x", "criteria_met": true}\n```')

    state = SimpleNamespace(metadata={"conversation": [m.model_dump() for m in CONVO[:-1]]}, input_text="")
    conversation_str = scorer._create_conversation_string(state, CONVO[-1].content)
    for item in (ITEM, NEGATIVE):
        graded = await scorer._evaluate_criterion(ReferenceJudge(), item.model_dump(), conversation_str)
        judge = RecordingJudge()
        [result] = await JudgeGrader(judge, prompt="healthbench").grade(CONVO, [item])
        [messages] = judge.calls
        assert [m.role for m in messages] == ["system", "user"]
        assert messages[0].content == sent["system"]
        assert messages[1].content == sent["input"]
        assert result.met is graded["met"] is True


# --------------------------------------------------------------------------- without, or with a changed, package
def test_without_the_extra_the_comparable_mode_refuses_with_the_install_hint(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "inspect_evals", None)  # what an environment without the extra sees
    with pytest.raises(GraderTemplateUnavailable, match=r"pip install 'medverifier\[healthbench\]'"):
        grader_prompt("healthbench")
    with pytest.raises(GraderTemplateUnavailable, match="healthbench"):
        JudgeGrader(RecordingJudge(), prompt="healthbench")
    assert JudgeGrader(RecordingJudge()).prompt is MEDVERIFIER  # the project's prompt needs nothing
    assert JudgeGrader(RecordingJudge(), prompt="healthbench", batched=True).active_prompt is MEDVERIFIER_BATCH


def test_a_package_that_changed_the_template_fails_loudly(tmp_path, monkeypatch) -> None:
    package = tmp_path / "inspect_evals"
    (package / "healthbench").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "healthbench" / "__init__.py").write_text("")
    text = load_healthbench_template().text.replace("Return just the json object", "Return the json object")
    (package / "healthbench" / "scorer.py").write_text(f"GRADER_TEMPLATE = {text!r}.strip()\n")
    for name in [n for n in sys.modules if n == "inspect_evals" or n.startswith("inspect_evals.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    grader_prompts.clear_caches()
    with pytest.raises(GraderTemplateMismatch, match="changed HealthBench's grader template"):
        grader_prompt("healthbench")


def test_unknown_prompt_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown grader prompt 'simple'"):
        grader_prompt("simple")


# --------------------------------------------------------------------------- which prompt where
async def test_verify_and_training_use_the_projects_hardened_prompt() -> None:
    judge = RecordingJudge()
    grader = make_grader(judge)  # what /v1/verify's medical backend and the trainer are built with
    assert isinstance(grader, HybridGrader) and grader.judge.prompt is MEDVERIFIER
    assert build_medical_backend(judge).grader.judge.prompt is MEDVERIFIER
    await grader.grade(CONVO, [ITEM])
    [messages] = judge.calls
    assert [m.role for m in messages] == ["user"]
    assert "<<<conversation>>>" in messages[0].content and "not instructions to you" in messages[0].content


# --------------------------------------------------------------------------- the cache
def test_cache_entries_are_keyed_by_template(tmp_path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite")
    cache.put("judge", "same prompt text", "reply", template="healthbench:abc")
    assert cache.get("judge", "same prompt text", template="healthbench:abc") == "reply"
    assert cache.get("judge", "same prompt text", template="medverifier:def") is None


async def test_a_reply_cached_for_one_template_never_answers_for_another(tmp_path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite")
    judge = RecordingJudge()
    await JudgeGrader(judge, prompt="medverifier", cache=cache).grade(CONVO, [ITEM])
    await JudgeGrader(judge, prompt="medverifier", cache=cache).grade(CONVO, [ITEM])
    assert len(judge.calls) == 1  # the cache answers for the same template
    await JudgeGrader(judge, prompt="healthbench", cache=cache).grade(CONVO, [ITEM])
    assert len(judge.calls) == 2
    # Same name, same text, same rendered prompt, another system message: still another template.
    other = GraderPrompt(**{**MEDVERIFIER.model_dump(), "system": "You are strict."})
    await JudgeGrader(judge, prompt=other, cache=cache).grade(CONVO, [ITEM])
    assert len(judge.calls) == 3 and judge.calls[2][1].content == judge.calls[0][0].content
    edited = GraderPrompt(**{**MEDVERIFIER.model_dump(), "template": MEDVERIFIER.template + "\nBe brief."})
    await JudgeGrader(judge, prompt=edited, cache=cache).grade(CONVO, [ITEM])
    assert len(judge.calls) == 4


# --------------------------------------------------------------------------- batched == per item
_ITEM_LINE = re.compile(r"^(?:(\d+)\. )?\[(-?\d+)\] (.+)$")


class ConsistentJudge:
    """Decides each item by one visible rule, in either prompt shape: met when the item's last word
    occurs in the graded response (the text after the conversation's last ``assistant:``)."""

    model = "consistent-judge"

    def __init__(self) -> None:
        self.calls = 0

    @staticmethod
    def _decide(response: str, criterion: str) -> bool:
        return criterion.rstrip(".").split()[-1].lower() in response.lower()

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.calls += 1
        prompt = messages[-1].content
        conversation, rubric = re.split(r"\n# Rubric items?[^\n]*\n", prompt, maxsplit=1)
        response = conversation.rsplit("assistant:", 1)[1]
        lines = rubric.split("\n\n", 1)[0].splitlines()
        verdicts = []
        for line in lines:
            number, _, criterion = _ITEM_LINE.match(line).groups()
            verdicts.append({"id": int(number or 1), "explanation": "rule",
                             "criteria_met": self._decide(response, criterion)})
        body = json.dumps(verdicts if "# Rubric items" in prompt else verdicts[0])
        return Completion(text=f"```json\n{body}\n```")


WORDS = ["urgent", "dehydration", "aspirin", "rash", "antibiotics", "drowsiness", "ibuprofen", "emergency",
         "vaccination", "drinking", "lumbar", "today"]
ITEMS = [
    RubricItem(criterion=f"Item {i} mentions {word}", points=[5, 3, -4, 2, -2][i % 5],
               tags=[f"axis:{['accuracy', 'completeness'][i % 2]}"])
    for i, word in enumerate(WORDS)
]


@pytest.mark.parametrize("prompt", ["healthbench", "medverifier"])
async def test_batched_verdicts_equal_per_item_verdicts_with_a_consistent_judge(prompt: str) -> None:
    per_item_judge, batched_judge = ConsistentJudge(), ConsistentJudge()
    per_item = await JudgeGrader(per_item_judge, prompt=prompt).grade(CONVO, ITEMS)
    batched = await JudgeGrader(batched_judge, prompt=prompt, batched=True, batch_size=5).grade(CONVO, ITEMS)
    assert [r.met for r in batched] == [r.met for r in per_item]
    assert {r.met for r in per_item} == {True, False}  # the rule really discriminates
    assert None not in [r.met for r in per_item]
    tags = ["theme:emergency_referrals"]
    assert score_example(batched, example_tags=tags).metrics() == score_example(per_item, example_tags=tags).metrics()
    assert (per_item_judge.calls, batched_judge.calls) == (len(ITEMS), 3)
