"""The exploit audit: scripted policies that try to score without the skill, beside a reference.

A verifier is a reward, and a policy trained on it finds every way to score that does not need the
skill. Each domain ships a suite (``evaluation/audit_<domain>.py``): the items it is run on (cases,
tasks), a reference policy that does the task properly, and exploit policies (vocabulary stuffing,
answer lists, reading the harness, ...). :func:`run_audit` scores every policy on every item through
the domain's real verifier and reports, per exploit, the mean reward, its ratio to the reference's
mean over the same items, the items where it ties or beats the reference, the per-axis breakdown, and
whether the exploit's declared bound holds.

An item that could not be graded (``reward is None`` or ``meta["scored"]`` is False) is counted as
unscored and left out of the means, for the exploit and for the reference alike.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field

from verifier.types import VerifyResult

logger = logging.getLogger(__name__)

T = TypeVar("T")
REFERENCE = "reference"


@dataclass(frozen=True)
class Bound:
    """What an exploit must not reach. Every field that is set is checked."""

    max_ratio: float | None = None  # mean reward <= max_ratio x the reference's mean (same items)
    no_ties: bool = False  # below the reference on every item
    strictly_below: bool = False  # below the reference on every item where the policy applies
    zero: bool = False  # reward exactly 0 on every item
    no_credit_tag: str | None = None  # no positive criterion with this tag is ever met

    def describe(self) -> str:
        parts = []
        if self.max_ratio is not None:
            parts.append(f"ratio <= {self.max_ratio:g}")
        if self.no_ties:
            parts.append("never ties the reference")
        if self.strictly_below:
            parts.append("strictly below the reference")
        if self.zero:
            parts.append("reward 0 everywhere")
        if self.no_credit_tag:
            parts.append(f"no credit on {self.no_credit_tag}")
        return "; ".join(parts) or "reported only"


@dataclass(frozen=True)
class AuditPolicy(Generic[T]):
    """A scripted policy: ``build(item)`` is the verify request it submits, or None where it does not
    apply (an exploit built on the reference whose change would be right on that item)."""

    name: str
    family: str  # the exploit class, e.g. "keyword_stuffing"; "reference" for the reference
    description: str
    build: Callable[[T], Any]
    bound: Bound = field(default_factory=Bound)
    case_independent: bool = False  # the policy's text does not depend on the item


@dataclass(frozen=True)
class AuditSuite(Generic[T]):
    domain: str
    items: Sequence[T]
    item_id: Callable[[T], str]
    reference: AuditPolicy[T]
    exploits: Sequence[AuditPolicy[T]]
    verify: Callable[[Any], Awaitable[VerifyResult]]
    source: str = ""
    reference_min_mean: float | None = None  # the reference must reach this mean
    reference_exact: float | None = None  # ... or exactly this reward on every item (code: 1.0)
    notes: list[str] = field(default_factory=list)


class PolicyAudit(BaseModel):
    name: str
    family: str
    description: str
    case_independent: bool = False
    items: int = 0  # items the policy applies to and that were scored
    applicable: int = 0  # items the policy applies to (an exploit built on the reference may not)
    unscored: int = 0
    mean_reward: float | None = None
    reference_mean: float | None = None  # the reference's mean over the same items
    ratio: float | None = None
    ties: list[str] = Field(default_factory=list)  # items where the policy >= the reference
    axes: dict[str, float] = Field(default_factory=dict)  # mean of each axis score over its items
    bound: str = ""
    passed: bool = True
    failures: list[str] = Field(default_factory=list)
    rewards: dict[str, float | None] = Field(default_factory=dict)  # per item


class AuditReport(BaseModel):
    domain: str
    source: str = ""
    items: int
    reference: PolicyAudit
    exploits: list[PolicyAudit]
    passed: bool
    notes: list[str] = Field(default_factory=list)

    def ratios(self) -> dict[str, float | None]:
        return {p.name: p.ratio for p in self.exploits}


def reward_of(result: VerifyResult) -> float | None:
    """The reward, or None when the verifier could not grade the request."""
    if result.reward is None or result.meta.get("scored") is False:
        return None
    return float(result.reward)


def _axes(results: Sequence[VerifyResult]) -> dict[str, float]:
    values: dict[str, list[float]] = {}
    for result in results:
        for name, value in result.scores.items():
            if name.startswith("axis:") or name.startswith("cluster:"):
                values.setdefault(name, []).append(value)
    return {name: round(fmean(v), 4) for name, v in sorted(values.items())}


def _credited(result: VerifyResult, tag: str) -> list[str]:
    return [c.criterion for c in result.criteria if c.met and c.points > 0 and tag in c.tags]


async def _score_all(
    suite: AuditSuite[T], policy: AuditPolicy[T], concurrency: int
) -> dict[str, VerifyResult | None]:
    semaphore = asyncio.Semaphore(concurrency)

    async def one(item: T) -> tuple[str, VerifyResult | None]:
        request = policy.build(item)
        if request is None:
            return suite.item_id(item), None
        async with semaphore:
            return suite.item_id(item), await suite.verify(request)

    pairs = await asyncio.gather(*(one(item) for item in suite.items))
    return dict(pairs)


def _summarise(
    policy: AuditPolicy[T],
    results: dict[str, VerifyResult | None],
    reference: dict[str, float | None],
) -> PolicyAudit:
    rewards = {item: (reward_of(r) if r is not None else None) for item, r in results.items()}
    applied = [item for item, r in results.items() if r is not None]
    scored = [item for item in applied if rewards[item] is not None and reference.get(item) is not None]
    audit = PolicyAudit(
        name=policy.name, family=policy.family, description=policy.description,
        case_independent=policy.case_independent, items=len(scored), applicable=len(applied),
        unscored=sum(1 for item in applied if rewards[item] is None), bound=policy.bound.describe(),
        rewards={item: rewards[item] for item in applied},
    )
    if scored:
        audit.mean_reward = round(fmean(rewards[i] for i in scored), 4)  # type: ignore[misc]
        audit.reference_mean = round(fmean(reference[i] for i in scored), 4)  # type: ignore[misc]
        if audit.reference_mean > 0:
            audit.ratio = round(audit.mean_reward / audit.reference_mean, 4)
        audit.ties = [i for i in scored if rewards[i] >= reference[i]]  # type: ignore[operator]
    audit.axes = _axes([results[i] for i in scored if results[i] is not None])  # type: ignore[misc]
    bound, failures = policy.bound, audit.failures
    if applied and not scored:
        failures.append(f"none of the {len(applied)} item(s) it applies to could be graded")
    if bound.max_ratio is not None and audit.ratio is not None and audit.ratio > bound.max_ratio:
        failures.append(f"ratio {audit.ratio:.3f} > {bound.max_ratio:g}")
    if (bound.no_ties or bound.strictly_below) and audit.ties:
        failures.append(f"ties or beats the reference on {len(audit.ties)} item(s): {', '.join(audit.ties[:5])}")
    if bound.zero:
        nonzero = [i for i in scored if rewards[i] != 0.0]
        if nonzero:
            failures.append(f"non-zero reward on {len(nonzero)} item(s): {', '.join(nonzero[:5])}")
    if bound.no_credit_tag:
        credited = [i for i in scored if _credited(results[i], bound.no_credit_tag)]  # type: ignore[arg-type]
        if credited:
            failures.append(f"credited on {bound.no_credit_tag} in {len(credited)} item(s): {', '.join(credited[:5])}")
    audit.passed = not failures
    return audit


async def run_audit(
    suite: AuditSuite[T], *, concurrency: int = 8, progress: Callable[[str], None] | None = None
) -> AuditReport:
    """Score the reference and every exploit on every item of ``suite``; check the bounds.
    ``progress(name)`` is called as each policy finishes."""
    say = progress or (lambda _message: None)
    ref_results = await _score_all(suite, suite.reference, concurrency)
    say(suite.reference.name)
    ref_rewards = {item: (reward_of(r) if r is not None else None) for item, r in ref_results.items()}
    reference = _summarise(suite.reference, ref_results, ref_rewards)
    reference.ratio = 1.0 if reference.mean_reward else None
    reference.ties = []
    if suite.reference_min_mean is not None and (reference.mean_reward or 0.0) < suite.reference_min_mean:
        reference.failures.append(f"reference mean {reference.mean_reward} < {suite.reference_min_mean:g}")
    if suite.reference_exact is not None:
        off = [i for i, r in ref_rewards.items() if r != suite.reference_exact]
        if off:
            reference.failures.append(f"reference reward != {suite.reference_exact:g} on {', '.join(off[:5])}")
    if reference.unscored:
        reference.failures.append(f"{reference.unscored} reference item(s) could not be graded")
    reference.passed = not reference.failures
    exploits = []
    for policy in suite.exploits:
        results = await _score_all(suite, policy, concurrency)
        exploits.append(_summarise(policy, results, ref_rewards))
        say(policy.name)
    passed = reference.passed and all(p.passed for p in exploits)
    return AuditReport(
        domain=suite.domain, source=suite.source, items=len(suite.items), reference=reference,
        exploits=exploits, passed=passed, notes=list(suite.notes),
    )


def render_table(report: AuditReport) -> Any:
    """The report as a rich table (the CLI prints it)."""
    from rich.table import Table

    verdict = "passed" if report.passed else "FAILED"
    where = f", {report.source}" if report.source else ""
    table = Table(title=f"exploit audit: {report.domain} ({report.items} items{where}): {verdict}")
    for column in ("policy", "class", "items", "mean", "ratio", "ties", "bound", "verdict"):
        table.add_column(column, justify="right" if column in {"items", "mean", "ratio", "ties"} else "left",
                         overflow="fold")
    for policy in [report.reference, *report.exploits]:
        status = ("ok" if policy.applicable else "n/a") if policy.passed else "FAIL: " + "; ".join(policy.failures)
        table.add_row(
            policy.name, policy.family, str(policy.items),
            "-" if policy.mean_reward is None else f"{policy.mean_reward:.3f}",
            "-" if policy.ratio is None else f"{policy.ratio:.3f}",
            str(len(policy.ties)), "" if policy.family == REFERENCE else policy.bound, status,
        )
    return table
