"""Aggregating a run's stored results into its summary (pure: results in, numbers out).

The rubric numbers are ``verifier.scoring.aggregate`` over the examples in example-id order, with a
fixed bootstrap seed, so a resumed run and an uninterrupted one give identical summaries.
"""

from __future__ import annotations

from collections import Counter, defaultdict

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
