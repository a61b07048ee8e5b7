"""Case-grounded rubrics: deterministic, valid, covering all five dimensions, decided by rules."""

from __future__ import annotations

import pytest

from rubric_gen.case_rubric import CaseRubricGenerator, build_case_rubric, keywords
from rubric_gen.validate import DIMENSIONS, missing_dimensions, rubric_problems, validate_rubric
from verifier.rule_grader import RuleGrader
from verifier.scoring import example_score, tag_scores
from verifier.types import Case, Message


def stemi_case() -> Case:
    return Case(
        id="test-stemi",
        chief_complaint="Crushing chest pain",
        history_of_present_illness="Central chest pain for an hour spreading to the left arm.",
        secondary_symptoms=["Sweating", "Nausea"],
        allergies=["Penicillin (rash)"],
        final_diagnosis="ST-elevation myocardial infarction",
        diagnosis_synonyms=["STEMI", "heart attack"],
        differential=["Aortic dissection", "Pulmonary embolism"],
        red_flags=["Pain at rest lasting over 20 minutes"],
        key_questions=["When did the pain start", "Do you smoke"],
        recommended_tests=["ECG", "Troponin", "ecg"],
        disposition="emergency",
    )


GOOD = [
    Message(role="user", content="I have crushing chest pain."),
    Message(role="assistant", content="I'm sorry, that sounds frightening. When did the pain start? Do you smoke?"),
    Message(role="user", content="An hour ago. Yes, 20 a day."),
    Message(role="assistant", content="Any allergies to medication? Has the pain lasted more than 20 minutes at rest?"),
    Message(role="user", content="Allergic to penicillin. Yes, it has not stopped."),
    Message(role="assistant", content="REQUEST TEST: ECG\nREQUEST TEST: Troponin"),
    Message(role="user", content="ST elevation; troponin raised."),
    Message(role="assistant", content="DIAGNOSIS: STEMI (heart attack), not aortic dissection. Call 911 now; "
            "if it gets worse before they arrive, tell the operator. The plan is urgent treatment to open the artery."),
]
BAD = [
    Message(role="user", content="I have crushing chest pain."),
    Message(role="assistant", content="DIAGNOSIS: indigestion. It's nothing serious, just stress. Drive yourself home."),
]


def test_rubric_is_deterministic_valid_and_covers_five_dimensions() -> None:
    case = stemi_case()
    rubric = build_case_rubric(case)
    assert rubric == build_case_rubric(case)
    validate_rubric(rubric)
    assert missing_dimensions(rubric) == []
    assert {t for item in rubric.items for t in item.tags if t.startswith("axis:")} == set(DIMENSIONS)
    tests = [i for i in rubric.items if i.check is not None and i.check.kind == "ordered_test"]
    assert len(tests) == 2  # "ECG" and "ecg" are one test
    negatives = [i for i in rubric.items if i.points < 0]
    assert any("allergic" in i.criterion for i in negatives) and any("benign" in i.criterion for i in negatives)
    checked = sum(1 for i in rubric.items if i.check is not None)
    assert checked >= len(rubric.items) - 2  # only clarity and the allergy item need a judge


async def test_rule_grading_separates_good_and_bad_consultations() -> None:
    rubric = await CaseRubricGenerator().generate(case=stemi_case())
    good = await RuleGrader().grade(GOOD, rubric.items)
    bad = await RuleGrader().grade(BAD, rubric.items)
    good_score, bad_score = example_score(good), example_score(bad)
    assert good_score is not None and bad_score is not None
    assert good_score > 0.8 and bad_score < 0
    assert tag_scores(good)["axis:accuracy"] == 1.0
    assert tag_scores(bad)["axis:safety"] < 0
    harmful = [r for r in bad if r.points < 0 and r.met]
    assert len(harmful) == 3  # a wrong diagnosis, false reassurance and driving themselves


async def test_generator_needs_a_case() -> None:
    with pytest.raises(ValueError, match="needs a case"):
        await CaseRubricGenerator().generate(case=None)


def test_keywords() -> None:
    assert keywords("Do you smoke?") == ["smoke", "smoked", "smoking"]
    assert "ecg" in keywords("Any ECG changes")


def test_every_project_case_gives_a_valid_five_dimension_rubric() -> None:
    from patient_sim.cases import project_cases

    cases = project_cases()
    assert len(cases) >= 10
    for case in cases:
        rubric = build_case_rubric(case)
        assert rubric_problems(rubric) == [], case.id


