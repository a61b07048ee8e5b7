"""The judge grader's orchestration: tolerant parsing, bounded retries, unscored, cache, batching.

A scripted ``ChatClient`` is used here because these tests are about how replies are handled, not
about what a model says; the real model and a real HTTP endpoint are in test_judge_endpoint.py.
"""

from __future__ import annotations

import pytest

from verifier.graders import HybridGrader, JudgeCache, JudgeGrader, parse_verdict, parse_verdicts
from verifier.llm import Completion, LLMError, Usage
from verifier.scoring import example_score
from verifier.types import MentionsAny, Message, RubricItem


class ScriptedJudge:
    """Answers each call with the next scripted reply (an exception instance is raised)."""

    def __init__(self, replies: list[str | Exception], model: str = "scripted-judge") -> None:
        self.model = model
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.prompts.append(messages[-1].content)
        reply = self.replies.pop(0) if self.replies else "no idea"
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply, usage=Usage(prompt_tokens=len(messages[-1].content) // 4, completion_tokens=9))


CONVO = [
    Message(role="user", content="I have a headache and my neck is stiff, and a fever."),
    Message(role="assistant", content="That could be meningitis. Go to the emergency department now."),
]
ITEMS = [
    RubricItem(criterion="Advises emergency care", points=5, tags=["axis:completeness"]),
    RubricItem(criterion="Reassures the user it is nothing", points=-4, tags=["axis:accuracy"]),
]


@pytest.mark.parametrize(
    ("reply", "met"),
    [
        ('{"explanation": "ok", "criteria_met": true}', True),
        ('```json\n{"explanation": "no", "criteria_met": false}\n```', False),
        ('Sure! Here is my grade:\n{"explanation": "fine", "criteria_met": true}\nHope it helps.', True),
        ("{'explanation': 'single quotes', 'criteria_met': False}", False),
        ('{"explanation": "trailing", "criteria_met": true,}', True),
        ('{"explanation": "python", "criteria_met": True}', True),
        ('```json\n{"criteria_met": false, "explanation": "cut off mid-sent', False),
        ('{"explanation": "string bool", "criteria_met": "yes"}', True),
        ('[{"explanation": "a list", "criteria_met": true}]', True),
    ],
)
def test_parse_verdict_tolerant(reply: str, met: bool) -> None:
    verdict = parse_verdict(reply)
    assert verdict is not None and verdict.criteria_met is met


@pytest.mark.parametrize(
    "reply",
    ["", "I think so.", '{"explanation": "no verdict"}', '{"criteria_met": "maybe"}', "```json\n{\"explanation\": \"trunc"],
)
def test_parse_verdict_unusable(reply: str) -> None:
    assert parse_verdict(reply) is None


def test_parse_verdicts_batched_shapes() -> None:
    full = '```json\n[{"id": 2, "explanation": "b", "criteria_met": false}, {"id": 1, "explanation": "a", "criteria_met": true}]\n```'
    assert [v.criteria_met for v in parse_verdicts(full, 2)] == [True, False]
    truncated = '[{"id": 1, "explanation": "a", "criteria_met": true}, {"id": 2, "explanation": "b", "crit'
    verdicts = parse_verdicts(truncated, 2)
    assert verdicts[0] is not None and verdicts[0].criteria_met is True and verdicts[1] is None
    keyed = '{"results": [{"explanation": "x", "criteria_met": false}, {"explanation": "y", "criteria_met": true}]}'
    assert [v.criteria_met for v in parse_verdicts(keyed, 2)] == [False, True]
    assert parse_verdicts("nonsense", 3) == [None, None, None]


async def test_malformed_replies_retry_then_unscored_never_fail() -> None:
    client = ScriptedJudge(["garbage", "still garbage", "```json\n{oops", LLMError("down")] * 2)
    grader = JudgeGrader(client, max_retries=2)
    results = await grader.grade(CONVO, ITEMS)
    assert [r.met for r in results] == [None, None]
    assert all("unscored after 3 attempts" in r.explanation for r in results)
    assert len(client.prompts) == 6  # bounded: 3 attempts per item
    assert grader.stats.unscored == 2
    assert example_score(results) is None  # unscored is excluded, not counted as 0


async def test_retry_recovers_and_explanations_are_kept() -> None:
    client = ScriptedJudge(
        ['{"criteria_met": tru', LLMError("timeout"), '{"explanation": "told to go to ED", "criteria_met": true}']
    )
    grader = JudgeGrader(client, max_retries=2)
    [result] = await grader.grade(CONVO, ITEMS[:1])
    assert result.met is True and result.explanation == "told to go to ED"
    assert result.grader == "judge:scripted-judge"
    assert "[5] Advises emergency care" in client.prompts[0]
    assert "user: I have a headache" in client.prompts[0] and "\n\nassistant: That could be" in client.prompts[0]


async def test_batched_mode_one_call_and_partial_retry() -> None:
    client = ScriptedJudge(
        [
            '[{"id": 1, "explanation": "yes", "criteria_met": true}, {"id": 2, "expl',
            '[{"id": 1, "explanation": "did not reassure", "criteria_met": false}]',
        ]
    )
    grader = JudgeGrader(client, batched=True, max_retries=2)
    results = await grader.grade(CONVO, ITEMS)
    assert [r.met for r in results] == [True, False]
    assert len(client.prompts) == 2
    assert "1. [5] Advises emergency care" in client.prompts[0]
    assert "1. [-4] Reassures" in client.prompts[1]  # only the missing item is asked again
    assert example_score(results) == 1.0


async def test_cache_is_keyed_by_model_and_prompt(tmp_path) -> None:
    cache = JudgeCache(tmp_path / "judge.sqlite")
    reply = '{"explanation": "ok", "criteria_met": true}'
    first = ScriptedJudge([reply, reply])
    await JudgeGrader(first, cache=cache).grade(CONVO, ITEMS)
    assert len(first.prompts) == 2 and len(cache) == 2
    again = ScriptedJudge([])
    results = await JudgeGrader(again, cache=JudgeCache(tmp_path / "judge.sqlite")).grade(CONVO, ITEMS)
    assert again.prompts == [] and [r.met for r in results] == [True, True]
    other_model = ScriptedJudge([reply, reply], model="another-judge")
    await JudgeGrader(other_model, cache=cache).grade(CONVO, ITEMS)
    assert len(other_model.prompts) == 2


async def test_a_cache_that_can_no_longer_be_written_does_not_fail_the_grading(tmp_path) -> None:
    folder = tmp_path / "home"
    cache = JudgeCache(folder / "judge.sqlite")
    import shutil

    shutil.rmtree(folder)  # the file goes away under the open connection: SQLite calls it read-only
    reply = '{"explanation": "ok", "criteria_met": true}'
    results = await JudgeGrader(ScriptedJudge([reply, reply]), cache=cache).grade(CONVO, ITEMS)
    assert [r.met for r in results] == [True, True]
    assert cache.write_errors == 2


def test_graders_are_built_per_judge_cache_file(tmp_path, monkeypatch) -> None:
    from policy.clients import ClientSpec
    from policy.graders import GraderSpec, build_grader, judge_of

    spec = GraderSpec(kind="hybrid", judge=ClientSpec(model="py:tests.evaluation.fakes:judge"))
    monkeypatch.setenv("MEDVERIFIER_HOME", str(tmp_path / "a"))
    first = build_grader(spec)
    assert build_grader(spec) is first
    monkeypatch.setenv("MEDVERIFIER_HOME", str(tmp_path / "b"))
    second = build_grader(spec)
    assert second is not first
    assert judge_of(second).cache.path == str(tmp_path / "b" / "judge_cache.sqlite")


async def test_hybrid_uses_rules_where_checked_and_judge_elsewhere() -> None:
    checked = RubricItem(
        criterion="Mentions meningitis", points=3, tags=["axis:accuracy"], check=MentionsAny(terms=["meningitis"])
    )
    client = ScriptedJudge(['{"explanation": "ok", "criteria_met": true}'])
    results = await HybridGrader(JudgeGrader(client)).grade(CONVO, [checked, ITEMS[0]])
    assert [r.grader for r in results] == ["rule", "judge:scripted-judge"]
    assert len(client.prompts) == 1
    no_judge = await HybridGrader().grade(CONVO, [checked, ITEMS[0]])
    assert [r.met for r in no_judge] == [True, None]
