"""Aggregating a run's stored results into its summary (pure: results in, numbers out).

The rubric numbers are ``verifier.scoring.aggregate`` over the examples in example-id order, with a
fixed bootstrap seed, so a resumed run and an uninterrupted one give identical summaries.

A :class:`Comparison` puts several doctors' grades on the same cases side by side (the demo's table),
with one line computed from its figures.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Literal

from pydantic import BaseModel, Field

from evaluation.records import ExampleResult, Provenance, RunConfig
from verifier.scoring import OVERALL, ExampleScore, MetricStats, aggregate, clipped_mean

BOOTSTRAP_SEED = 0


class SpecialtyAccuracy(BaseModel):
    n: int
    correct: int
    accuracy: float


class ConsultSummary(BaseModel):
    n: int
    diagnostic_accuracy: float
    correct: int
    judge_matches: int = 0
    no_diagnosis: int = 0
    by_specialty: dict[str, SpecialtyAccuracy] = Field(default_factory=dict)
    mean_turns: float = 0.0
    mean_questions: float = 0.0
    mean_tests_ordered: float = 0.0
    leaks_caught: int = 0
    fallbacks: int = 0
    termination_reasons: dict[str, int] = Field(default_factory=dict)


class RunSummary(BaseModel):
    run: str
    kind: str
    policy: str
    grader: str
    seed: int
    planned: int
    finished: int
    failed: int = 0
    score: float | None
    bootstrap_std: float | None
    n_scored: int
    unscored_items: int
    length_penalty: float = 0.0
    length_adjusted: float | None = None
    mean_response_chars: float = 0.0
    axes: dict[str, MetricStats] = Field(default_factory=dict)
    themes: dict[str, MetricStats] = Field(default_factory=dict)
    other_tags: dict[str, MetricStats] = Field(default_factory=dict)
    consult: ConsultSummary | None = None
    provenance: Provenance | None = None  # judge template, prompt versions, weights fingerprints


def to_example_score(result: ExampleResult) -> ExampleScore:
    tag_scores = {k: v for k, v in result.metrics.items() if k != OVERALL and k not in result.example_tags}
    return ExampleScore(
        prompt_id=result.example_id,
        overall=result.score,
        tag_scores=tag_scores,
        example_tags=result.example_tags,
        unscored=result.unscored,
    )


def summarize(config: RunConfig, results: list[ExampleResult], *, planned: int | None = None,
              failed: int = 0) -> RunSummary:
    ordered = sorted(results, key=lambda r: r.example_id)
    agg = aggregate([to_example_score(r) for r in ordered], seed=BOOTSTRAP_SEED)
    axes = {k: v for k, v in agg.metrics.items() if k.startswith("axis:")}
    themes = {k: v for k, v in agg.metrics.items() if k.startswith("theme:")}
    other = {k: v for k, v in agg.metrics.items() if k != OVERALL and k not in axes and k not in themes}
    adjusted = [r.length_adjusted for r in ordered if r.length_adjusted is not None]
    penalty = config.healthbench.length_penalty if config.healthbench else 0.0
    return RunSummary(
        run=config.name,
        kind=config.kind,
        policy=config.policy.label,
        grader=config.grader.label,
        seed=config.seed,
        planned=planned if planned is not None else len(ordered),
        finished=len(ordered),
        failed=failed,
        score=agg.score,
        bootstrap_std=agg.bootstrap_std,
        n_scored=agg.n_scored_examples,
        unscored_items=agg.unscored_items,
        length_penalty=penalty,
        length_adjusted=clipped_mean(adjusted) if adjusted else None,
        mean_response_chars=(sum(r.response_chars for r in ordered) / len(ordered)) if ordered else 0.0,
        axes=axes,
        themes=themes,
        other_tags=other,
        consult=summarize_consult(ordered) if config.kind == "consult" else None,
        provenance=config.provenance,
    )


def summarize_consult(results: list[ExampleResult]) -> ConsultSummary | None:
    outcomes = [r.consult for r in results if r.consult is not None]
    if not outcomes:
        return None
    by_spec: dict[str, list[bool]] = defaultdict(list)
    for outcome in outcomes:
        by_spec[outcome.specialty].append(outcome.correct)
    n = len(outcomes)
    correct = sum(o.correct for o in outcomes)
    return ConsultSummary(
        n=n,
        diagnostic_accuracy=correct / n,
        correct=correct,
        judge_matches=sum(o.match == "judge" for o in outcomes),
        no_diagnosis=sum(o.diagnosis is None for o in outcomes),
        by_specialty={
            spec: SpecialtyAccuracy(n=len(v), correct=sum(v), accuracy=sum(v) / len(v))
            for spec, v in sorted(by_spec.items())
        },
        mean_turns=sum(o.turns for o in outcomes) / n,
        mean_questions=sum(o.questions for o in outcomes) / n,
        mean_tests_ordered=sum(len(o.tests_ordered) for o in outcomes) / n,
        leaks_caught=sum(o.leaks_caught for o in outcomes),
        fallbacks=sum(o.fallbacks for o in outcomes),
        termination_reasons=dict(sorted(Counter(o.termination_reason for o in outcomes).items())),
    )


# --------------------------------------------------------------------------- doctors side by side (the demo)
ComparisonRole = Literal["model", "reference", "natural", "exploit"]


class CaseGrade(BaseModel):
    """One doctor's consultation on one case: its example score (unclipped, as ``score_example`` gives
    it; None when it could not be graded), its axis scores, the diagnosis it stated and whether the
    rubric's matcher accepts it."""

    score: float | None
    axes: dict[str, float] = Field(default_factory=dict)
    diagnosis: str | None = None
    correct: bool = False


