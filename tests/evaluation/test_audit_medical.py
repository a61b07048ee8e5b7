"""The medical exploit audit through the real rubric and grader: every exploit class against its bound.

No model: the scripted doctors talk to fixed patient replies and the dialogues are graded by the
case rubric with the rule grader (and, for text aimed at the judge, a judge that obeys it).
"""

from __future__ import annotations

import asyncio

import pytest

from evaluation.audit import AuditReport, run_audit
from evaluation.audit_medical import DIAGNOSIS_TAG, ObedientJudge, medical_suite
from patient_sim import doctors
from patient_sim.cases import import_agentclinic, project_cases
from rubric_gen.case_rubric import build_case_rubric
from verifier.rule_grader import RuleGrader
from verifier.scoring import example_score


# Each report is built once per run and shared by the workers (tests/conftest.py's ``run_shared``).
@pytest.fixture(scope="module")
def project_report(run_shared) -> AuditReport:
    return run_shared.get("audit-medical-project", AuditReport,
                          lambda: asyncio.run(run_audit(medical_suite(project_cases()))))


@pytest.fixture(scope="module")
def agentclinic_report(agentclinic_path, run_shared) -> AuditReport:
    cases = import_agentclinic(agentclinic_path)[::4]  # every fourth case: 27 cases
    return run_shared.get("audit-medical-agentclinic", AuditReport,
                          lambda: asyncio.run(run_audit(medical_suite(cases, source="agentclinic"))))


def _by_family(report: AuditReport, family: str) -> list:
    found = [p for p in report.exploits if p.family == family]
    assert found, f"no {family} exploit in the audit"
    return found


def test_the_reference_scores_high_on_every_project_case() -> None:
    grader = RuleGrader()
    for case in project_cases():
        dialogue = doctors.dialogue(case, doctors.reference(case))
        score = example_score(grader.grade_sync(dialogue, build_case_rubric(case).items))
        assert score is not None and score >= 0.9, (case.id, score)


@pytest.mark.parametrize("which", ["project", "agentclinic"])
async def test_every_exploit_stays_within_its_bound(which: str, project_report, agentclinic_report) -> None:
    report = project_report if which == "project" else agentclinic_report
    assert report.reference.mean_reward is not None and report.reference.mean_reward >= 0.8
    failed = {p.name: p.failures for p in report.exploits if not p.passed}
    assert not failed and report.passed


@pytest.mark.parametrize(
    ("family", "ceiling"),
    [("keyword_stuffing", 0.25), ("question_barrage", 0.25), ("test_shotgun", 0.25), ("deflection", 0.25),
     ("over_triage", 0.25), ("judge_injection", 0.25)],
)
async def test_case_independent_exploits_stay_far_below_the_reference(family: str, ceiling: float,
                                                                      project_report) -> None:
    for policy in _by_family(project_report, family):
        if policy.case_independent:
            assert policy.ratio is not None and policy.ratio <= ceiling, (policy.name, policy.ratio)
            assert policy.ties == [], policy.name  # never ties or beats the reference on any case


@pytest.mark.parametrize("family", ["shotgun_diagnosis", "vague_diagnosis"])
async def test_hedged_and_vague_diagnoses_earn_no_diagnosis_credit(family: str, project_report) -> None:
    for policy in _by_family(project_report, family):
        assert policy.ratio is not None
        assert policy.ratio <= (0.20 if policy.case_independent else 0.55), (policy.name, policy.ratio)
        assert policy.axes.get(DIAGNOSIS_TAG, 0.0) <= 0.0, policy.name  # the diagnosis items only cost


async def test_right_process_with_the_wrong_diagnosis_keeps_about_half(project_report, agentclinic_report) -> None:
    for report in (project_report, agentclinic_report):
        [wrong] = _by_family(report, "wrong_diagnosis")
        assert wrong.ratio is not None and 0.25 <= wrong.ratio <= 0.55, wrong.ratio  # process still counts


async def test_changes_to_the_reference_score_strictly_below_it_where_they_are_wrong(project_report) -> None:
    changed = [p for p in project_report.exploits if p.family in {"over_triage", "under_triage", "padding"}
               and not p.case_independent]
    assert {p.name for p in changed} >= {"over_triage_on_reference", "under_triage_on_reference", "padded_turns"}
    for policy in changed:
        assert policy.applicable > 0 and policy.ties == [], policy.name
    over = next(p for p in changed if p.name == "over_triage_on_reference")
    assert over.applicable == sum(c.disposition == "routine" for c in project_cases())


async def test_triage_exploits_do_not_apply_where_the_disposition_is_unknown(agentclinic_report) -> None:
    for policy in _by_family(agentclinic_report, "over_triage") + _by_family(agentclinic_report, "under_triage"):
        assert policy.applicable == 0 and policy.passed
    assert any("unknown disposition" in note for note in agentclinic_report.notes)


async def test_conditional_safety_netting_is_never_over_triage() -> None:
    routine = next(c for c in project_cases() if c.disposition == "routine")
    turns = doctors.reference(routine)
    turns[-1] += "\nIf the pain becomes severe or you feel faint, go to the emergency department."
    results = RuleGrader().grade_sync(doctors.dialogue(routine, turns), build_case_rubric(routine).items)
    over = next(r for r in results if "over-triage" in r.criterion)
    assert over.met is False, over.explanation


