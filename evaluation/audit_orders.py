"""Do the measurement responder and the grader agree on what every order names?

The environment answers an order with the case's results; the reward credits it against the rubric's
test items and counts it against the unindicated-tests penalty. Both read orders through one resolver
(``verifier.clinical.resolve``), and this module checks that they never disagree, over every test name
a case holds (its results, examinations and recommended tests) and every order of the natural
consultations. A disagreement is one of:

* ``answered_but_penalised``: the responder returns a result and the grader counts the order as an
  unindicated test;
* ``credited_but_unanswered``: the grader credits a test item, and the responder answers "not available";
* ``answered_but_not_credited``: the responder returns every result a test item names, and the grader
  does not credit that item.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from patient_sim.doctors import dialogue, test_name
from patient_sim.measurement import MeasurementResponder
from rubric_gen.case_rubric import build_case_rubric, case_tests
from verifier import clinical
from verifier.markers import parse_orders
from verifier.rule_grader import MAX_ORDER_WORDS, RuleGrader, unindicated_orders
from verifier.types import Case, OrderedTest, UnindicatedTests

Kind = Literal["answered_but_penalised", "credited_but_unanswered", "answered_but_not_credited"]


class Disagreement(BaseModel):
    case_id: str
    order: str
    kind: Kind
    detail: str = ""


class OrderAgreement(BaseModel):
    cases: int = 0
    orders: int = 0
    disagreements: list[Disagreement] = Field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.disagreements:
            out[d.kind] = out.get(d.kind, 0) + 1
        return out


def case_orders(case: Case) -> list[tuple[str, str]]:
    """Every test name the case holds, as ``(kind, name)`` orders: each result and examination by its short
    name (as a doctor would order it), each test the rubric asks for, each recommended test."""
    names = [*(test_name(k) for k in case.test_results), *case_tests(case), *case.recommended_tests]
    exams = [test_name(k) for k in case.physical_exam]
    return ([("test", n) for n in dict.fromkeys(names)]
            + [("exam", n) for n in dict.fromkeys(exams) if n not in names])


def check_orders(case: Case, orders: Iterable[tuple[str, str]]) -> tuple[int, list[Disagreement]]:
    """Each order alone in a consultation on ``case``: what the responder returns beside what the grader
    credits and penalises."""
    rubric = build_case_rubric(case)
    tests = [(item, item.check) for item in rubric.items if isinstance(item.check, OrderedTest) and item.points > 0]
    penalty = next((i.check for i in rubric.items if isinstance(i.check, UnindicatedTests)), None)
    responder = MeasurementResponder(case)
    entries = [*case.physical_exam, *case.test_results]
    grader = RuleGrader()
    out: list[Disagreement] = []
    count = 0
    for kind, name in dict.fromkeys(orders):
        count += 1
        findings = responder.lookup(name, exam=kind == "exam")
        found = {f.key for f in findings if f.status == "found"}
        named = set(clinical.resolve(name, entries, exam=kind == "exam").named)  # answered by name, not vaguely
        conversation = dialogue(case, [f"REQUEST {kind.upper()}: {name}"])
        results = grader.grade_sync(conversation, [item for item, _ in tests])
        if penalty is not None and found and unindicated_orders(conversation, penalty):
            out.append(Disagreement(case_id=case.id, order=name, kind="answered_but_penalised",
                                    detail=f"returns {sorted(found)[:3]}"))
        for (item, check), result in zip(tests, results, strict=True):
            held = set(clinical.resolve(check.tests[0], entries).named)
            if result.met and held and not found:
                out.append(Disagreement(case_id=case.id, order=name, kind="credited_but_unanswered",
                                        detail=item.criterion))
            elif not result.met and held and held <= named and kind == "test" and len(name.split()) <= MAX_ORDER_WORDS:
                out.append(Disagreement(case_id=case.id, order=name, kind="answered_but_not_credited",
                                        detail=item.criterion))
    return count, out


def order_agreement(cases: Sequence[Case], extra: dict[str, list[str]] | None = None) -> OrderAgreement:
    """Agreement over every test name of ``cases`` and, per case id, the doctor turns in ``extra`` (the
    natural consultations' turns: their ``REQUEST`` lines are read as the grader reads them)."""
    report = OrderAgreement(cases=len(cases))
    for case in cases:
        orders = case_orders(case)
        for turn in (extra or {}).get(case.id, []):
            orders.extend(parse_orders(turn))
        count, found = check_orders(case, orders)
        report.orders += count
        report.disagreements.extend(found)
    return report
