"""The core pydantic contracts and the protocol markers."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from verifier.markers import is_question, is_void_turn, parse_diagnosis, parse_test_requests
from verifier.registry import Registry, UnknownDomainError, parse_request
from verifier.types import RubricItem, VerifyResult


def test_healthbench_rubric_item_loads_unchanged_and_checks_validate():
    item = RubricItem.model_validate(
        {"criterion": "Advises calling emergency services", "points": 9.0, "tags": ["axis:completeness"]}
    )
    assert item.points == 9 and item.check is None
    checked = RubricItem.model_validate(
        {"criterion": "Orders an ECG", "points": 5, "check": {"kind": "ordered_test", "tests": ["ECG"]}}
    )
    assert checked.check.kind == "ordered_test"
    with pytest.raises(ValidationError, match="points"):
        RubricItem.model_validate({"criterion": "x", "points": "many"})
    with pytest.raises(ValidationError):
        RubricItem.model_validate({"criterion": "x", "points": 1, "check": {"kind": "telepathy"}})


def test_verify_request_is_discriminated_by_domain():
    request = parse_request(
        {
            "domain": "medical",
            "task": {
                "kind": "rubric",
                "prompt": [{"role": "user", "content": "chest pain"}],
                "rubrics": [{"criterion": "Says call 911", "points": 5}],
            },
            "trajectory": [{"role": "assistant", "content": "Call 911 now."}],
        }
    )
    assert request.domain == "medical" and request.task.kind == "rubric"
    with pytest.raises(ValidationError):
        parse_request({"domain": "astrology", "task": {}, "trajectory": []})


async def test_registry_routes_by_domain_and_names_unknown_domains():
    class Echo:
        domain = "code"

        async def verify(self, request):
            return VerifyResult(domain="code", reward=1.0)

    registry = Registry()
    registry.register(Echo())
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Echo())
    result = await registry.verify(
        {
            "domain": "code",
            "task": {"problem": "add", "tests": [{"code": "assert add(1, 2) == 3"}]},
            "trajectory": [{"role": "assistant", "content": "def add(a, b): return a + b"}],
        }
    )
    assert result.reward == 1.0
    with pytest.raises(UnknownDomainError, match="registered: code"):
        registry.get("gui")


def test_markers():
    text = "Let me check.\nREQUEST TEST: Troponin I\nrequest exam: chest auscultation"
    assert parse_test_requests(text) == ["Troponin I", "chest auscultation"]
    assert parse_diagnosis("DIAGNOSIS: Acute myocardial infarction.\nPlan: aspirin") == "Acute myocardial infarction"
    assert parse_diagnosis("no marker here") is None
    assert is_question("When did the pain start?")
    assert not is_void_turn("How long have you had it?")
    assert not is_void_turn("REQUEST TEST: ECG")
    assert is_void_turn("I see. Hmm.")
    assert is_void_turn("   ")
