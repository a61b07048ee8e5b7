"""The measurement responder and the grader agree on what every order names: every test name the case
sets hold and every order of the natural consultations, with 0 disagreements; and the check does find
a disagreement when the two are made to read an order differently."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evaluation.audit_orders import check_orders, order_agreement
from patient_sim.cases import find_case, import_agentclinic, project_cases
from patient_sim.measurement import Finding, MeasurementResponder
from verifier.data import data_dir


def _natural_turns(name: str) -> dict[str, list[str]]:
    entries = yaml.safe_load((data_dir() / "natural" / f"{name}.yaml").read_text(encoding="utf-8"))
    return {e["case"]: [t for c in e["consultations"] for t in c["turns"]] for e in entries}


def test_project_cases_and_their_natural_orders_agree() -> None:
    report = order_agreement(project_cases(), _natural_turns("project"))
    assert report.orders > 400
    assert report.disagreements == [], report.disagreements[:5]


def test_agentclinic_cases_and_their_natural_orders_agree(agentclinic_path: Path) -> None:
    report = order_agreement(import_agentclinic(agentclinic_path), _natural_turns("agentclinic"))
    assert report.orders > 1500
    assert report.disagreements == [], report.disagreements[:5]


def test_a_responder_that_reads_orders_its_own_way_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    case = find_case("acute-appendicitis")
    real = MeasurementResponder.lookup

    def own_way(self: MeasurementResponder, request: str, *, exam: bool = False) -> list[Finding]:
        if request == "MRI brain":  # answered although the case holds no such result: the grader penalises it
            return [Finding(request=request, status="found", key=k, value="x") for k in case.test_results]
        if request == "CRP":  # the grader credits CRP; this responder says it is not available
            return [Finding(request=request, status="not_available")]
        return real(self, request, exam=exam)

    monkeypatch.setattr(MeasurementResponder, "lookup", own_way)
    _, found = check_orders(case, [("test", "MRI brain"), ("test", "CRP"), ("test", "Troponin")])
    kinds = {(d.order, d.kind) for d in found}
    assert ("CRP", "credited_but_unanswered") in kinds
    assert ("MRI brain", "answered_but_penalised") in kinds
    assert ("Troponin", "answered_but_penalised") not in kinds  # not answered: no disagreement to find
