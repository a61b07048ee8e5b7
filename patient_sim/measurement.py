"""The measurement responder: examination findings and test results, only when the doctor orders them.

What an order names among the case's ``physical_exam`` and ``test_results`` keys (``"Blood tests >
Troponin"``) is decided by the clinical-language layer's one resolver (``verifier.clinical.resolve``),
the same that the grader credits and penalises orders with, so the two never disagree: a "CBC" returns
the WBC, haemoglobin and platelets; "ultrasound of the abdomen" the abdominal ultrasound. An examined
body system with nothing recorded is "normal"; anything else that the case does not hold is "not
available".
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from patient_sim.prompts import MEASUREMENT_HEADER
from verifier import clinical
from verifier.markers import parse_orders
from verifier.types import Case


class Finding(BaseModel):
    request: str
    status: Literal["found", "normal", "not_available"]
    key: str | None = None
    value: str | None = None


class MeasurementResponder:
    def __init__(self, case: Case) -> None:
        self.case = case
        self._entries = {**case.physical_exam, **case.test_results}

    def lookup(self, request: str, *, exam: bool = False) -> list[Finding]:
        """The findings ``request`` names (``exam``: it was ordered with ``REQUEST EXAM:``)."""
        resolution = clinical.resolve(request, self._entries, exam=exam)
        if resolution.labels:
            return [Finding(request=request, status="found", key=k, value=self._entries[k]) for k in resolution.labels]
        order = clinical.read_order(request, exam=exam)
        if clinical.EXAM in order.methods or (order.sites and not (order.tests or order.methods or order.rest)):
            return [Finding(request=request, status="normal")]
        return [Finding(request=request, status="not_available")]

    def respond(self, requests: list[str] | list[tuple[str, str]]) -> tuple[str, list[Finding]]:
        """The reply text for the ordered tests (names, or ``(kind, name)`` pairs from
        ``verifier.markers.parse_orders``) and the findings behind it."""
        findings: list[Finding] = []
        for request in requests:
            kind, name = request if isinstance(request, tuple) else ("test", request)
            findings.extend(self.lookup(name, exam=kind == "exam"))
        lines = [MEASUREMENT_HEADER]
        shown: set[str] = set()
        for finding in findings:
            if finding.status == "found":
                if finding.key not in shown:  # "CBC" and "WBC" in one turn: the WBC once
                    shown.add(finding.key or "")
                    lines.append(f"- {finding.key}: {finding.value}")
            elif finding.status == "normal":
                lines.append(f"- {finding.request}: normal, no abnormal findings")
            else:
                lines.append(f"- {finding.request}: not available")
        return "\n".join(lines), findings

    def respond_to(self, doctor_text: str) -> tuple[str, list[Finding]]:
        """The reply to a doctor turn's ``REQUEST TEST:``/``REQUEST EXAM:`` orders, read as the grader reads them."""
        return self.respond(parse_orders(doctor_text))
