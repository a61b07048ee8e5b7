"""Clinician reviews of served consultations, and the eval files written from them.

A review is one clinician's reading of the verifier's verdicts on one consultation: for each rubric
item the clinician agrees or disagrees with the verdict (with a note) and may change its points; they
may add criteria of their own (HealthBench's shape: criterion, points, tags) and rate the consultation.
The verifier's rubric and verdicts are stored with the review as the clinician saw them
(``GradedRubric``), so the agreement figures and the exports use exactly what was reviewed, even when
the consultation goes on or the grader changes later.

When the rubric itself changes version (``GradedRubric.generator``, ``case@3`` -> ``case@4``), a review
follows it when it is next opened (``carry_review``): its dialogue is regraded with the current rubric,
the clinician's marks move to the same criteria of the new rubric (matched by their text) with the
clinician's own judgement kept (a verdict is re-expressed against the new grader verdict: "agree" with
"met" that is now "not met" becomes "disagree"), and the earlier rubric with the marks as they were is
kept in ``Review.earlier``, so nothing the clinician gave is lost. ``Review.regraded_from`` names the
rubric the marks were made against until the clinician saves again; ``verdict_changes`` lists what the
new rubric decided differently.

Two exports (``export_records``):

* **consultations** — one ``MedicalVerifyRequest`` per review of a case-started consultation: the case,
  the clinician's rubric (the verifier's items the clinician reviewed and kept, with their points, and
  the clinician's own) and the dialogue, for ``POST /v1/verify``, ``registry.verify`` or a case file.
* **healthbench** — one HealthBench record per review: ``prompt`` is the dialogue before the final
  doctor turn, ``rubrics`` only the items about that turn (``turn == "final"``: items about the whole
  consultation, such as questions asked before the diagnosis, are satisfied or not by the earlier
  turns in the prompt and would credit any new response for them), ``example_tags`` name the reviewer
  and the case. The final turn itself goes to a responses file, so ``medverifier grade`` regrades it.

Serving stores and serves reviews; this module only defines them and turns them into files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verifier.healthbench import DataFileError, HealthBenchRecord, ResponseRecord
from verifier.types import Case, Check, ConsultationTask, MedicalVerifyRequest, Message, RubricItem

MAX_POINTS = 100  # HealthBench uses -10..10; the case rubric up to 10; anything beyond 100 is a typo
MAX_NOTE_CHARS = 2000
MAX_COMMENT_CHARS = 4000
MAX_CRITERION_CHARS = 1000
MAX_ADDED = 50
_TAG_RE = re.compile(r"^[a-z][a-z_]*:[A-Za-z0-9_.\-]{1,60}$")

Turn = Literal["final", "consultation"]
# Checks that read only the final statement (the stated diagnosis) or the last response.
_FINAL_TURN_CHECKS = frozenset({"diagnosis_matches", "diagnosis_misses"})


def item_turn(item: RubricItem) -> Turn:
    """Whether an item is about the final doctor turn or the whole consultation.

    A judge reads HealthBench's rule "score the last turn", so an item without a check is about the
    final turn; a check is when it reads only the response (``scope: response``) or the final
    diagnosis statement. Every other check (questions asked, tests ordered, any assistant turn) reads
    the whole consultation.
    """
    check = item.check
    if check is None or check.kind in _FINAL_TURN_CHECKS:
        return "final"
    return "final" if getattr(check, "scope", None) == "response" else "consultation"


# --------------------------------------------------------------------------- what the verifier said
class GradedCriterion(BaseModel):
    """One item of the verifier's rubric with the grader's verdict (``met`` None: unscored)."""

    id: str  # "v1", "v2", ... in rubric order
    criterion: str
    points: int
    tags: list[str] = Field(default_factory=list)
    check: Check | None = None
    met: bool | None
    explanation: str = ""
    grader: str = ""  # "rule", "judge:<model>", "none"
    turn: Turn = "consultation"

    def item(self, points: int | None = None) -> RubricItem:
        return RubricItem(criterion=self.criterion, points=self.points if points is None else points,
                          tags=list(self.tags), check=self.check)


class GradedRubric(BaseModel):
    """The verifier's rubric for a consultation and its verdicts on the first ``messages`` messages."""

    generator: str  # "case@2", "llm@1", ...
    case_id: str | None = None
    messages: int
    criteria: list[GradedCriterion]
    scores: dict[str, float] = Field(default_factory=dict)  # "overall", "axis:accuracy", ...
    reward: float | None = None
    unscored_reason: str | None = None


def rubric_version(generator: str) -> tuple[str, str]:
    """A graded rubric's generator family and version: ``case@4`` -> ("case", "4"), ``llm:gpt@1`` -> ("llm", "1")."""
    name, _, version = generator.rpartition("@")
    if not name:
        return generator.split(":", 1)[0], ""
    return name.split(":", 1)[0], version


