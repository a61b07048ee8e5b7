"""The search exploit audit through the real search backend: every exploit stays under its bound, and
the same exploits beat plain SQuAD F1 (so the audit would catch the rules being undone)."""

from __future__ import annotations

from dataclasses import replace

from evaluation.audit import run_audit
from evaluation.audit_search import search_suite
from verifier.backends.search import SearchBackend, load_search_tasks
from verifier.types import VerifyResult

FAMILIES = {"many_answers", "hidden_answer_tag", "answer_list", "candidate_bag", "all_aliases", "passage_dump",
            "question_copy", "keyword_stuffing", "shotgun", "over_budget"}


async def test_every_search_exploit_stays_under_a_fifth_of_the_reference() -> None:
    report = await run_audit(search_suite())
    assert report.passed, [(p.name, p.failures) for p in [report.reference, *report.exploits] if not p.passed]
    assert report.reference.items == len(load_search_tasks()) and report.reference.mean_reward == 1.0
    assert {p.family for p in report.exploits} == FAMILIES
    for policy in report.exploits:
        assert policy.items > 0 and policy.bound == "ratio <= 0.2", policy.name
        assert policy.ratio is not None and policy.ratio <= 0.2, (policy.name, policy.ratio)
    by_family: dict[str, list[int]] = {}
    for policy in report.exploits:
        by_family.setdefault(policy.family, []).append(1)
    assert all(len(v) >= 2 for v in by_family.values())  # several instances per class
    assert any(p.case_independent for p in report.exploits)


async def test_the_same_exploits_beat_plain_squad_f1() -> None:
    """The verifier before the answer rules: SQuAD F1 of the last answer (the budget still applies)."""
    backend = SearchBackend()

    async def squad(request) -> VerifyResult:
        result = await backend.verify(request)
        reward = result.scores["squad_f1"] if result.scores["within_budget"] else 0.0
        return result.model_copy(update={"reward": reward})

    report = await run_audit(replace(search_suite(backend), verify=squad))
    beaten = {p.family for p in report.exploits if not p.passed}
    assert beaten == FAMILIES - {"shotgun", "over_budget"}, beaten
