"""The recall audit: the rubric-item map on built rubrics, the figures on hand-made graded results (worked
out by hand), the quality ladder on a fixture, and clear errors on bad natural-consultation files.

Today's recall values are not asserted here: they are measured by ``bench/audit.py``, and the bounds
belong with the rubric work that moves them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from evaluation.audit_recall import (
    RUNGS,
    CaseLadder,
    ConsultationResult,
    ItemMiss,
    NaturalFormatError,
    Rung,
    asks_for_tests,
    guesses_right,
    item_marks_path,
    judge_ladder,
    ladder_figures,
    ladder_turns,
    load_item_marks,
    load_natural,
    parse_natural,
    recall_audit,
    recall_figures,
    recall_lines,
    render_recall_table,
    score_consultation,
    summarise,
    with_diagnosis,
    without_orders,
    without_questions,
    wrong_diagnosis,
)
from evaluation.audit_recall import item_group as group_of
from patient_sim import doctors
from patient_sim.cases import project_cases
from rubric_gen.case_rubric import build_case_rubric
from verifier.markers import parse_diagnosis, parse_orders
from verifier.types import (
    AsksAbout,
    Case,
    CriterionResult,
    DiagnosisMatches,
    OrderedTest,
    QuestionBarrage,
    RubricItem,
    VerifyResult,
)

FIXTURE = Path(__file__).parent / "data" / "natural_consultations.yaml"


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return {c.id: c for c in project_cases()}


def _imported() -> Case:
    """An AgentClinic-like case: no key questions, differential, red flags or recommended tests."""
    return Case(id="agentclinic-x", chief_complaint="Double vision", history_of_present_illness="Worse in the evening.",
                secondary_symptoms=["Difficulty climbing stairs", "Weakness in upper limbs"],
                test_results={"Blood Tests > Acetylcholine Receptor Antibodies": "Positive",
                              "Imaging > Chest CT > Findings": "Normal"},
                final_diagnosis="Myasthenia gravis", source="agentclinic")


# --------------------------------------------------------------------------- the map
def _groups(case: Case) -> Counter:
    return Counter(group_of(item) for item in build_case_rubric(case).items)


def test_every_credit_item_of_a_built_rubric_has_one_group(cases: dict[str, Case]) -> None:
    for case in [*cases.values(), _imported()]:
        for item in build_case_rubric(case).items:
            group = group_of(item)
            if item.points <= 0 or item.check is None:
                assert group is None, (case.id, item.criterion)  # penalties and judge-only items: never recall
            else:
                assert group is not None, (case.id, item.criterion, item.check.kind)


def test_the_map_on_an_emergency_case(cases: dict[str, Case]) -> None:
    case = cases["acute-appendicitis"]
    groups = _groups(case)
    assert groups["diagnosis"] == 1 and groups["differential"] == 1
    assert groups["history"] == len(case.key_questions)  # one item per key question
    assert groups["red_flags"] == 3 and groups["tests"] == len(case.recommended_tests)
    for one in ("allergies", "disposition", "emergency_now", "safety_net", "empathy", "focused"):
        assert groups[one] == 1, one
    by_group = {group_of(i): i for i in build_case_rubric(case).items}
    assert by_group["emergency_now"].criterion.startswith("Tells the patient to get emergency care now")
    assert "allerg" in by_group["allergies"].criterion.lower()
    assert "red flag" in by_group["red_flags"].criterion.lower()


def test_the_map_on_routine_urgent_and_imported_cases(cases: dict[str, Case]) -> None:
    routine = _groups(cases["acute-gout"])
    assert routine["disposition"] == 1 and routine["emergency_now"] == 0 and routine["red_flags"] == 3
    urgent = next(c for c in cases.values() if c.disposition == "urgent")
    assert _groups(urgent)["disposition"] == 1 and _groups(urgent)["emergency_now"] == 0
    imported = _groups(_imported())
    assert imported["diagnosis"] == 1 and imported["history"] >= 1 and imported["tests"] >= 1
    assert imported["differential"] == 0 and imported["red_flags"] == 0 and imported["emergency_now"] == 0


# --------------------------------------------------------------------------- figures, by hand
def _item(criterion: str, points: int, tags: list[str], check) -> RubricItem:  # noqa: ANN001
    return RubricItem(criterion=criterion, points=points, tags=tags, check=check)


def _gout_diagnosis_and_history() -> list[RubricItem]:
    return [
        _item("States the correct final diagnosis: Gout.", 10, ["cluster:diagnosis"],
              DiagnosisMatches(synonyms=["Gout"])),
        _item("Before giving a diagnosis, asks: Any injury?", 2, ["cluster:history"], AsksAbout(groups=[["injury"]])),
        _item("Before giving a diagnosis, asks: How much alcohol?", 2, ["cluster:history"],
              AsksAbout(groups=[["alcohol"]])),
    ]


def _graded(items: list[RubricItem], verdicts: list[bool | None], reward: float) -> VerifyResult:
    return VerifyResult(domain="medical", reward=reward, criteria=[
        CriterionResult(criterion=i.criterion, points=i.points, tags=i.tags, met=m) for i, m in zip(items, verdicts, strict=True)])


def test_score_consultation_counts_annotated_items_and_penalties() -> None:
    items = [
        *_gout_diagnosis_and_history(),
        _item("Orders the appropriate test: Urate.", 3, ["cluster:tests"], OrderedTest(tests=["Urate"])),
        _item("Fires a barrage of questions.", -5, ["cluster:history"], QuestionBarrage()),
        _item("Explains clearly.", 2, ["cluster:communication"], None),
    ]
    verdicts = [True, True, False, None, True, True]  # the test item undecided; the barrage fires
    result = _graded(items, verdicts, 0.5)
    # "tests" is not annotated, so its item does not count; the undecided one would not either
    scored = score_consultation(items, result, ["diagnosis", "history"], case_id="c", register="terse",
                                heldout=False, reference=1.0)
    assert (scored.annotated, scored.credited, scored.items_unscored) == (3, 2, 0)
    assert scored.missed == [ItemMiss(group="history", criterion="Before giving a diagnosis, asks: How much alcohol?")]
    assert scored.penalties == ["Fires a barrage of questions."]
    with_tests = score_consultation(items, result, ["diagnosis", "history", "tests"], case_id="c",
                                    register="terse", heldout=False, reference=1.0)
    assert (with_tests.annotated, with_tests.credited, with_tests.items_unscored) == (3, 2, 1)
    unscored = VerifyResult(domain="medical", reward=None, criteria=result.criteria, meta={"scored": False})
    nothing = score_consultation(items, unscored, ["history"], case_id="c", register="terse", heldout=False,
                                 reference=1.0)
    assert nothing.reward is None and nothing.annotated == 0 and nothing.penalties == []
    with pytest.raises(ValueError, match="graded criteria for"):
        score_consultation(items[:2], result, [], case_id="c", register="terse", heldout=False, reference=1.0)


def test_a_clinicians_item_marks_decide_recall_credits_and_penalties() -> None:
    items = [
        *_gout_diagnosis_and_history(),
        _item("Before giving a diagnosis, asks: Any fever?", 2, ["cluster:history"], AsksAbout(groups=[["fever"]])),
        _item("Orders the appropriate test: Urate.", 4, ["cluster:tests"], OrderedTest(tests=["Urate"])),
        _item("Fires a barrage of questions.", -5, ["cluster:history"], QuestionBarrage()),
        _item("Orders tests the presentation does not call for.", -4, ["cluster:tests"], OrderedTest(tests=["x"])),
    ]
    verdicts = [True, True, False, True, False, True, False]
    result = _graded(items, verdicts, 0.7)
    # The writer annotated only "diagnosis" and "history". The clinician: the alcohol question was asked (the
    # grader missed it), the fever one was not (the grader credited it), the urate test was ordered (no group
    # annotation, but the mark decides), the barrage is real, the unindicated tests happened and went unpenalised.
    marks = {items[0].criterion: True, items[1].criterion: True, items[2].criterion: True,
             items[3].criterion: False, items[4].criterion: True, items[5].criterion: True, items[6].criterion: True}
    scored = score_consultation(items, result, ["diagnosis", "history"], case_id="c", register="terse",
                                heldout=False, reference=1.0, marks=marks)
    # annotated: diagnosis, injury, alcohol, urate (fever marked not met); credited: diagnosis, injury
    assert (scored.annotated, scored.credited, scored.marked) == (4, 2, 4)
    assert [m.criterion for m in scored.missed] == [items[2].criterion, items[4].criterion]
    assert scored.false_credits == [items[3].criterion]
    assert (scored.penalties, scored.confirmed_penalties) == ([], [items[5].criterion])
    assert scored.missed_penalties == [items[6].criterion]
    # by the writer's groups alone: diagnosis, injury, alcohol, fever decided; 3 credited
    assert (scored.group_annotated, scored.group_credited) == (4, 3)
    # the clinician's reward: met 10 + 2 + 2 + 4 = 18, positive 20, minus the barrage 5 and the tests 4: 9 / 20
    assert scored.clinician_reward == 0.45
    # an item the clinician did not mark counts by the writer's groups, as before
    partial = score_consultation(items, result, ["diagnosis", "history"], case_id="c", register="terse",
                                 heldout=False, reference=1.0, marks={items[3].criterion: False})
    assert (partial.annotated, partial.credited, partial.marked, partial.false_credits) == (3, 2, 0, [items[3].criterion])
    assert partial.penalties == [items[5].criterion]
    no_marks = score_consultation(items, result, ["history"], case_id="c", register="terse", heldout=False,
                                  reference=1.0)
    assert no_marks.clinician_reward is None and no_marks.false_credits == []


def test_clinician_ratio_and_false_credits_by_hand() -> None:
    results = [
        ConsultationResult(case_id="a", register="terse", heldout=True, reward=0.8, reference=1.0,
                           clinician_reward=1.0, false_credits=["x"], annotated=4, credited=3, marked=4,
                           group_annotated=5, group_credited=3),
        ConsultationResult(case_id="b", register="terse", heldout=True, reward=0.6, reference=1.0,
                           clinician_reward=0.4, confirmed_penalties=["p"], annotated=2, credited=2, marked=1,
                           group_annotated=2, group_credited=2),
        ConsultationResult(case_id="c", register="terse", heldout=True, reward=0.5, reference=1.0),  # no marks
    ]
    figures = recall_figures(results, "heldout", "terse")
    # marked consultations a and b: rewards (0.8 + 0.6) / 2 = 0.7, clinicians' (1.0 + 0.4) / 2 = 0.7
    assert (figures.clinician_consultations, figures.clinician_ratio) == (2, 1.0)
    assert (figures.item_recall, figures.group_item_recall, figures.items_marked) == (0.8333, 0.7143, 5)
    assert (figures.false_credits, figures.false_credit_criteria) == (1, {"x": 1})
    assert (figures.false_penalties, figures.confirmed_penalties) == (0, 1)


def test_item_marks_load_beside_the_natural_file_and_bad_lines_are_named(tmp_path: Path,
                                                                         cases: dict[str, Case]) -> None:
    natural = tmp_path / "set.yaml"
    natural.write_text(yaml.safe_dump([_entry(), _entry(case="elsewhere")]))
    assert item_marks_path(natural) == tmp_path / "items" / "set.jsonl"
    (tmp_path / "items").mkdir()
    good = ('{"case": "acute-gout", "register": "terse", "criterion": "Asks: Any injury?", "met": true}\n'
            '{"case": "elsewhere", "register": "terse", "criterion": "Asks: Any injury?", "met": false}\n')
    item_marks_path(natural).write_text(good)
    chosen = load_natural(natural, cases, skip_unknown_cases=True)
    assert chosen.marks == {"acute-gout|terse": {"Asks: Any injury?": True}}  # the left-out case's marks dropped
    assert chosen.marks_for("acute-gout", "terse") == {"Asks: Any injury?": True}
    assert chosen.marks_for("acute-gout", "gp_lay") == {}
    for bad, message in [
        ('{"case": "acute-gout", "register": "pirate", "criterion": "c", "met": true}', "set.jsonl:2: register"),
        ('{"case": "acute-gout", "register": "terse", "criterion": "c", "met": "yes"}', "set.jsonl:2: met"),
        ("not json", "set.jsonl:2:"),
        ('{"case": "acute-gout", "register": "terse", "criterion": "Asks: Any injury?", "met": false}',
         "set.jsonl:2: acute-gout terse: criterion marked twice"),
    ]:
        item_marks_path(natural).write_text(good.splitlines()[0] + "\n" + bad + "\n")
        with pytest.raises(NaturalFormatError, match=message):
            load_item_marks(item_marks_path(natural))


def _result(case: str, register: str, heldout: bool, reward: float | None, reference: float | None,
            credited: int = 0, annotated: int = 0, penalties: list[str] | None = None) -> ConsultationResult:
    missed = [ItemMiss(group="history", criterion=f"q{i}") for i in range(annotated - credited)]
    return ConsultationResult(case_id=case, register=register, heldout=heldout, reward=reward, reference=reference,
                              credited=credited, annotated=annotated, missed=missed, penalties=penalties or [])


HAND = [
    _result("a", "gp_lay", False, 0.6, 0.8, 3, 4, ["Orders tests the presentation does not call for."]),
    _result("b", "gp_lay", False, 0.9, 1.0, 5, 5),
    _result("a", "terse", False, None, 0.8),  # could not be graded: out of every figure but the count
    _result("b", "terse", False, 0.5, 1.0, 2, 5, ["Orders tests the presentation does not call for."]),
    _result("c", "gp_lay", True, 0.5, 1.0, 1, 2),
    _result("d", "gp_lay", True, 0.7, None, 2, 2),  # its reference could not be graded
]


def test_recall_figures_worked_by_hand() -> None:
    gp = recall_figures(HAND, "tune", "gp_lay")
    # natural (0.6 + 0.9) / 2 = 0.75, reference (0.8 + 1.0) / 2 = 0.9, ratio 0.8333; case a 0.6/0.8 = 0.75
    assert (gp.consultations, gp.unscored, gp.cases) == (2, 0, 2)
    assert (gp.natural_mean, gp.reference_mean, gp.ratio) == (0.75, 0.9, 0.8333)
    assert (gp.min_case, gp.min_case_ratio) == ("a", 0.75)
    assert (gp.items_credited, gp.items_annotated, gp.item_recall) == (8, 9, 0.8889)
    assert gp.false_penalties == 1 and gp.missed_by_group == {"history": 1}

    terse = recall_figures(HAND, "tune", "terse")
    assert (terse.consultations, terse.unscored, terse.ratio, terse.min_case) == (2, 1, 0.5, "b")
    assert terse.item_recall == 0.4  # 2 of 5: the unscored consultation adds nothing

    every = recall_figures(HAND, "tune", "all")
    # natural (0.6 + 0.9 + 0.5) / 3 = 0.6667, reference (0.8 + 1.0 + 1.0) / 3 = 0.9333, ratio 0.7143;
    # case b: (0.9 + 0.5) / 2 / 1.0 = 0.7 < case a 0.75
    assert (every.consultations, every.unscored, every.ratio) == (4, 1, 0.7143)
    assert (every.min_case, every.min_case_ratio) == ("b", 0.7)
    assert (every.items_credited, every.items_annotated, every.item_recall) == (10, 14, 0.7143)
    assert every.false_penalties == 2
    assert every.false_penalty_criteria == {"Orders tests the presentation does not call for.": 2}

    held = recall_figures(HAND, "heldout", "gp_lay")
    # d has no reference: left out of the ratio, kept in item recall: (1 + 2) / (2 + 2) = 0.75
    assert (held.ratio, held.min_case, held.reference_unscored, held.item_recall) == (0.5, "c", 1, 0.75)

    empty = recall_figures(HAND, "heldout", "checklist")
    assert empty.consultations == 0 and empty.ratio is None and empty.item_recall is None


def _ladder(case: str, heldout: bool, reference: float | None, *rewards: float | None) -> CaseLadder:
    return CaseLadder(case_id=case, heldout=heldout, register="gp_lay", reference=reference,
                      rungs=[Rung(name=n, reward=r) for n, r in zip(RUNGS, rewards, strict=True)])


def test_judge_ladder_by_hand() -> None:
    # rungs: natural, no_history, no_orders, wrong_diagnosis, best_exploit
    assert judge_ladder(_ladder("a", False, 1.0, 0.9, 0.7, 0.8, 0.5, 0.05)).ordered
    assert judge_ladder(_ladder("a", False, 1.0, 0.85, 0.7, 0.6, 0.5, 0.05)).ordered  # 0.85 x 1.0 is enough
    low = judge_ladder(_ladder("a", False, 1.0, 0.84, 0.7, 0.6, 0.5, 0.05))
    assert not low.ordered and low.reason == "natural 0.840 < 0.85 x reference 1.000"
    tie = judge_ladder(_ladder("a", False, 1.0, 0.9, 0.9, 0.6, 0.5, 0.05))
    assert not tie.ordered and tie.reason == "no_history 0.900 >= natural 0.900"
    exploit = judge_ladder(_ladder("a", False, 1.0, 0.9, 0.7, 0.6, 0.1, 0.1))
    assert not exploit.ordered and exploit.reason == "best_exploit 0.100 >= wrong_diagnosis 0.100"
    wrong_above = judge_ladder(_ladder("a", False, 1.0, 0.9, 0.5, 0.8, 0.6, 0.0))
    assert wrong_above.reason == "wrong_diagnosis 0.600 >= no_history 0.500"
    both = judge_ladder(_ladder("a", False, 1.0, 0.5, 0.5, 0.6, 0.1, 0.0))
    assert both.reason == ("natural 0.500 < 0.85 x reference 1.000; no_history 0.500 >= natural 0.500; "
                           "no_orders 0.600 >= natural 0.500")
    unscored = judge_ladder(_ladder("a", False, None, 0.9, None, 0.5, 0.2, 0.05))
    assert not unscored.ordered and unscored.reason == "unscored: reference, no_history"


def _scored(ladder: CaseLadder, wrong: float | None, exploit: float | None) -> CaseLadder:
    rungs = [r.model_copy(update={"score": {"wrong_diagnosis": wrong, "best_exploit": exploit}.get(r.name)})
             for r in ladder.rungs]
    return ladder.model_copy(update={"rungs": rungs})


def test_a_tie_at_the_reward_s_floor_is_told_apart_by_the_unclipped_score() -> None:
    floor = _ladder("a", False, 1.0, 0.9, 0.7, 0.6, 0.0, 0.0)
    assert not judge_ladder(floor).ordered  # no unclipped scores: the tie stands
    below = judge_ladder(_scored(floor, -0.2, -0.6))
    assert below.ordered and below.by_score
    above = judge_ladder(_scored(floor, -0.6, -0.2))
    assert not above.ordered and not above.by_score
    assert above.reason == "best_exploit 0.000 >= wrong_diagnosis 0.000 (unclipped -0.200 >= -0.600)"
    # a tie inside the clip's bounds is a tie of the training signal too
    inside = judge_ladder(_scored(_ladder("a", False, 1.0, 0.9, 0.7, 0.6, 0.15, 0.15), 0.15, 0.1))
    assert not inside.ordered
    # an order the rewards already make needs no score
    plain = judge_ladder(_scored(_ladder("a", False, 1.0, 0.9, 0.7, 0.6, 0.2, 0.0), 0.2, -0.5))
    assert plain.ordered and not plain.by_score
    figures = ladder_figures([below, above, plain], "tune")
    assert (figures.ordered, figures.by_score) == (2, 1)


def test_a_ladder_without_a_no_orders_rung_where_the_rubric_asks_for_no_test() -> None:
    rungs = ("natural", "no_history", "wrong_diagnosis", "best_exploit")
    ladder = CaseLadder(case_id="a", heldout=True, register="gp_lay", reference=1.0,
                        rungs=[Rung(name=n, reward=r) for n, r in zip(rungs, (1.0, 0.8, 0.3, 0.1), strict=True)])
    assert judge_ladder(ladder).ordered
    assert asks_for_tests(_imported())
    assert not asks_for_tests(_imported().model_copy(update={"test_results": {}}))


def test_a_fixed_guess_that_is_the_cases_diagnosis_is_a_lucky_guess(cases: dict[str, Case]) -> None:
    """The ladder holds the wrong-diagnosis rung above case-independent exploits; the exploit that always
    says "Migraine" is right on the migraine case by luck, and is not counted there."""
    from evaluation.audit_medical import medical_suite

    chosen = [cases["migraine"], cases["acs-stemi"]]
    fixed = next(p for p in medical_suite(chosen).exploits if p.name == "stuffed_fixed_guess")
    assert guesses_right(fixed, cases["migraine"])
    assert not guesses_right(fixed, cases["acs-stemi"])


def test_ladder_figures_and_summary() -> None:
    ladders = [judge_ladder(_ladder("a", False, 1.0, 0.9, 0.7, 0.5, 0.2, 0.05)),
               judge_ladder(_ladder("b", False, 1.0, 0.6, 0.5, 0.4, 0.2, 0.05)),
               judge_ladder(_ladder("c", True, 1.0, 0.9, 0.8, 0.5, 0.2, 0.05))]
    tune = ladder_figures(ladders, "tune")
    assert (tune.cases, tune.ordered, tune.share) == (2, 1, 0.5)
    assert tune.not_ordered == ["b: natural 0.600 < 0.85 x reference 1.000"]
    report = summarise(HAND, ladders, case_set="project", source="hand")
    assert [(f.split, f.register_) for f in report.figures] == [
        ("tune", "gp_lay"), ("tune", "terse"), ("tune", "all"), ("heldout", "gp_lay"), ("heldout", "all")]
    assert report.figure("heldout").ratio == 0.5 and report.cases == 4 and report.consultations == 6
    assert [(f.split, f.share) for f in report.ladder] == [("tune", 0.5), ("heldout", 1.0)]
    assert "ladder not ordered (tune): b: natural 0.600 < 0.85 x reference 1.000" in recall_lines(report)
    assert "register" in report.model_dump()["figures"][0]  # the data's word, in the JSON too


# --------------------------------------------------------------------------- the ladder on the fixture
def test_each_ladder_rung_takes_one_thing_away(cases: dict[str, Case]) -> None:
    case = cases["acute-appendicitis"]
    natural = load_natural(FIXTURE, cases)
    turns = natural.entries[0].consultations[0].turns
    rungs = ladder_turns(case, turns)
    assert rungs["natural"] == turns
    no_history = rungs["no_history"]
    assert not any("?" in turn for turn in no_history[:-1])
    assert no_history[-1] == turns[-1]  # the diagnosis turn is kept whole
    assert rungs["no_orders"] == without_orders(turns) and rungs["wrong_diagnosis"] == with_diagnosis(
        turns, wrong_diagnosis(case))  # each rung takes one thing away from the natural consultation
    # the turn that asked about fever and announced the examination keeps its statement
    assert any(t.startswith("I'm also going to check whether your tummy has gone rigid") for t in no_history)
    assert no_history[0] == "Oh dear, that sounds really sore."  # the question after it is gone
    assert len(no_history) == 4 and parse_orders(no_history[2])  # orders and the diagnosis remain
    no_orders = rungs["no_orders"]
    assert not any(parse_orders(t) for t in no_orders) and any("I'd like to examine you" in t for t in no_orders)
    assert any("?" in t for t in no_orders[:-1])  # its questions are still there
    wrong = rungs["wrong_diagnosis"]
    assert parse_diagnosis(wrong[-1]) == "Mesenteric adenitis" == wrong_diagnosis(case)
    assert wrong[-1].split("\n", 1)[1] == turns[-1].split("\n", 1)[1]  # only the DIAGNOSIS line changes
    assert without_orders(["REQUEST TEST: FBC"]) == []
    assert without_orders(["Some bloods, please. REQUEST TEST: FBC\nThanks."]) == ["Some bloods, please.\nThanks."]
    assert without_questions(["Any fever?", "DIAGNOSIS: X"]) == ["DIAGNOSIS: X"]
    assert without_questions(["Allergies? REQUEST TEST: FBC", "DIAGNOSIS: X"]) == ["REQUEST TEST: FBC", "DIAGNOSIS: X"]
    assert with_diagnosis(["Plan only."], "Gout") == ["DIAGNOSIS: Gout\nPlan only."]
    assert wrong_diagnosis(_imported()) == "Tension-type headache"


async def test_recall_audit_on_the_fixture(cases: dict[str, Case]) -> None:
    natural = load_natural(FIXTURE, cases)
    report = await recall_audit(list(cases.values()), natural, case_set="project")
    assert (report.cases, report.consultations) == (2, 6) and report.source == str(FIXTURE)
    assert all(r.reward is not None and r.reference is not None for r in report.results)
    assert {(f.split, f.register_) for f in report.figures} >= {("tune", "checklist"), ("heldout", "terse")}
    assert all(f.item_recall is not None and f.ratio is not None for f in report.figures)
    independent = {d.name for d in doctors.EXPLOITS if d.case_independent}
    for ladder in report.ladders:
        assert [r.name for r in ladder.rungs] == list(RUNGS) and ladder.register_ == "gp_lay"
        assert all(r.reward is not None for r in ladder.rungs) and ladder.rungs[-1].detail in independent
        assert all(r.score is not None for r in ladder.rungs[:-1])  # the text rungs' unclipped scores
        assert ladder.ordered == judge_ladder(ladder).ordered
        # a wrong diagnosis with neither history nor orders is the floor of the good process
        assert ladder.rungs[3].reward < ladder.rungs[0].reward
    assert [f.cases for f in report.ladder] == [1, 1]
    table = render_recall_table(report)
    assert table.row_count == len(report.figures) and "recall audit" in str(table.title)
    # without the ladders: the same consultations graded alike, and no exploit graded for them
    bare = await recall_audit(list(cases.values()), natural, case_set="project", ladders=False)
    assert bare.ladders == [] and [r.reward for r in bare.results] == [r.reward for r in report.results]


# --------------------------------------------------------------------------- bad input
def _entry(**change) -> dict:  # noqa: ANN003
    entry = {"case": "acute-gout", "heldout": False,
             "consultations": [{"register": "terse", "turns": ["Any injury?", "DIAGNOSIS: Acute gout"],
                                "met": ["diagnosis"]}]}
    entry.update(change)
    return entry


@pytest.mark.parametrize(("data", "message"), [
    ({"case": "acute-gout"}, "f.yaml: expected a list of cases, got dict"),
    ([_entry(case="no-such-case")], "f.yaml: entry 1 (case 'no-such-case'): unknown case id 'no-such-case'"),
    ([_entry(), _entry(consultations=[{"register": "pirate", "turns": ["x"]}])],
     "f.yaml: entry 2 (case 'acute-gout'): consultations.0.register: unknown register 'pirate'"),
    ([_entry(consultations=[{"register": "terse", "turns": ["x"], "met": ["history", "bedside_manner"]}])],
     "f.yaml: entry 1 (case 'acute-gout'): consultations.0.met.1: unknown group 'bedside_manner'"),
    ([{"case": "acute-gout", "consultations": [{"register": "terse", "turns": ["x"]}]}],
     "entry 1 (case 'acute-gout'): heldout: Field required"),
    ([_entry(consultations=[{"register": "terse", "turns": []}])], "consultations.0.turns: List should have"),
    ([_entry(), _entry()], "entry 2 (case 'acute-gout'): case 'acute-gout' appears twice"),
    ([_entry(notes="x")], "entry 1 (case 'acute-gout'): notes: Extra inputs are not permitted"),
])
def test_bad_natural_files_are_clear_errors(data: object, message: str, cases: dict[str, Case]) -> None:
    with pytest.raises(NaturalFormatError) as error:
        parse_natural(data, cases, source="f.yaml")
    assert message in str(error.value)


def test_loading_errors_name_the_file_and_unknown_cases_can_be_left_out(tmp_path: Path,
                                                                       cases: dict[str, Case]) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("- case: [unclosed\n")
    with pytest.raises(NaturalFormatError, match="broken.yaml: not valid YAML"):
        load_natural(broken, cases)
    with pytest.raises(NaturalFormatError, match="missing.yaml: cannot read"):
        load_natural(tmp_path / "missing.yaml", cases)
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(yaml.safe_dump([_entry(), _entry(case="elsewhere")]))
    chosen = load_natural(mixed, cases, skip_unknown_cases=True)
    assert [e.case for e in chosen.entries] == ["acute-gout"] and chosen.skipped == ["elsewhere"]
    assert chosen.entries[0].consultations[0].register_ == "terse" and chosen.entries[0].split == "tune"