def other_version(stored: str, current: str) -> bool:
    """Whether ``stored`` was made by another version of the same rubric generator as ``current``."""
    (family, version), (now_family, now_version) = rubric_version(stored), rubric_version(current)
    return family == now_family and version != now_version


# --------------------------------------------------------------------------- what the clinician says
class CriterionReview(BaseModel):
    """The clinician on one of the verifier's items: the verdict, a note, changed points (0 drops it)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=16, description="The item's id in the verifier's rubric (v1, v2, ...).")
    verdict: Literal["agree", "disagree"] | None = Field(None, description="With the grader's verdict; null: not reviewed.")
    note: str = Field("", max_length=MAX_NOTE_CHARS)
    points: int | None = Field(None, ge=-MAX_POINTS, le=MAX_POINTS,
                               description="Replaces the item's points; 0 removes it from the exported rubric.")


class ClinicianCriterion(BaseModel):
    """A criterion the clinician wrote (HealthBench's shape) and whether this consultation met it."""

    model_config = ConfigDict(extra="forbid")

    criterion: str = Field(min_length=1, max_length=MAX_CRITERION_CHARS)
    points: int = Field(ge=-MAX_POINTS, le=MAX_POINTS, description="Negative for an undesirable behaviour; not 0.")
    tags: list[str] = Field(default_factory=list, max_length=8, description="e.g. axis:accuracy, cluster:history")
    met: bool | None = Field(None, description="The clinician's verdict on this consultation.")
    turn: Turn = Field("final", description="About the final doctor turn, or the whole consultation.")

    @field_validator("criterion")
    @classmethod
    def _stripped(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the criterion is empty")
        return value.strip()

    @field_validator("points")
    @classmethod
    def _nonzero(cls, value: int) -> int:
        if value == 0:
            raise ValueError("points must not be 0 (positive for a desired behaviour, negative for a harm)")
        return value

    @field_validator("tags")
    @classmethod
    def _tag_shape(cls, value: list[str]) -> list[str]:
        for tag in value:
            if not _TAG_RE.match(tag):
                raise ValueError(f"tag {tag!r}: expected 'kind:value' such as 'axis:accuracy'")
        return value

    def item(self) -> RubricItem:
        return RubricItem(criterion=self.criterion, points=self.points, tags=list(self.tags))


class ReviewInput(BaseModel):
    """The body of ``PUT /v1/consultations/{id}/review``: the whole review, replacing the last one."""

    model_config = ConfigDict(extra="forbid")

    criteria: list[CriterionReview] = Field(default_factory=list, max_length=200)
    added: list[ClinicianCriterion] = Field(default_factory=list, max_length=MAX_ADDED)
    rating: int | None = Field(None, ge=1, le=5, description="The consultation overall, 1 (poor) to 5 (excellent).")
    comment: str = Field("", max_length=MAX_COMMENT_CHARS)
    rubric_messages: int | None = Field(
        None, ge=0, description="The `messages` of the rubric you reviewed: refused (409) when the consultation "
        "has moved on since, so no mark lands on a verdict you did not see.")
    rubric_generator: str | None = Field(
        None, max_length=200, description="The `generator` of the rubric you reviewed (e.g. case@4): refused (409) "
        "when the rubric has changed version since, so no mark lands on a verdict you did not see.")

    @model_validator(mode="after")
    def _unique_ids(self) -> ReviewInput:
        seen: set[str] = set()
        for index, review in enumerate(self.criteria):
            if review.id in seen:
                raise ValueError(f"criteria.{index}: criterion {review.id!r} is reviewed twice")
            seen.add(review.id)
        return self


class EarlierReview(BaseModel):
    """A review's marks as they were made against an earlier rubric version, kept when the review moved on."""

    rubric: GradedRubric
    criteria: list[CriterionReview] = Field(default_factory=list)
    replaced_at: float = 0.0


class Review(ReviewInput):
    """A stored review: the input, who wrote it, and the verifier's rubric as they saw it."""

    model_config = ConfigDict(extra="ignore")

    consultation_id: str
    reviewer: str  # the reviewer key's label
    rubric: GradedRubric | None = None
    updated_at: float = 0.0
    # Set when the review was carried onto a newer rubric version and not saved since: the rubric
    # ("case@3") the marks were made against. ``earlier`` keeps every earlier rubric and its marks.
    regraded_from: str | None = None
    earlier: list[EarlierReview] = Field(default_factory=list)

    def by_id(self) -> dict[str, CriterionReview]:
        return {c.id: c for c in self.criteria}


class VerdictChange(BaseModel):
    """One criterion the regraded rubric decides differently from the rubric the review was made against."""

    criterion: str
    change: Literal["changed", "added", "removed"]  # verdict differs / only in the new rubric / only in the old
    id: str | None = None  # its id in the new rubric (None: removed)
    before: bool | None = None  # the earlier grader verdict (None: unscored or not in the earlier rubric)
    after: bool | None = None  # the new grader verdict


def _match_by_text(old: list[GradedCriterion], new: list[GradedCriterion]) -> list[tuple[GradedCriterion | None,
                                                                                       GradedCriterion | None]]:
    """Pairs (old, new) of the same criterion text, in the new rubric's order; unmatched old ones last."""
    waiting: dict[str, list[GradedCriterion]] = {}
    for graded in old:
        waiting.setdefault(graded.criterion, []).append(graded)
    pairs: list[tuple[GradedCriterion | None, GradedCriterion | None]] = []
    for graded in new:
        same = waiting.get(graded.criterion)
        pairs.append((same.pop(0) if same else None, graded))
    pairs.extend((graded, None) for left in waiting.values() for graded in left)
    return pairs


def verdict_changes(old: GradedRubric, new: GradedRubric) -> list[VerdictChange]:
    """What ``new`` decides differently from ``old`` (criteria matched by their text)."""
    out: list[VerdictChange] = []
    for before, after in _match_by_text(old.criteria, new.criteria):
        if before is None and after is not None:
            out.append(VerdictChange(criterion=after.criterion, change="added", id=after.id, after=after.met))
        elif after is None and before is not None:
            out.append(VerdictChange(criterion=before.criterion, change="removed", before=before.met))
        elif before is not None and after is not None and before.met != after.met:
            out.append(VerdictChange(criterion=after.criterion, change="changed", id=after.id, before=before.met,
                                     after=after.met))
    return out


def carry_review(review: Review, rubric: GradedRubric, *, at: float = 0.0) -> Review:
    """``review`` moved onto ``rubric`` (its dialogue regraded by a newer rubric version).

    Each mark goes to the new item with the same criterion text, its note and points unchanged; its
    verdict keeps what the clinician judged (met or not) and is re-expressed against the new grader
    verdict (none when the new grader left the item unscored). The earlier rubric and the marks as they
    were go to ``earlier``; ``regraded_from`` names the rubric the clinician last saved the marks against."""
    old = review.rubric
    if old is None:
        return review
    marks = review.by_id()
    carried: list[CriterionReview] = []
    for before, after in _match_by_text(old.criteria, rubric.criteria):
        mark = marks.get(before.id) if before is not None else None
        if mark is None or before is None or after is None:
            continue
        verdict = mark.verdict
        if verdict is not None:
            if before.met is None or after.met is None:
                verdict = None
            else:
                judged_met = before.met if verdict == "agree" else not before.met
                verdict = "agree" if judged_met == after.met else "disagree"
        carried.append(mark.model_copy(update={"id": after.id, "verdict": verdict}))
    earlier = [*review.earlier, EarlierReview(rubric=old, criteria=list(review.criteria), replaced_at=at)]
    return review.model_copy(update={"criteria": carried, "rubric": rubric, "earlier": earlier,
                                     "regraded_from": review.regraded_from or old.generator})


class ReviewedConsultation(BaseModel):
    """A review with what it is about: the dialogue and the case (None: not started from a case)."""

    review: Review
    messages: list[Message]
    case: Case | None = None


# --------------------------------------------------------------------------- clinician verdicts
class ClinicianVerdict(BaseModel):
    """One reviewed item: the grader's verdict and the clinician's (agree keeps it, disagree flips it)."""

    consultation_id: str
    reviewer: str
    criterion_id: str
    criterion: str
    axis: str  # "accuracy", ... ("none" without an axis tag)
    grader: str  # "rule" or "judge" (the grader's family)
    grader_met: bool
    clinician_met: bool


def grader_family(grader: str) -> str:
    return "judge" if grader.startswith("judge") else grader or "none"


def axis_of(tags: list[str]) -> str:
    return next((t.split(":", 1)[1] for t in tags if t.startswith("axis:")), "none")


def clinician_verdicts(review: Review) -> list[ClinicianVerdict]:
    """The review's decided items: each verifier item the grader scored and the clinician marked."""
    if review.rubric is None:
        return []
    marks = review.by_id()
    out: list[ClinicianVerdict] = []
    for graded in review.rubric.criteria:
        mark = marks.get(graded.id)
        if mark is None or mark.verdict is None or graded.met is None:
            continue
        out.append(ClinicianVerdict(
            consultation_id=review.consultation_id, reviewer=review.reviewer, criterion_id=graded.id,
            criterion=graded.criterion, axis=axis_of(graded.tags), grader=grader_family(graded.grader),
            grader_met=graded.met, clinician_met=graded.met if mark.verdict == "agree" else not graded.met,
        ))
    return out


# --------------------------------------------------------------------------- the exported rubric
def clinician_rubric(review: Review, *, turn: Turn | None = None) -> list[RubricItem]:
    """The verifier's items the clinician reviewed and kept (their points), then the clinician's own;
    only items about ``turn`` when given."""
    marks = review.by_id()
    items: list[RubricItem] = []
    for graded in review.rubric.criteria if review.rubric else []:
        mark = marks.get(graded.id)
        if mark is None or mark.verdict is None or mark.points == 0:
            continue
        if turn is None or graded.turn == turn:
            items.append(graded.item(mark.points))
    items.extend(c.item() for c in review.added if turn is None or c.turn == turn)
    return items


def _last_assistant(messages: list[Message]) -> int | None:
    return next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), None)


