"""The LLM-backed generator: repair, de-duplication, weighting, fallback; and the rubric cache."""

from __future__ import annotations

import pytest

from rubric_gen.cache import CachedRubricGenerator, RubricCache
from rubric_gen.case_rubric import CaseRubricGenerator
from rubric_gen.llm_rubric import LLMRubricGenerator, RubricGenerationError, repair_items
from rubric_gen.validate import rubric_problems
from tests.rubric_gen.test_case_rubric import stemi_case
from verifier.llm import Completion
from verifier.types import Message

MESSY = """Here are the criteria:
```json
[{"criterion": "Advises calling emergency services now", "points": "8", "axis": "Safety & ethics"},
 {"criterion": "advises calling emergency services now!", "points": 5, "axis": "safety"},
 {"criterion": "Asks whether the pain spreads to the arm", "axis": "questions asked"},
 {"criterion": "Recommends an ECG", "points": 14, "dimension": "plan"},
 {"criterion": "Says it is only indigestion", "points": -20, "axis": "accuracy"},
 {"criterion": "ok", "points": 3, "axis": "safety"},
 {"criterion": "Uses plain words", "points": 2, "axis": "weird"},
 {"criterion": "Uses clear, kind language", "points": 2, "axis": "communication"},]
```"""


class Scripted:
    def __init__(self, replies: list[str], model: str = "scripted-rubric") -> None:
        self.model = model
        self.replies = replies
        self.calls = 0

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.calls += 1
        return Completion(text=self.replies.pop(0) if self.replies else "")


def test_repair_items() -> None:
    from verifier.judge import json_candidates

    items, notes = repair_items(json_candidates(MESSY)[0])
    criteria = [i.criterion for i in items]
    assert len(items) == 5, notes
    assert criteria[0] == "Advises calling emergency services now"
    assert items[0].points == 8 and items[0].tags[0] == "axis:safety"
    assert items[1].points == 3 and items[1].tags[0] == "axis:consultation_logic"  # default weight
    assert items[2].points == 10 and items[3].points == -10  # clamped
    assert any("duplicate" in n for n in notes) and any("no recognisable axis" in n for n in notes)


async def test_usable_reply_is_used() -> None:
    client = Scripted([MESSY])
    rubric = await LLMRubricGenerator(client, fallback=CaseRubricGenerator()).generate(
        conversation=[Message(role="user", content="chest pain"), Message(role="assistant", content="call 911")]
    )
    assert rubric.generator == "llm:scripted-rubric" and rubric.fallback_reason is None
    assert rubric_problems(rubric, require_dimensions=False) == []


async def test_unusable_reply_falls_back_and_says_why() -> None:
    client = Scripted(["I cannot do that.", '[{"criterion": "x"}]'])
    rubric = await LLMRubricGenerator(client, fallback=CaseRubricGenerator(), attempts=2).generate(case=stemi_case())
    assert client.calls == 2
    assert rubric.generator == "case" and rubric.fallback_reason and "usable criteria" in rubric.fallback_reason
    with pytest.raises(RubricGenerationError):
        await LLMRubricGenerator(Scripted([]), attempts=1).generate(case=stemi_case())


async def test_cache_keyed_by_input_and_version(tmp_path) -> None:
    cache = RubricCache(tmp_path)
    client = Scripted([MESSY, MESSY])
    generator = CachedRubricGenerator(LLMRubricGenerator(client), cache)
    convo = [Message(role="user", content="chest pain"), Message(role="assistant", content="call 911")]
    first = await generator.generate(conversation=convo)
    second = await generator.generate(conversation=convo)
    assert first == second and client.calls == 1 and cache.hits == 1
    await generator.generate(conversation=[*convo, Message(role="user", content="thanks")])
    assert client.calls == 2
    inner = LLMRubricGenerator(Scripted([MESSY]))
    inner.version = "llm-rubric-2"
    await CachedRubricGenerator(inner, cache).generate(conversation=convo)
    assert inner.client.calls == 1  # a new generator version does not reuse old entries
    fallback = CachedRubricGenerator(LLMRubricGenerator(Scripted([]), fallback=CaseRubricGenerator(), attempts=1), cache)
    await fallback.generate(case=stemi_case())
    assert len(list(tmp_path.glob("*.json"))) == 3  # fallback rubrics are not cached