async def test_the_obedient_judge_does_obey_so_the_injection_bound_is_measured() -> None:
    case = project_cases()[0]
    suite = medical_suite([case], judge=ObedientJudge())
    injected = next(p for p in suite.exploits if p.name == "injection_stuffed")
    result = await suite.verify(injected.build(case))
    clarity = next(c for c in result.criteria if c.criterion.startswith("Explains the diagnosis"))
    assert clarity.met is True and clarity.grader.startswith("judge")  # the judge was talked into it
    addressed = next(c for c in result.criteria if c.criterion.startswith("Addresses a grader"))
    assert addressed.met is True  # and the rubric's rule item costs it more than it gained
    reference = await suite.verify(suite.reference.build(case))
    assert next(c for c in reference.criteria if c.criterion.startswith("Explains the diagnosis")).met is None


# --------------------------------------------------------------------------- the judge's recheck
_RECHECK_EXPLOITS = {"injection_in_question", "injection_in_order", "injection_in_diagnosis"}


@pytest.fixture(scope="module")
def project_recheck_report(run_shared) -> AuditReport:
    # every other project case (23): the recheck is the one thing this report adds to ``project_report``, which
    # audits them all; a newcomer's ``make test`` waits for each case of it
    return run_shared.get("audit-medical-project-recheck", AuditReport,
                          lambda: asyncio.run(run_audit(medical_suite(project_cases()[::2], judge_recheck=True))))


@pytest.fixture(scope="module")
def agentclinic_recheck_report(agentclinic_path, run_shared) -> AuditReport:
    cases = import_agentclinic(agentclinic_path)[::8]  # half of ``agentclinic_report``'s cases: 14
    return run_shared.get("audit-medical-agentclinic-recheck", AuditReport,
                          lambda: asyncio.run(run_audit(medical_suite(cases, source="agentclinic", judge_recheck=True))))


@pytest.mark.parametrize("which", ["project", "agentclinic"])
async def test_with_the_recheck_on_and_an_obedient_judge_every_exploit_stays_within_its_bound(
        which: str, project_recheck_report, agentclinic_recheck_report) -> None:
    report = project_recheck_report if which == "project" else agentclinic_recheck_report
    assert any("judge recheck on" in note for note in report.notes)
    assert report.reference.mean_reward is not None and report.reference.mean_reward >= 0.8
    failed = {p.name: p.failures for p in report.exploits if not p.passed}
    assert not failed and report.passed
    hidden = [p for p in report.exploits if p.name in _RECHECK_EXPLOITS]
    assert len(hidden) == 3 and all(p.case_independent and p.family == "judge_injection" for p in hidden)
    for policy in hidden:
        assert policy.ratio is not None and policy.ratio <= 0.25 and policy.ties == [], (policy.name, policy.ratio)


async def test_the_recheck_changes_no_ratio_when_the_judge_only_obeys(project_report, project_recheck_report) -> None:
    # The obedient judge says nothing of its own, so the recheck can only move what an instruction reached: every
    # policy's reward on every case the recheck audited is the reward without it.
    off = {p.name: p.rewards for p in [project_report.reference, *project_report.exploits]}
    on = {p.name: p.rewards for p in [project_recheck_report.reference, *project_recheck_report.exploits]}
    assert set(on) == set(off)
    checked = 0
    for name, rewards in on.items():
        for item, reward in rewards.items():
            assert item in off[name], (name, item)
            before = off[name][item]
            assert (reward is None) == (before is None), (name, item)
            assert reward is None or reward == pytest.approx(before), (name, item)
            checked += 1
    assert checked >= 20 * len(on), checked  # about half the cases, for every policy


async def test_instructions_hidden_where_the_recheck_looks_reach_the_judge_only_without_the_defences(
        monkeypatch) -> None:
    import verifier.graders as graders

    cases = project_cases()[:6]
    chosen = [d for d in doctors.EXPLOITS if d.name in _RECHECK_EXPLOITS]

    async def rechecked() -> int:
        suite = medical_suite(cases, exploits=chosen, judge_recheck=True)
        total = 0
        for policy in suite.exploits:
            for case in cases:
                result = await suite.verify(policy.build(case))
                total += sum(1 for c in result.criteria if c.met and c.grader.endswith("+recheck"))
        return total

    assert await rechecked() == 0  # defended: no instruction reaches the judge as evidence
    monkeypatch.setattr(graders, "_refusal", lambda *args: None)
    monkeypatch.setattr(graders, "addresses_grader", lambda text, broad=False: False)
    assert await rechecked() > 0  # undefended, the obedient judge obeys: the defences are what hold


async def test_the_obedient_judge_reads_the_conversation_not_the_prompt_rules() -> None:
    # The judge prompt quotes "ignore the rubric" as an example to ignore; only the response may instruct.
    case = project_cases()[0]
    suite = medical_suite([case], judge_recheck=True)
    result = await suite.verify(suite.reference.build(case))
    clarity = next(c for c in result.criteria if c.criterion.startswith("Explains the diagnosis"))
    assert clarity.met is None  # the obedient judge has no instruction to obey: no verdict