def prompt_id(reviewed: ReviewedConsultation) -> str:
    return f"{reviewed.review.consultation_id}:{reviewed.review.reviewer}"


def example_tags(reviewed: ReviewedConsultation) -> list[str]:
    tags = [f"reviewer:{reviewed.review.reviewer}"]
    if reviewed.case is not None:
        tags.append(f"case:{reviewed.case.id}")
    if reviewed.review.rating is not None:
        tags.append(f"rating:{reviewed.review.rating}")
    return tags


class HealthBenchExport(BaseModel):
    record: HealthBenchRecord
    response: ResponseRecord  # the graded final turn, for ``medverifier grade``


def healthbench_record(reviewed: ReviewedConsultation) -> HealthBenchExport | None:
    """The HealthBench record of a review (and the graded final turn), or None when it has no doctor
    turn after an opening or no item about the final turn."""
    messages = reviewed.messages[: reviewed.review.rubric.messages] if reviewed.review.rubric else reviewed.messages
    last = _last_assistant(messages)
    rubrics = clinician_rubric(reviewed.review, turn="final")
    if last is None or last == 0 or not rubrics:
        return None
    record = HealthBenchRecord(prompt=messages[:last], prompt_id=prompt_id(reviewed), rubrics=rubrics,
                               example_tags=example_tags(reviewed))
    return HealthBenchExport(record=record,
                             response=ResponseRecord(prompt_id=record.prompt_id, response=messages[last].content))


