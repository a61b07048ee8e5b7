"""Clinician reviews, stored in the consultations' SQLite file (``evaluation.reviews`` defines them).

Two tables beside ``consultations``: ``gradings`` keeps the verifier's graded rubric of each
consultation (regraded when the dialogue, its case or the rubric's version changes), so every reviewer
sees the same verdicts and a judge is not asked again on every page load; ``reviews`` keeps one review
per consultation and reviewer key, written through on every save (one committed transaction), so nothing
a clinician saved is lost when the server dies. A review made against an older version of the rubric
is regraded and carried onto the current one when its reviewer opens it (``follow``;
``evaluation.reviews.carry_review``), the marks as they were kept in the review.

The rubric: the case-grounded one when the consultation has a case; otherwise the LLM rubric
generator's when the server has a rubric model; otherwise there is none (``RubricUnavailable``: the
embedded model cannot write one), and the clinician is offered to attach a case.
"""

from __future__ import annotations

import logging
import time

import aiosqlite

from evaluation.reviews import (
    EarlierReview,
    GradedCriterion,
    GradedRubric,
    Review,
    ReviewedConsultation,
    ReviewInput,
    carry_review,
    item_turn,
    other_version,
    rubric_version,
)
from serving.sessions import ConsultationStore
from verifier.backends.medical import grade_conversation
from verifier.protocols import Grader, RubricGenerator
from verifier.types import Case, Message

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS gradings (
    consultation_id TEXT PRIMARY KEY,
    messages INTEGER NOT NULL,
    case_id TEXT,
    rubric TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reviews (
    consultation_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    label TEXT NOT NULL,
    review TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (consultation_id, reviewer)
);
"""

NO_RUBRIC = ("this consultation was not started from a case and the server has no rubric model "
             "(MEDVERIFIER_RUBRIC_MODEL), so the verifier has no rubric for it: attach a case to get the "
             "case-grounded rubric, or add criteria of your own")


class RubricUnavailable(Exception):
    """There is no usable rubric for a consultation; the message says why and what to do."""


def generator_versions(generator: object) -> dict[str, str]:
    """The current version of each rubric generator family ``generator`` may grade with (itself, and the
    generators it wraps or falls back to): {"case": "4", "llm": "1"}."""
    versions: dict[str, str] = {}
    seen: set[int] = set()
    todo = [generator]
    while todo:
        one = todo.pop()
        if one is None or id(one) in seen:
            continue
        seen.add(id(one))
        name, version = getattr(one, "name", None), getattr(one, "version", None)
        if isinstance(name, str) and version is not None:
            versions.setdefault(name.split(":", 1)[0], str(version))
        todo.extend(getattr(one, attr, None) for attr in ("fallback", "inner"))
    return versions


def outdated(graded: GradedRubric, versions: dict[str, str]) -> bool:
    """Whether ``graded`` was made by another version of its generator than the current one."""
    family, version = rubric_version(graded.generator)
    return family in versions and versions[family] != version


async def grade_messages(messages: list[Message], case: Case | None, generator: RubricGenerator, grader: Grader,
                         *, has_rubric_model: bool) -> GradedRubric:
    """The verifier's rubric for a dialogue and its verdicts on it."""
    if not any(m.role == "assistant" for m in messages):
        raise RubricUnavailable("the consultation has no doctor turn yet: send a message first")
    if case is None and not has_rubric_model:
        raise RubricUnavailable(NO_RUBRIC)
    try:
        rubric = await generator.generate(case=case, conversation=messages)
    except ValueError as exc:  # the LLM generator failed and the case-grounded fallback has no case
        raise RubricUnavailable(f"the rubric model gave no usable rubric ({exc}); attach a case") from exc
    result = await grade_conversation(messages, rubric.items, grader, case=case)
    criteria = [
        GradedCriterion(id=f"v{i + 1}", criterion=item.criterion, points=item.points, tags=list(item.tags),
                        check=item.check, met=verdict.met, explanation=verdict.explanation, grader=verdict.grader,
                        turn=item_turn(item))
        for i, (item, verdict) in enumerate(zip(rubric.items, result.criteria, strict=True))
    ]
    return GradedRubric(generator=f"{rubric.generator}@{rubric.version}", case_id=case.id if case else None,
                        messages=len(messages), criteria=criteria, scores=result.scores, reward=result.reward,
                        unscored_reason=str(result.meta.get("unscored_reason") or "") or None)


class ReviewStore:
    """Gradings and reviews in the consultations' database (one connection, owned by the store)."""

    def __init__(self, consultations: ConsultationStore) -> None:
        self.consultations = consultations
        self._conn: aiosqlite.Connection = consultations.conn

    @classmethod
    async def open(cls, consultations: ConsultationStore) -> ReviewStore:
        store = cls(consultations)
        await store._conn.executescript(_SCHEMA)
        await store._conn.commit()
        return store

    async def rubric(self, consultation_id: str, case_id: str | None, generator: RubricGenerator, grader: Grader,
                     *, has_rubric_model: bool) -> GradedRubric:
        """The consultation's graded rubric: the stored one when the dialogue and the case are unchanged."""
        messages = await self.consultations.messages(consultation_id)
        async with self._conn.execute(
            "SELECT messages, case_id, rubric FROM gradings WHERE consultation_id = ?", (consultation_id,)
        ) as cursor:
            row = await cursor.fetchone()
        if row is not None and row[0] == len(messages) and row[1] == case_id:
            stored = GradedRubric.model_validate_json(row[2])
            if not outdated(stored, generator_versions(generator)):
                return stored
            logger.info("consultation %s: grading by %s is outdated; regrading", consultation_id, stored.generator)
        case = self.consultations.cases.get(case_id) if case_id else None
        graded = await grade_messages(messages, case, generator, grader, has_rubric_model=has_rubric_model)
        await self._conn.execute(
            "INSERT OR REPLACE INTO gradings (consultation_id, messages, case_id, rubric) VALUES (?, ?, ?, ?)",
            (consultation_id, len(messages), case_id, graded.model_dump_json()),
        )
        await self._conn.commit()
        return graded

    async def follow(self, review: Review, reviewer: str, rubric: GradedRubric, generator: RubricGenerator,
                     grader: Grader, *, has_rubric_model: bool) -> Review:
        """``review`` as it is when its stored grading was made by another version of the current rubric
        (``rubric``, the consultation's grading now): its dialogue regraded, its marks carried over
        (``carry_review``) and written through; otherwise ``review`` unchanged."""
        old = review.rubric
        if old is None or not other_version(old.generator, rubric.generator):
            return review
        if old.messages == rubric.messages and old.case_id == rubric.case_id:
            regraded = rubric
        else:  # the review is of an earlier part of the dialogue: regrade that part
            messages = (await self.consultations.messages(review.consultation_id))[: old.messages]
            case = self.consultations.cases.get(old.case_id) if old.case_id else None
            try:
                regraded = await grade_messages(messages, case, generator, grader, has_rubric_model=has_rubric_model)
            except RubricUnavailable:
                return review
        now = time.time()
        carried = carry_review(review, regraded, at=now)
        logger.info("review of %s by %s: carried from %s to %s", review.consultation_id, review.reviewer,
                    old.generator, regraded.generator)
        await self._write(review.consultation_id, reviewer, review.reviewer, carried)
        return carried

    async def forget(self, consultation_id: str) -> None:
        """Drop a deleted consultation's grading and reviews."""
        await self._conn.execute("DELETE FROM gradings WHERE consultation_id = ?", (consultation_id,))
        await self._conn.execute("DELETE FROM reviews WHERE consultation_id = ?", (consultation_id,))
        await self._conn.commit()

    async def get(self, consultation_id: str, reviewer: str) -> Review | None:
        async with self._conn.execute(
            "SELECT review FROM reviews WHERE consultation_id = ? AND reviewer = ?", (consultation_id, reviewer)
        ) as cursor:
            row = await cursor.fetchone()
        return Review.model_validate_json(row[0]) if row else None

    async def save(self, consultation_id: str, reviewer: str, label: str, body: ReviewInput,
                   rubric: GradedRubric | None) -> Review:
        """Check the review against the rubric it is about, then write it through (replacing the last)."""
        known = {c.id for c in rubric.criteria} if rubric else set()
        for index, mark in enumerate(body.criteria):
            if mark.id not in known:
                where = f"the verifier's rubric has {len(known)} items (v1..v{len(known)})" if known else \
                    "the consultation has no verifier rubric"
                raise ValueError(f"criteria.{index}.id: unknown criterion {mark.id!r}: {where}")
        now = time.time()
        # What the clinician gave before stays with the review: the marks on every earlier rubric version.
        last = await self.get(consultation_id, reviewer)
        earlier = list(last.earlier) if last is not None else []
        if last is not None and last.rubric is not None and rubric is not None \
                and last.rubric.generator != rubric.generator:
            earlier.append(EarlierReview(rubric=last.rubric, criteria=list(last.criteria), replaced_at=now))
        review = Review(**body.model_dump(), consultation_id=consultation_id, reviewer=label, rubric=rubric,
                        updated_at=now, earlier=earlier)
        await self._write(consultation_id, reviewer, label, review)
        return review

    async def _write(self, consultation_id: str, reviewer: str, label: str, review: Review) -> None:
        await self._conn.execute(
            "INSERT OR REPLACE INTO reviews (consultation_id, reviewer, label, review, updated_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (consultation_id, reviewer, label, review.model_dump_json(), review.updated_at),
        )
        await self._conn.commit()

    async def visible(self, tenant: str | None) -> list[Review]:
        """Reviews ``tenant`` wrote and reviews of consultations it owns (None: every review)."""
        query = "SELECT r.review FROM reviews r JOIN consultations c ON c.id = r.consultation_id"
        args: tuple = ()
        if tenant is not None:
            query += " WHERE r.reviewer = ? OR c.tenant = ?"
            args = (tenant, tenant)
        async with self._conn.execute(query + " ORDER BY r.consultation_id, r.label", args) as cursor:
            return [Review.model_validate_json(row[0]) for row in await cursor.fetchall()]

    async def reviewed(self, reviews: list[Review]) -> list[ReviewedConsultation]:
        """Each review with its dialogue and case (what the exports need)."""
        out: list[ReviewedConsultation] = []
        for review in reviews:
            case_id = review.rubric.case_id if review.rubric else None
            out.append(ReviewedConsultation(
                review=review, messages=await self.consultations.messages(review.consultation_id),
                case=self.consultations.cases.get(case_id) if case_id else None,
            ))
        return out
