"""The work-up clinicians order for a diagnosis is never "tests the presentation does not call for": blood and
sputum cultures in a pneumonia, a CT head and a meningococcal PCR in meningitis (verifier/clinical/diagnoses.yaml,
``workup``). Tests off the work-up still cost. Probed by the project (2026-12-05) with sparse, focused work-ups a
clinician would order, on the project's own cases."""

from __future__ import annotations

import pytest

from patient_sim.cases import project_cases
from patient_sim.doctors import dialogue
from rubric_gen.case_rubric import build_case_rubric
from verifier import clinical
from verifier.clinical.data import DIAGNOSES_FILE, DiagnosesData, _read
from verifier.rule_grader import RuleGrader

_CASES = {case.id: case for case in project_cases()}
_UNINDICATED = "Orders tests the presentation does not call for"


def _penalised(case_id: str, orders: str) -> bool:
    case = _CASES[case_id]
    items = [i for i in build_case_rubric(case).items if i.criterion.startswith(_UNINDICATED)]
    turns = [f"REQUEST TEST: {orders}", f"DIAGNOSIS: {case.final_diagnosis}"]
    return bool(RuleGrader().grade_sync(dialogue(case, turns), items)[0].met)


@pytest.mark.parametrize(("case_id", "orders"), [
    ("community-pneumonia", "blood cultures, sputum culture, procalcitonin, CXR"),
    ("bacterial-meningitis", "blood cultures, CT head, LP, meningococcal PCR, lactate"),
    ("strep-pharyngitis", "throat swab, monospot, FBC, CRP"),
    ("ischaemic-stroke", "CT head, CTA, ECG, glucose, lipids, HbA1c, echo, carotid doppler"),
])
def test_a_diagnosis_s_work_up_is_indicated(case_id: str, orders: str) -> None:
    assert not _penalised(case_id, orders)


@pytest.mark.parametrize(("case_id", "orders"), [
    ("acute-gout", "chest X-ray, CT head, MRI spine"),
    ("community-pneumonia", "CT head, MRI brain, TFTs, HbA1c, coeliac serology, PSA"),
])
def test_tests_off_the_work_up_still_cost(case_id: str, orders: str) -> None:
    assert _penalised(case_id, orders)


def test_every_work_up_test_is_a_test_the_layer_reads() -> None:
    data: DiagnosesData = _read(DIAGNOSES_FILE, DiagnosesData)  # type: ignore[assignment]
    orders = {t: clinical.read_order(t) for tests in data.workup.values() for t in tests}
    unread = [t for t, order in orders.items() if not (order.tests or order.methods)]
    assert not unread


def test_a_work_up_key_is_found_inside_a_longer_name_only_as_whole_words() -> None:
    assert "sputum culture" in clinical.workup_tests(["Community-acquired pneumonia"])
    assert not clinical.workup_tests(["Pneumonitis"])