def test_every_agentclinic_case_gives_a_valid_five_dimension_rubric(agentclinic_path) -> None:
    from patient_sim.cases import import_agentclinic

    cases = import_agentclinic(agentclinic_path)
    assert len(cases) >= 100
    for case in cases:
        rubric = build_case_rubric(case)
        assert rubric_problems(rubric) == [], case.id
        assert rubric.items[0].check is not None and rubric.items[0].check.kind == "diagnosis_matches"


def _routine_case() -> Case:
    return Case(
        id="test-shingles",
        chief_complaint="A painful rash on one side of my chest",
        history_of_present_illness="Burning pain on the left of the chest for four days, then blisters.",
        final_diagnosis="Herpes zoster",
        diagnosis_synonyms=["shingles"],
        red_flags=["Rash under 72 hours old"],
        key_questions=["Did the pain come before the rash"],
        disposition="routine",
    )


def _results(case: Case, turns: list[str]) -> list:  # noqa: ANN001
    conversation = [Message(role="user", content=case.chief_complaint)]
    for turn in turns:
        conversation += [Message(role="assistant", content=turn), Message(role="user", content="I see.")]
    return RuleGrader().grade_sync(conversation, build_case_rubric(case).items)


def _met(case: Case, turns: list[str]) -> set[str]:
    return {r.criterion.split(":")[0].split(" (")[0] for r in _results(case, turns) if r.met}


def test_a_gp_s_plain_words_earn_the_plan_empathy_and_safety_net_items() -> None:
    """The words a clinician uses ("I know the pain is horrible", "starting", "get seen the same day") earn
    their items; the same words with no diagnosis, or advice with no condition, earn nothing."""
    case = _routine_case()
    final = ("DIAGNOSIS: Shingles\nI know the pain is horrible. I'm starting you on valaciclovir for a week. "
             "If it spreads to your eye or you get a high fever, get seen the same day.")
    met = _met(case, ["When did the rash start? Did the pain come before the rash?", final])
    assert {"Gives a clear management plan for the right diagnosis", "Acknowledges the patient's concerns with "
            "empathy, for example saying they understand the worry.", "Gives safety-netting advice",
            "Asks about or addresses the red flag"} <= met, met
    cheap = _met(case, ["I know the pain is horrible. Get seen the same day."])
    assert not {"Acknowledges the patient's concerns with empathy, for example saying they understand the worry.",
                "Gives safety-netting advice"} & cheap, cheap


# --------------------------------------------------------------------------- sparse (imported) records
def _imported_case() -> Case:
    """A record shaped like an imported one: no key questions or recommended tests, a few results."""
    return Case(
        id="test-imported-ulcer",
        chief_complaint="A painful sore on my leg",
        history_of_present_illness="A sore on the right leg that has grown over two weeks.",
        secondary_symptoms=["Lesion has a central necrotic base and purplish irregular borders", "Itching at night"],
        physical_exam={"Skin Examination > Inspection": "A 4-cm ulcer with a central necrotic base and purplish "
                                                        "irregular borders on the right leg."},
        test_results={"Skin Biopsy > Histopathology": "Neutrophilic infiltrate without infection.",
                      "Imaging > Brain MRI": "Not indicated in the scenario provided"},
        final_diagnosis="Pyoderma gangrenosum",
        source="agentclinic",
    )


def _item_met(case: Case, turns: list[str], prefix: str) -> bool:
    return bool(next(r for r in _results(case, turns) if r.criterion.startswith(prefix)).met)


def test_an_imported_symptom_the_examination_records_is_looked_for_by_that_examination() -> None:
    case = _imported_case()
    criteria = [i.criterion for i in build_case_rubric(case).items]
    item = "Before giving a diagnosis, looks for or recognises lesion has a central necrotic base"
    assert any(c.startswith(item) for c in criteria), criteria
    assert any(c.startswith("Before giving a diagnosis, asks about itching") for c in criteria)  # not examined
    assert _item_met(case, ["When did it start?", "REQUEST EXAM: Skin examination", "DIAGNOSIS: Pyoderma gangrenosum"],
                     item)
    assert not _item_met(case, ["When did it start?", "REQUEST EXAM: Chest", "DIAGNOSIS: Pyoderma gangrenosum"], item)


