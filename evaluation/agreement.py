"""How well the grader agrees with clinicians, and clinicians with each other (pure statistics).

Over every reviewed criterion (a verifier item the grader scored and a clinician marked agree or
disagree) the grader's met/unmet verdict is compared with the clinician's: accuracy, macro F1 over
the two classes met and unmet (HealthBench's meta-evaluation of its grader against physicians), and
Cohen's kappa — overall, per axis and per grader family (rule, judge). Where two or more clinicians
reviewed the same consultation, every pair of them is compared on the items both decided: the
baseline a grader should reach. Intervals are percentile bootstraps over the compared items
(1,000 resamples, seeded). ``most_disagreed`` lists the criteria (by text, across consultations)
with the most disagreements of either kind.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from itertools import combinations

from pydantic import BaseModel, Field

from evaluation.reviews import ClinicianVerdict, Review, clinician_verdicts

N_BOOTSTRAP = 1000
MOST_DISAGREED = 10

Labels = Sequence[bool]
Statistic = Callable[[Labels, Labels], float | None]


def accuracy(a: Labels, b: Labels) -> float | None:
    """The share of items on which the two raters give the same verdict."""
    _same_length(a, b)
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a) if a else None


def f1(a: Labels, b: Labels, positive: bool) -> float | None:
    """F1 of class ``positive`` (symmetric in the raters); None when neither rater uses the class."""
    _same_length(a, b)
    both = sum(x == positive and y == positive for x, y in zip(a, b, strict=True))
    only = sum((x == positive) != (y == positive) for x, y in zip(a, b, strict=True))
    return None if both + only == 0 else 2 * both / (2 * both + only)


def macro_f1(a: Labels, b: Labels) -> float | None:
    """The mean of the met and unmet classes' F1 (over the classes either rater uses)."""
    scores = [s for s in (f1(a, b, True), f1(a, b, False)) if s is not None]
    return sum(scores) / len(scores) if scores else None


def cohen_kappa(a: Labels, b: Labels) -> float | None:
    """(observed − chance agreement) / (1 − chance); None when chance agreement is 1 (one class only)."""
    observed = accuracy(a, b)
    if observed is None:
        return None
    pa, pb = sum(a) / len(a), sum(b) / len(b)
    chance = pa * pb + (1 - pa) * (1 - pb)
    return None if chance >= 1.0 else (observed - chance) / (1 - chance)


def _same_length(a: Labels, b: Labels) -> None:
    if len(a) != len(b):
        raise ValueError(f"the raters judged different numbers of items: {len(a)} and {len(b)}")


class Interval(BaseModel):
    low: float
    high: float


def bootstrap_interval(a: Labels, b: Labels, statistic: Statistic, *, n: int = N_BOOTSTRAP, seed: int = 0,
                       level: float = 0.95) -> Interval | None:
    """The percentile interval of ``statistic`` over ``n`` resamples of the item pairs (resamples
    where it is undefined are skipped; None when fewer than two items or no resample is defined)."""
    _same_length(a, b)
    if len(a) < 2:
        return None
    rng = random.Random(seed)
    values: list[float] = []
    for _ in range(n):
        picks = [rng.randrange(len(a)) for _ in range(len(a))]
        value = statistic([a[i] for i in picks], [b[i] for i in picks])
        if value is not None:
            values.append(value)
    if not values:
        return None
    values.sort()
    tail = (1 - level) / 2
    return Interval(low=values[int(tail * (len(values) - 1))], high=values[round((1 - tail) * (len(values) - 1))])


class AgreementStats(BaseModel):
    n: int  # items compared
    accuracy: float | None = None
    macro_f1: float | None = None
    kappa: float | None = None
    accuracy_ci: Interval | None = None
    macro_f1_ci: Interval | None = None
    kappa_ci: Interval | None = None


