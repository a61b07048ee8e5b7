"""Which items a review exports where: the final-turn rule, kept and dropped items, the record's shape."""

from __future__ import annotations

from evaluation.reviews import (
    ClinicianCriterion,
    CriterionReview,
    GradedCriterion,
    GradedRubric,
    Review,
    ReviewedConsultation,
    clinician_rubric,
    consultation_request,
    healthbench_record,
    item_turn,
)
from patient_sim.cases import find_case
from verifier.types import AsksAbout, DiagnosisMatches, MentionsAny, Message, RubricItem, WordLimit

DIALOGUE = [Message(role="user", content="Chest pain."), Message(role="assistant", content="When did it start?"),
            Message(role="user", content="An hour ago."), Message(role="assistant", content="DIAGNOSIS: STEMI.")]


def test_item_turn() -> None:
    def item(check=None) -> RubricItem:
        return RubricItem(criterion="x", points=1, check=check)

    assert item_turn(item()) == "final"  # a judge grades the last turn
    assert item_turn(item(DiagnosisMatches(synonyms=["STEMI"]))) == "final"
    assert item_turn(item(WordLimit(max_words=200))) == "final"  # scope: response
    assert item_turn(item(MentionsAny(terms=["aspirin"], scope="response"))) == "final"
    assert item_turn(item(MentionsAny(terms=["aspirin"]))) == "consultation"  # any assistant turn
    assert item_turn(item(AsksAbout(groups=[["start"]]))) == "consultation"


def _review(marks: list[CriterionReview], added: list[ClinicianCriterion]) -> ReviewedConsultation:
    criteria = [
        GradedCriterion(id="v1", criterion="Correct diagnosis", points=10, met=True, turn="final",
                        check=DiagnosisMatches(synonyms=["STEMI"])),
        GradedCriterion(id="v2", criterion="Asks when it started", points=5, met=True, turn="consultation"),
        GradedCriterion(id="v3", criterion="Clear", points=2, met=None, turn="final"),
        GradedCriterion(id="v4", criterion="Explains the plan", points=3, met=False, turn="final"),
    ]
    rubric = GradedRubric(generator="case@2", case_id="acs-stemi", messages=4, criteria=criteria)
    review = Review(consultation_id="c1", reviewer="dr-ames", rubric=rubric, criteria=marks, added=added)
    return ReviewedConsultation(review=review, messages=[*DIALOGUE, Message(role="user", content="later")],
                                case=find_case("acs-stemi"))


def test_only_reviewed_and_kept_items_are_exported() -> None:
    reviewed = _review(
        [CriterionReview(id="v1", verdict="agree"), CriterionReview(id="v2", verdict="disagree", points=2),
         CriterionReview(id="v3", note="only a note: not reviewed"), CriterionReview(id="v4", verdict="agree", points=0)],
        [ClinicianCriterion(criterion="Mentions aspirin", points=4, tags=["axis:accuracy"]),
         ClinicianCriterion(criterion="Takes a smoking history", points=3, turn="consultation")],
    )
    everything = clinician_rubric(reviewed.review)
    assert [(i.criterion, i.points) for i in everything] == [
        ("Correct diagnosis", 10), ("Asks when it started", 2), ("Mentions aspirin", 4), ("Takes a smoking history", 3)]

    exported = healthbench_record(reviewed)
    assert exported is not None
    # The graded dialogue (4 messages, not the later one), cut before its final doctor turn.
    assert exported.record.prompt == DIALOGUE[:3] and exported.response.response == "DIAGNOSIS: STEMI."
    assert [i.criterion for i in exported.record.rubrics] == ["Correct diagnosis", "Mentions aspirin"]
    assert exported.record.rubrics[0].check is not None  # the rule can still decide it
    assert exported.record.example_tags == ["reviewer:dr-ames", "case:acs-stemi"]

    request = consultation_request(reviewed)
    assert request is not None and request.trajectory == DIALOGUE and len(request.task.rubrics) == 4


def test_nothing_to_export() -> None:
    empty = _review([], [])
    assert healthbench_record(empty) is None and consultation_request(empty) is None
    opening_only = empty.model_copy(update={"messages": DIALOGUE[:1]})
    opening_only.review.added.append(ClinicianCriterion(criterion="Greets the patient", points=1))
    opening_only.review.rubric = None
    assert healthbench_record(opening_only) is None  # no doctor turn to grade