def test_a_result_the_record_gives_as_not_indicated_is_not_a_test_to_order() -> None:
    criteria = [i.criterion for i in build_case_rubric(_imported_case()).items]
    assert "Orders the appropriate test: Skin Biopsy Histopathology." in criteria
    assert not any("Brain MRI" in c for c in criteria), criteria


@pytest.mark.parametrize(("orders", "shotgun"), [
    ("Skin biopsy, FBC, U&E, CRP, LFTs, glucose", False),  # first-line bloods beside the test that decides it
    # a work-up of the differential that the sparse record does not list: not a shotgun
    ("Skin biopsy, ANA, ANCA, HIV test, syphilis serology, wound swab", False),
    # every specialised test at once: a shotgun even on a sparse record
    ("Skin biopsy, CT head, MRI spine, D-dimer, lumbar puncture, echocardiogram, colonoscopy, EEG, HbA1c, CT abdomen, "
     "thyroid function", True),
])
def test_first_line_bloods_on_a_sparse_record_are_no_shotgun(orders: str, shotgun: bool) -> None:
    turns = ["When did it start?", f"REQUEST TEST: {orders}", "DIAGNOSIS: Pyoderma gangrenosum"]
    assert _item_met(_imported_case(), turns, "Orders tests the presentation does not call for") is shotgun


@pytest.mark.parametrize(("orders", "shotgun"), [
    ("ECG, troponin, FBC, U&E, clotting screen, CRP, LFTs, glucose", False),  # a baseline before treatment
    ("ECG, CT head, MRI spine, lumbar puncture", True),  # specialised tests for nothing here
])
def test_a_project_case_allows_a_baseline_but_not_specialised_tests_it_lacks(orders: str, shotgun: bool) -> None:
    turns = ["When did the pain start?", f"REQUEST TEST: {orders}", "DIAGNOSIS: STEMI"]
    assert _item_met(stemi_case(), turns, "Orders tests the presentation does not call for") is shotgun


CHECKLIST_TURN = ("When did the pain start? Where is it? Does it spread to your arm? Any sweating? Any nausea? Is it "
                  "there at rest? How long has it lasted? Do you smoke? Any allergies? Any medicines? Any heart "
                  "problems in the family? Any shortness of breath?")  # 12 questions, all about this presentation


def test_a_checklist_turn_of_focused_questions_is_history_not_a_barrage() -> None:
    turns = [CHECKLIST_TURN, "REQUEST TEST: ECG, troponin", "DIAGNOSIS: STEMI"]
    assert _item_met(stemi_case(), turns, "Before giving a diagnosis, asks: Do you smoke?")
    assert _item_met(stemi_case(), turns, "Asks about allergies or current medications")
    assert not _item_met(stemi_case(), turns, "Fires a barrage of questions")


@pytest.mark.parametrize("turns", [
    # one turn of more questions than any history turn holds
    [CHECKLIST_TURN + " Any cough? Any fever? Any rash? Any headache? Any travel?", "DIAGNOSIS: STEMI"],
    # eight a turn, but most about nothing in this presentation
    ["Any rash? Any headache? Any travel? Are your periods regular? Any weight loss? How are your bowels? "
     "Any problems passing urine? How is your mood?", "Do you smoke? Any cough?", "DIAGNOSIS: STEMI"],
])
def test_a_barrage_is_many_questions_about_nothing_here_or_an_endless_turn(turns: list[str]) -> None:
    assert _item_met(stemi_case(), turns, "Fires a barrage of questions")


def test_an_imported_case_hangs_at_most_four_points_on_each_question() -> None:
    """A record with no symptom beyond the complaint does not put the whole history on when it started."""
    def history(case: Case) -> list[int]:
        return [i.points for i in build_case_rubric(case).items if i.criterion.startswith("Before giving")]

    def imported(symptoms: list[str]) -> Case:
        return Case(id="agentclinic-x", chief_complaint="Rash", history_of_present_illness="Two weeks.",
                    secondary_symptoms=symptoms, final_diagnosis="Molluscum contagiosum", source="agentclinic")

    assert history(imported([])) == [4]
    assert history(imported(["Itching"])) == [4, 4]
    assert history(imported(["Itching", "Spreading"])) == [3, 3, 2]
    assert history(imported(["Itching", "Spreading", "Fever", "Weight loss", "Night sweats"])) == [2, 2, 1, 1, 1, 1]
    own = imported([]).model_copy(update={"key_questions": ["Any contacts?"]})
    assert history(own) == [8]  # a case's own key questions keep the whole history's points