def agreement_stats(a: Labels, b: Labels, *, seed: int = 0) -> AgreementStats:
    return AgreementStats(
        n=len(a), accuracy=accuracy(a, b), macro_f1=macro_f1(a, b), kappa=cohen_kappa(a, b),
        accuracy_ci=bootstrap_interval(a, b, accuracy, seed=seed),
        macro_f1_ci=bootstrap_interval(a, b, macro_f1, seed=seed),
        kappa_ci=bootstrap_interval(a, b, cohen_kappa, seed=seed),
    )


class DisagreedCriterion(BaseModel):
    criterion: str
    compared: int  # grader-vs-clinician verdicts plus clinician pairs
    disagreements: int
    grader_disagreements: int
    clinician_disagreements: int


class AgreementReport(BaseModel):
    reviews: int
    consultations: int
    reviewers: list[str]
    grader: AgreementStats  # the grader against every clinician verdict
    by_axis: dict[str, AgreementStats] = Field(default_factory=dict)
    by_grader: dict[str, AgreementStats] = Field(default_factory=dict)
    clinicians: AgreementStats | None = None  # clinician pairs; None when no consultation has two reviewers
    most_disagreed: list[DisagreedCriterion] = Field(default_factory=list)


class ClinicianPair(BaseModel):
    criterion: str
    first: bool
    second: bool


def clinician_pairs(verdicts: list[ClinicianVerdict]) -> list[ClinicianPair]:
    """Every pair of clinicians' verdicts on the same item of the same consultation."""
    by_item: dict[tuple[str, str], list[ClinicianVerdict]] = defaultdict(list)
    for verdict in verdicts:
        by_item[(verdict.consultation_id, verdict.criterion_id)].append(verdict)
    pairs: list[ClinicianPair] = []
    for group in by_item.values():
        group.sort(key=lambda v: v.reviewer)
        for x, y in combinations(group, 2):
            if x.reviewer != y.reviewer:
                pairs.append(ClinicianPair(criterion=x.criterion, first=x.clinician_met, second=y.clinician_met))
    return pairs


def _stats_of(verdicts: list[ClinicianVerdict], seed: int) -> AgreementStats:
    return agreement_stats([v.grader_met for v in verdicts], [v.clinician_met for v in verdicts], seed=seed)


def agreement_report(reviews: list[Review], *, seed: int = 0, top: int = MOST_DISAGREED) -> AgreementReport:
    verdicts = [v for review in reviews for v in clinician_verdicts(review)]
    by_axis: dict[str, list[ClinicianVerdict]] = defaultdict(list)
    by_grader: dict[str, list[ClinicianVerdict]] = defaultdict(list)
    for verdict in verdicts:
        by_axis[verdict.axis].append(verdict)
        by_grader[verdict.grader].append(verdict)
    pairs = clinician_pairs(verdicts)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # compared, grader, clinician disagreements
    for verdict in verdicts:
        tally[verdict.criterion][0] += 1
        tally[verdict.criterion][1] += verdict.grader_met != verdict.clinician_met
    for pair in pairs:
        tally[pair.criterion][0] += 1
        tally[pair.criterion][2] += pair.first != pair.second
    disagreed = [DisagreedCriterion(criterion=text, compared=n, disagreements=g + c, grader_disagreements=g,
                                    clinician_disagreements=c)
                 for text, (n, g, c) in tally.items() if g + c]
    disagreed.sort(key=lambda d: (-d.disagreements, -d.disagreements / d.compared, d.criterion))
    return AgreementReport(
        reviews=len(reviews),
        consultations=len({r.consultation_id for r in reviews}),
        reviewers=sorted({r.reviewer for r in reviews}),
        grader=_stats_of(verdicts, seed),
        by_axis={axis: _stats_of(v, seed) for axis, v in sorted(by_axis.items())},
        by_grader={name: _stats_of(v, seed) for name, v in sorted(by_grader.items())},
        clinicians=agreement_stats([p.first for p in pairs], [p.second for p in pairs], seed=seed) if pairs else None,
        most_disagreed=disagreed[:top],
    )
