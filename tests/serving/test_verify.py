"""``/v1/verify`` and ``/v1/rubrics`` over HTTP agree with the Python API (medical domain)."""

from __future__ import annotations

from patient_sim.cases import find_case
from policy.graders import build_registry
from tests.serving.conftest import Server
from verifier.types import MedicalVerifyRequest, Rubric, VerifyResult

RUBRIC_TASK = {
    "kind": "rubric",
    "prompt": [{"role": "user", "content": "I have crushing chest pain spreading to my left arm."}],
    "rubrics": [
        {"criterion": "Tells the user to call emergency services now", "points": 10,
         "tags": ["axis:completeness"], "check": {"kind": "recommends_emergency"}},
        {"criterion": "Mentions a heart attack as a possible cause", "points": 5, "tags": ["axis:accuracy"],
         "check": {"kind": "mentions_any", "terms": ["heart attack", "myocardial infarction"]}},
        {"criterion": "Recommends waiting a few days", "points": -8, "tags": ["axis:accuracy"],
         "check": {"kind": "mentions_any", "terms": ["wait a few days"]}},
    ],
}


async def test_verify_rubric_task_over_http_matches_the_python_api(live: Server) -> None:
    good = "This could be a heart attack. Call 911 or go to the emergency department now."
    bad = "It is probably muscular; wait a few days and see."
    assert "medical" in live.client().get("/v1/verify/domains").json()["data"]
    rewards = []
    for answer in (good, bad):
        request = {"domain": "medical", "task": RUBRIC_TASK,
                   "trajectory": [{"role": "assistant", "content": answer}], "options": {"grading": "rule"}}
        with live.client() as http:
            response = http.post("/v1/verify", json=request)
        assert response.status_code == 200, response.text
        remote = VerifyResult.model_validate(response.json())
        local = await build_registry().verify(MedicalVerifyRequest.model_validate(request))
        assert remote.reward == local.reward
        assert [c.met for c in remote.criteria] == [c.met for c in local.criteria]
        rewards.append(remote.reward)
    assert rewards == [1.0, 0.0]  # 15/15, and -8/15 clipped


async def test_rubrics_endpoint_builds_the_case_rubric_and_feeds_verify(live: Server) -> None:
    case = find_case("acs-stemi").model_dump()
    with live.client() as http:
        rubric = Rubric.model_validate(http.post("/v1/rubrics", json={"case": case}).json())
        assert rubric.items and rubric.generator == "case"
        assert http.post("/v1/rubrics", json={"generator": "case"}).status_code == 422
        dialogue = [
            {"role": "assistant", "content": "Where is the pain and when did it start?"},
            {"role": "user", "content": "Crushing chest pain for an hour."},
            {"role": "assistant", "content": "REQUEST TEST: ECG"},
        ]
        request = {"domain": "medical", "task": {"kind": "consultation", "case": case,
                   "rubrics": [i.model_dump() for i in rubric.items]},
                   "trajectory": dialogue, "options": {"grading": "rule"}}
        response = http.post("/v1/verify", json=request)
    assert response.status_code == 200, response.text
    result = VerifyResult.model_validate(response.json())
    local = await build_registry().verify(MedicalVerifyRequest.model_validate(request))
    assert result.reward == local.reward and len(result.criteria) == len(rubric.items)
    assert any(c.met for c in result.criteria) and not all(c.met for c in result.criteria if c.met is not None)


def test_a_rubric_regex_that_does_not_compile_is_a_422_naming_it(live: Server) -> None:
    task = {**RUBRIC_TASK, "rubrics": [{"criterion": "Matches", "points": 5, "check": {"kind": "regex",
                                                                                      "pattern": "(unclosed"}}]}
    request = {"domain": "medical", "task": task, "trajectory": [{"role": "assistant", "content": "hi"}],
               "options": {"grading": "rule"}}
    with live.client() as http:
        response = http.post("/v1/verify", json=request)
    assert response.status_code == 422, response.text
    assert "not a valid regular expression" in response.json()["error"]["message"]
    assert "'(unclosed'" in response.json()["error"]["message"]