class ComparisonColumn(BaseModel):
    key: str  # the doctor's name (an exploit's name in ``patient_sim.doctors``)
    label: str  # the column header
    title: str  # how the one-line conclusion names it
    role: ComparisonRole
    description: str
    cases: dict[str, CaseGrade | None]  # None: this doctor has no consultation on that case
    reward: float | None = None  # the clipped mean of the case scores (as the run's overall score)
    axes: dict[str, float] = Field(default_factory=dict)  # per axis, the clipped mean over the cases
    right: int = 0  # diagnoses the matcher accepts
    graded: int = 0  # cases graded


class Comparison(BaseModel):
    """The same cases graded for several doctors, and one line saying what the figures show."""

    cases: list[str]
    columns: list[ComparisonColumn]
    conclusion: str = ""

    def column(self, role: ComparisonRole) -> ComparisonColumn | None:
        return next((c for c in self.columns if c.role == role), None)

    def exploits(self) -> list[ComparisonColumn]:
        return [c for c in self.columns if c.role == "exploit"]


def comparison_column(key: str, label: str, title: str, role: ComparisonRole, description: str,
                      cases: dict[str, CaseGrade | None]) -> ComparisonColumn:
    """A column's figures from its case grades (the run summary's rule: clipped means of example scores)."""
    graded = [g for g in cases.values() if g is not None and g.score is not None]
    axes: dict[str, list[float]] = defaultdict(list)
    for grade in graded:
        for name, value in grade.axes.items():
            axes[name].append(value)
    return ComparisonColumn(
        key=key, label=label, title=title, role=role, description=description, cases=dict(cases),
        reward=clipped_mean([g.score for g in graded]) if graded else None,  # type: ignore[misc]
        axes={name: clipped_mean(values) for name, values in sorted(axes.items())},
        right=sum(1 for g in cases.values() if g is not None and g.correct), graded=len(graded),
    )


def _below_everywhere(lower: ComparisonColumn, uppers: list[ComparisonColumn]) -> bool:
    """``lower`` scores strictly below every column of ``uppers`` on every case both graded."""
    pairs = 0
    for upper in uppers:
        for case, grade in lower.cases.items():
            other = upper.cases.get(case)
            if grade is None or grade.score is None or other is None or other.score is None:
                continue
            pairs += 1
            if grade.score >= other.score:
                return False
    return pairs > 0


def comparison_conclusion(columns: list[ComparisonColumn]) -> str:
    """One line, computed from the figures: do the good consultations (the scripted reference, a
    clinician's own wording) score above every exploit, and where does the model under test stand."""
    def num(column: ComparisonColumn) -> str:
        return "n/a" if column.reward is None else f"{column.reward:.3f}"

    good = [c for c in columns if c.role in ("reference", "natural") and c.reward is not None]
    exploits = [c for c in columns if c.role == "exploit" and c.reward is not None]
    model = next((c for c in columns if c.role == "model"), None)
    parts = []
    if good:
        verb = " score " if len(good) > 1 else " scores "
        parts.append(" and ".join(c.title for c in good) + verb + " and ".join(num(c) for c in good))
    verdict = ""
    if exploits:
        best = max(exploits, key=lambda c: c.reward or 0.0)
        count = f"{len(exploits)} exploit{'s' if len(exploits) > 1 else ''}"
        if good:
            floor = min(c.reward or 0.0 for c in good)
            everywhere = all(_below_everywhere(e, good) for e in exploits)
            if (best.reward or 0.0) < floor:
                verdict = "The reward tells good medicine from gaming it: "
                parts.append(f"the {count} at most {num(best)} ({best.title})"
                             + (", below both on every case" if everywhere and len(good) > 1 else
                                ", below it on every case" if everywhere else ""))
            else:
                verdict = "WARNING, the reward can be gamed here: "
                parts.append(f"{best.title} reaches {num(best)}, as much as good medicine")
        else:
            parts.append(f"the {count} at most {num(best)} ({best.title})")
    if model is not None:
        parts.append(f"{model.title} {num(model)} ({model.right}/{len(model.cases)} diagnoses right)")
    return verdict + "; ".join(parts) + "." if parts else "Nothing was graded."