def consultation_request(reviewed: ReviewedConsultation) -> MedicalVerifyRequest | None:
    """The review as a consultation verify request (case + the clinician's rubric + the dialogue), or
    None when the consultation has no case or the review keeps no item."""
    rubrics = clinician_rubric(reviewed.review)
    if reviewed.case is None or not rubrics or _last_assistant(reviewed.messages) is None:
        return None
    messages = reviewed.messages[: reviewed.review.rubric.messages] if reviewed.review.rubric else reviewed.messages
    return MedicalVerifyRequest(task=ConsultationTask(case=reviewed.case, rubrics=rubrics), trajectory=messages)


class ReviewedRequest(BaseModel):
    """One line of the consultations export, read back: the verify request and whose review it is."""

    request: MedicalVerifyRequest
    consultation_id: str
    reviewer: str


def load_reviewed_requests(path: str | Path) -> list[ReviewedRequest]:
    """The consultations export (``consultations.jsonl``); a bad line is named by file, line and field."""
    out: list[ReviewedRequest] = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            request = MedicalVerifyRequest.model_validate(data)
            review = data.get("review") or {}
        except (ValueError, AttributeError) as exc:
            raise DataFileError(path, number, "", f"not a reviewed consultation: {str(exc).splitlines()[0]}") from None
        if not isinstance(request.task, ConsultationTask) or not request.task.rubrics:
            raise DataFileError(path, number, "task", "expected a consultation task with the clinician's rubrics")
        out.append(ReviewedRequest(request=request, consultation_id=str(review.get("consultation_id", "")),
                                   reviewer=str(review.get("reviewer", "unknown"))))
    return out


ExportFormat = Literal["healthbench", "responses", "consultations"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("healthbench", "responses", "consultations")


def export_lines(reviewed: list[ReviewedConsultation], fmt: ExportFormat) -> list[str]:
    """The JSONL lines of one export format (reviews that give no line in it are left out). A
    consultations line is a ``MedicalVerifyRequest`` with one more field, ``review`` (who, the rating,
    the comment), which the request model ignores."""
    lines: list[str] = []
    for one in reviewed:
        if fmt == "consultations":
            request = consultation_request(one)
            if request is not None:
                data = request.model_dump(mode="json", exclude_none=True)
                data["review"] = {"consultation_id": one.review.consultation_id, "reviewer": one.review.reviewer,
                                  "rating": one.review.rating, "comment": one.review.comment}
                lines.append(json.dumps(data, ensure_ascii=False))
            continue
        exported = healthbench_record(one)
        if exported is not None:
            chosen = exported.record if fmt == "healthbench" else exported.response
            lines.append(chosen.model_dump_json(exclude_none=True))
    return lines
