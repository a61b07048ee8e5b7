"""Round 34 (data/natural/dev/*-r34.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. Where the answer shows ("Haemophilia A, right knee
haemarthrosis"), a torn tendon named as a ruptured one, discharge asked as drainage, onset asked of the event that began
it, the coagulation screen ordered as PT and APTT, safety-netting after a heading or to 995, and the differentials the
writers weighed in their own words."""

from __future__ import annotations

import pytest

from patient_sim.cases import project_cases
from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported, _stated
from verifier.types import Case


@pytest.mark.parametrize(("final", "statement", "right"), [
    ("Hemophilia A", "Hemophilia A (factor VIII deficiency), R knee hemarthrosis", True),
    ("Hemophilia A", "Haemophilia A, right knee haemarthrosis", True),
    ("Hemophilia A", "Haemophilia A, right knee septic arthritis", False),  # a rival at the same place
    ("Hemophilia A", "Hemarthrosis, hemophilia A", False),  # the presentation first: a list
    ("Rupture of the flexor digitorum profundus tendon at its point of insertion",
     "Torn flexor tendon (flexor digitorum profundus) pulled off where it attaches at the tip of the right ring finger",
     True),
    ("Rupture of the flexor digitorum profundus tendon at its point of insertion", "Torn flexor tendon", False),
    ("Rupture of the flexor digitorum profundus tendon at its point of insertion",
     "Trigger finger of the right ring finger", False),
])
def test_where_the_answer_shows_adds_no_second_diagnosis(final: str, statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", final), statement)
    assert (met, wrong) == (right, not right)


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Safety: any SI, command AH to harm yourself, or not eating/drinking, go to emerg or call/text 988 right away.",
     True),
    ("Regrowth, new lump, skin or nipple change, armpit lump: back to me.", True),
    ("Worse breathing, confusion, blue lips: call 995.", True),
    ("Worse breathing, confusion, blue lips: noted on arrival.", False),
    ("Safety: any questions, ask me now.", False),
])
def test_safety_netting_after_a_heading_or_to_995(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("question", "asked"), [
    ("When found?", True),
    ("Walk me through the injury for me: when, the mechanism, and did you feel a pop?", True),
    ("When were the wisdom teeth taken out, and has it been oozing non-stop since then?", True),
    ("Any fevers since then?", False),
    ("Where found?", False),
])
def test_onset_asked_of_the_event_that_began_it(question: str, asked: bool) -> None:
    case = _imported("Bleeding for two days")
    assert _asked(case, question, "Before giving a diagnosis, asks about when the symptoms started") is asked


def _nape_lump() -> Case:
    return Case(id="agentclinic-x", chief_complaint="Lump", history_of_present_illness="Two months.",
                primary_symptoms=["Progressively increasing swelling on the nape of neck for 2 months"],
                secondary_symptoms=["No fever", "No discharge", "No pain associated with the swelling"],
                final_diagnosis="Lipoma", source="agentclinic")


@pytest.mark.parametrize(("question", "asked"), [
    ("Pain, redness, drainage?", True),
    ("Has anything ever come out of it, like cheesy or smelly stuff?", True),
    ("Any discharge from it?", True),
    ("Feeling drained?", False),
    ("Pain, redness?", False),
])
def test_discharge_asked_as_drainage_or_what_comes_out(question: str, asked: bool) -> None:
    assert _asked(_nape_lump(), question, "Before giving a diagnosis, asks about discharge") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Does it hurt?", True),
    ("Pain, redness, drainage?", True),
    ("Getting bigger?", False),
])
def test_pain_of_the_swelling_is_still_asked_as_pain_beside_its_discharge(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about pain associated with the swelling"
    assert _asked(_nape_lump(), question, item) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Every class, or certain activities?", True),
    ("Is it all teachers and subjects, or particular ones like gym?", True),
    ("Why does he skip gym - pain, embarrassment, teasing?", True),
    ("Energy drinks, gym supplements?", False),
    ("Every class?", False),
])
def test_school_activities_asked_as_certain_activities(question: str, asked: bool) -> None:
    case = _imported("Reluctance to participate in certain school activities")
    item = "Before giving a diagnosis, asks about reluctance to participate in certain school activities"
    assert _asked(case, question, item) is asked


@pytest.mark.parametrize(("words", "kind"), [
    ("This is a big thing to hear.", True),
    ("You've been carrying this a while; we'll get it sorted.", True),
    ("The big thing is to keep drinking.", False),
])
def test_empathy_for_big_news_or_a_long_burden(words: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words}"], "Acknowledges the patient") is kind


def test_the_coagulation_screen_ordered_as_pt_and_aptt() -> None:
    case = _case(final_diagnosis="Haemophilia A", recommended_tests=["Coagulation screen"])
    item = "Orders the appropriate test: Coagulation"
    assert _met(case, ["REQUEST TEST: FBC, PT, APTT, factor VIII and IX levels", "DIAGNOSIS: Haemophilia A"], item)
    assert not _met(case, ["REQUEST TEST: FBC, PT, factor VIII and IX levels", "DIAGNOSIS: Haemophilia A"], item)


@pytest.mark.parametrize(("case_id", "considered", "met"), [
    ("acute-otitis-media", "His neck is soft and there's no rash, so I'm not worried about meningitis.", True),
    ("acute-otitis-media", "His neck is soft and there's no rash.", False),
    ("renal-colic", "I also thought about the main tummy blood vessel, but your scan is reassuring.", True),
    ("renal-colic", "No pulsatile mass, so I'm not worried about an aortic problem.", True),
    ("renal-colic", "Your blood pressure is fine.", False),
    # round 36
    ("giant-cell-arteritis", "I did consider a jaw joint problem or an ordinary headache, but the ESR is 90.", True),
    ("giant-cell-arteritis", "Your jaw and your head both ache.", False),
    ("mechanical-low-back-pain", "I don't reckon a slipped disc is pinching a nerve.", True),
    ("mechanical-low-back-pain", "Your back muscles are tight.", False),
    # round 37
    ("renal-colic", "I felt for a swollen main artery and there's nothing to suggest appendix.", True),
    ("renal-colic", "No pulsatile mass: not aneurysm.", True),
    ("renal-colic", "The stone is in the main tube from the kidney.", False),
    ("acs-stemi", "I did think about a tear in the big artery and a lung clot.", True),
    ("acs-stemi", "The stent goes into the big artery.", False),
    # round 39
    ("upper-gi-bleed", "No swollen veins from liver disease, no sign of a growth.", True),
    ("upper-gi-bleed", "No swollen ankles, no sign of jaundice.", False),
])
def test_the_differential_writers_weigh_in_their_own_words(case_id: str, considered: str, met: bool) -> None:
    case = next(c for c in project_cases() if c.id == case_id)
    turns = [f"DIAGNOSIS: {case.final_diagnosis}\n{considered} Plan as discussed."]
    assert _met(case, turns, "Considers a relevant differential") is met


@pytest.mark.parametrize(("orders", "assessed"), [
    ("REQUEST TEST: urine dip, CT KUB", True),  # the scan that makes the diagnosis, done at this visit
    ("REQUEST TEST: urine dip, U&Es", False),  # first-line tests only: nothing says the assessment was prompt
])
def test_a_prompt_assessment_done_at_this_visit(orders: str, assessed: bool) -> None:
    case = next(c for c in project_cases() if c.id == "renal-colic")
    turns = ["Where is the pain and does it move?", orders,
             f"DIAGNOSIS: {case.final_diagnosis}\nTamsulosin and painkillers; urology clinic in two weeks."]
    assert _met(case, turns, "Plans prompt (same-day) assessment") is assessed
