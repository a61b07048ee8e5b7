"""The recall half of the medical audit: natural consultations, written by hand, graded beside the reference.

The exploit audit (``evaluation/audit_medical.py``) measures precision: what scores without the skill. A
reward must also credit good medicine in any wording. The project keeps natural consultations, written as
clinicians talk, in four registers (``data/natural/project.yaml``, ``data/natural/agentclinic.yaml``); each
is annotated with the rubric item groups a clinician would mark met. :func:`recall_audit` grades every one
exactly as the audit grades its reference (fixed patient replies, rule grading) and reports, per split
(tune, held-out) and register:

* the ratio of the natural consultations' mean reward to the exact-wording reference's on the same cases,
  and the lowest per-case ratio;
* item recall: of the positive, rule-checked items a clinician marked met, the share credited. Clinicians
  marked every rule-checked item of every shipped consultation met or not (``data/natural/items/``, beside the
  consultations); where an item has no mark, it counts when its group is in the writer's own ``met`` list
  (the figure by groups alone is reported beside it, ``group_item_recall``);
* false credits: items credited that the clinician marked not met (precision on good consultations);
* false penalties: negative items met on these good consultations, except those a clinician confirms the
  consultation did (``confirmed_penalties``);
* a quality ladder per case: the natural consultation above itself without its history questions and
  without its orders (where the rubric asks for any test), both above it with a wrong diagnosis, that above
  the best case-independent exploit; and the share of cases where it is ordered.

A consultation that could not be graded (reward None) is counted as unscored, never as 0.0.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from evaluation.audit import AuditPolicy, AuditReport, PolicyAudit, reward_of
from evaluation.audit_medical import medical_suite
from patient_sim import doctors
from rubric_gen.case_rubric import build_case_rubric
from rubric_gen.validate import PLAN, SAFETY
from verifier import yamlfile
from verifier.markers import parse_diagnosis
from verifier.rule_grader import final_diagnosis_match
from verifier.scoring import example_score
from verifier.types import (
    Case,
    ConsultationTask,
    MedicalOptions,
    MedicalVerifyRequest,
    RubricItem,
    VerifyResult,
)

Register = Literal["gp_lay", "us_abbrev", "checklist", "terse"]
Group = Literal["diagnosis", "differential", "history", "red_flags", "allergies", "tests", "disposition",
                "emergency_now", "safety_net", "empathy", "focused"]
Split = Literal["tune", "heldout"]
REGISTERS: tuple[str, ...] = get_args(Register)
GROUPS: tuple[str, ...] = get_args(Group)
SPLITS: tuple[str, ...] = get_args(Split)
ALL = "all"  # the row over every register
LADDER_MIN_RATIO = 0.85  # the natural rung must reach this share of the reference
WRONG_DIAGNOSIS = "Tension-type headache"  # for a case without a differential ...
WRONG_DIAGNOSIS_HEADACHE = "Gastroenteritis"  # ... and for a headache case without one


# --------------------------------------------------------------------------- the natural consultations
class _Model(BaseModel):
    # "register" is the data's word for a consultation's style; the Python attribute is ``register_``
    # because BaseModel already has a ``register`` (from ABCMeta).
    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)


class NaturalConsultation(_Model):
    model_config = ConfigDict(extra="forbid")

    register_: Register = Field(alias="register")
    turns: list[str] = Field(min_length=1)
    met: list[Group] = Field(default_factory=list)


class NaturalCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: str = Field(min_length=1)
    heldout: bool
    consultations: list[NaturalConsultation] = Field(min_length=1)

    @property
    def split(self) -> Split:
        return "heldout" if self.heldout else "tune"


class NaturalSet(BaseModel):
    source: str
    entries: list[NaturalCase]
    skipped: list[str] = Field(default_factory=list)  # case ids left out (not among the audited cases)
    # clinicians' item marks: "case|register" -> criterion -> met (``items/<stem>.jsonl`` beside the file)
    marks: dict[str, dict[str, bool]] = Field(default_factory=dict)
    marks_source: str | None = None

    def marks_for(self, case: str, register: str) -> dict[str, bool]:
        return self.marks.get(f"{case}|{register}", {})

    def consultations(self) -> int:
        return sum(len(e.consultations) for e in self.entries)


class NaturalFormatError(ValueError):
    pass


def _error_text(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        if error["type"] == "literal_error":
            got = error.get("input")
            expected = error.get("ctx", {}).get("expected", "")
            kind = "register" if "register" in where else "group" if "met" in where else "value"
            parts.append(f"{where}: unknown {kind} {got!r}; expected one of {expected}")
        else:
            parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def parse_natural(data: object, case_ids: Collection[str], *, source: str = "<natural>",
                  skip_unknown_cases: bool = False) -> NaturalSet:
    """Validate natural consultations (the YAML's parsed list). An unknown case id is an error, or, with
    ``skip_unknown_cases``, the entry is left out and listed in ``skipped``."""
    if not isinstance(data, list):
        raise NaturalFormatError(f"{source}: expected a list of cases, got {type(data).__name__}")
    entries: list[NaturalCase] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for index, raw in enumerate(data, start=1):
        label = f"{source}: entry {index}"
        if isinstance(raw, dict) and isinstance(raw.get("case"), str):
            label += f" (case {raw['case']!r})"
        try:
            entry = NaturalCase.model_validate(raw)
        except ValidationError as exc:
            raise NaturalFormatError(f"{label}: {_error_text(exc)}") from exc
        if entry.case not in case_ids:
            if skip_unknown_cases:
                skipped.append(entry.case)
                continue
            raise NaturalFormatError(f"{label}: unknown case id {entry.case!r} (not among the {len(case_ids)} "
                                     "cases given)")
        if entry.case in seen:
            raise NaturalFormatError(f"{label}: case {entry.case!r} appears twice")
        seen.add(entry.case)
        entries.append(entry)
    return NaturalSet(source=source, entries=entries, skipped=skipped)


def load_natural(path: Path, case_ids: Collection[str], *, skip_unknown_cases: bool = False) -> NaturalSet:
    """Read and validate a natural-consultation file (``data/natural/*.yaml``), with the clinicians' item
    marks beside it (``items/<stem>.jsonl``) where they exist."""
    try:
        data = yamlfile.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise NaturalFormatError(f"{path}: cannot read: {exc}") from exc
    except yaml.YAMLError as exc:
        raise NaturalFormatError(f"{path}: not valid YAML: {exc}") from exc
    natural = parse_natural(data, case_ids, source=str(path), skip_unknown_cases=skip_unknown_cases)
    marks_path = item_marks_path(path)
    if marks_path.is_file():
        kept = {e.case for e in natural.entries}
        marks = load_item_marks(marks_path)
        natural.marks = {key: value for key, value in marks.items() if key.split("|", 1)[0] in kept}
        natural.marks_source = str(marks_path)
    return natural


# --------------------------------------------------------------------------- clinicians' item marks
class ItemMark(_Model):
    """A clinician's call on one rubric item of one natural consultation: did it do what the item says?"""

    model_config = ConfigDict(extra="forbid")

    case: str = Field(min_length=1)
    register_: Register = Field(alias="register")
    criterion: str = Field(min_length=1)
    met: StrictBool  # "yes" is not a mark
    evidence: str = ""


def item_marks_path(natural: Path) -> Path:
    """Where the item marks of a natural-consultation file live: ``items/<stem>.jsonl`` beside it."""
    return natural.parent / "items" / f"{natural.stem}.jsonl"


def load_item_marks(path: Path) -> dict[str, dict[str, bool]]:
    """``"case|register"`` -> criterion -> met. A bad or repeated line is an error naming the file and line."""
    marks: dict[str, dict[str, bool]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise NaturalFormatError(f"{path}: cannot read: {exc}") from exc
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            mark = ItemMark.model_validate_json(line)
        except ValidationError as exc:
            raise NaturalFormatError(f"{path}:{lineno}: {_error_text(exc)}") from exc
        per = marks.setdefault(f"{mark.case}|{mark.register_}", {})
        if mark.criterion in per:
            raise NaturalFormatError(f"{path}:{lineno}: {mark.case} {mark.register_}: criterion marked twice: "
                                     f"{mark.criterion!r}")
        per[mark.criterion] = mark.met
    return marks


def needs_mark(item: RubricItem) -> bool:
    """Whether clinicians mark ``item`` on every natural consultation: every rule-checked item but the final
    message's word limit (counted exactly by the grader) and addressing the grader (no natural consultation
    does)."""
    return (item.check is not None and item.check.kind != "word_limit"
            and not item.criterion.startswith("Addresses a grader"))


# --------------------------------------------------------------------------- rubric item -> group
def item_group(item: RubricItem) -> Group | None:
    """The annotation group a rubric item belongs to, or None (penalties, judge-only items, the rest).
    Decided by check kind, tags and criterion wording, so it survives a rewording of the rubric."""
    if item.points <= 0 or item.check is None:
        return None
    kind, tags, text = item.check.kind, set(item.tags), item.criterion.lower()
    if kind == "diagnosis_matches":
        return "diagnosis"
    if kind == "differential":
        return "differential"
    if kind == "word_limit":
        return "focused"
    if kind == "ordered_test":
        return "tests"
    if "red flag" in text:
        return "red_flags"
    if "allerg" in text:
        return "allergies"
    if text.startswith("gives safety-netting"):
        return "safety_net"
    if text.startswith("acknowledges"):
        return "empathy"
    if "cluster:history" in tags:
        return "history"
    if "cluster:triage" in tags and SAFETY in tags:
        return "emergency_now"
    if tags & {"cluster:triage", "cluster:plan"} and PLAN in tags:
        return "disposition"
    return None


# --------------------------------------------------------------------------- one graded consultation
class ItemMiss(BaseModel):
    group: str
    criterion: str


class ConsultationResult(_Model):
    case_id: str
    register_: Register = Field(alias="register")
    heldout: bool
    reward: float | None  # None: could not be graded
    reference: float | None  # the exact-wording reference on the same case
    annotated: int = 0  # decided positive rule-checked items a clinician marked met (or in an annotated group)
    credited: int = 0
    items_unscored: int = 0  # such items the grader left undecided
    marked: int = 0  # of ``annotated``, the items decided by a clinician's item mark
    missed: list[ItemMiss] = Field(default_factory=list)
    false_credits: list[str] = Field(default_factory=list)  # credited, but the clinician marked them not met
    penalties: list[str] = Field(default_factory=list)  # negative items met (false penalties)
    confirmed_penalties: list[str] = Field(default_factory=list)  # ... that a clinician marked as done
    missed_penalties: list[str] = Field(default_factory=list)  # marked as done by a clinician, not met here
    group_annotated: int = 0  # the same, by the writer's groups alone (the figure before item marks)
    group_credited: int = 0
    # the reward with the clinician's marks in place of the grader's verdicts (None: no marks, or not graded):
    # what the same rubric pays this consultation when a clinician decides every item it can
    clinician_reward: float | None = None

    @property
    def split(self) -> Split:
        return "heldout" if self.heldout else "tune"


def score_consultation(items: Sequence[RubricItem], result: VerifyResult, met: Iterable[str], *, case_id: str,
                       register: Register, heldout: bool, reference: float | None,
                       marks: Mapping[str, bool] | None = None) -> ConsultationResult:
    """Item recall, false credits and false penalties of one graded consultation (``result.criteria`` in rubric
    order). ``marks``: a clinician's call per criterion; an item without one counts when its group is in
    ``met``."""
    if len(result.criteria) != len(items):
        raise ValueError(f"{case_id}: {len(result.criteria)} graded criteria for {len(items)} rubric items")
    annotated = set(met)
    marks = marks or {}
    out = ConsultationResult(case_id=case_id, register=register, heldout=heldout, reward=reward_of(result),
                             reference=reference)
    if out.reward is None:
        return out
    for item, graded in zip(items, result.criteria, strict=True):
        if graded.criterion != item.criterion:
            raise ValueError(f"{case_id}: graded criterion {graded.criterion!r} is not rubric item {item.criterion!r}")
        mark = marks.get(item.criterion)
        if item.points < 0:
            if graded.met is True:
                (out.confirmed_penalties if mark is True else out.penalties).append(item.criterion)
            elif graded.met is False and mark is True:
                out.missed_penalties.append(item.criterion)
            continue
        group = item_group(item)
        if group is None:
            continue
        counts = mark if mark is not None else group in annotated
        if graded.met is None:
            out.items_unscored += counts
            continue
        if group in annotated:
            out.group_annotated += 1
            out.group_credited += graded.met
        if mark is False and graded.met:
            out.false_credits.append(item.criterion)
        if not counts:
            continue
        out.annotated += 1
        out.marked += mark is not None
        if graded.met:
            out.credited += 1
        else:
            out.missed.append(ItemMiss(group=group, criterion=item.criterion))
    if marks:
        decided = [c.model_copy(update={"met": marks[c.criterion]}) if c.criterion in marks and c.met is not None
                   else c for c in result.criteria]
        score = example_score(decided)
        out.clinician_reward = None if score is None else min(1.0, max(0.0, score))
    return out


# --------------------------------------------------------------------------- figures (pure)
class RecallFigures(_Model):
    split: Split
    register_: str = Field(alias="register")  # a register, or "all"
    consultations: int = 0
    unscored: int = 0  # consultations that could not be graded
    reference_unscored: int = 0  # ... whose case's reference could not be graded
    cases: int = 0
    natural_mean: float | None = None
    reference_mean: float | None = None
    ratio: float | None = None  # natural_mean / reference_mean over the consultations both scored
    min_case_ratio: float | None = None  # a case's mean over its consultations here / its reference
    min_case: str | None = None
    items_annotated: int = 0
    items_credited: int = 0
    items_unscored: int = 0
    item_recall: float | None = None
    items_marked: int = 0  # of items_annotated, those a clinician's item mark decided
    clinician_consultations: int = 0  # consultations with a clinician's marks, graded
    clinician_ratio: float | None = None  # their mean reward / their mean reward with the clinician's marks
    group_item_recall: float | None = None  # by the writers' groups alone, without the item marks
    missed_by_group: dict[str, int] = Field(default_factory=dict)
    false_credits: int = 0  # credited items a clinician marked not met
    false_credit_criteria: dict[str, int] = Field(default_factory=dict)
    false_penalties: int = 0
    false_penalty_criteria: dict[str, int] = Field(default_factory=dict)
    confirmed_penalties: int = 0  # penalties met that a clinician confirms the consultation earned
    missed_penalties: int = 0  # penalties a clinician marked as earned that the grader did not give


def recall_figures(results: Sequence[ConsultationResult], split: Split, register: str) -> RecallFigures:
    """The figures of the consultations of one split and register (``"all"``: every register)."""
    chosen = [r for r in results if r.split == split and register in (ALL, r.register_)]
    figures = RecallFigures(split=split, register=register, consultations=len(chosen))
    scored = [r for r in chosen if r.reward is not None]
    figures.unscored = len(chosen) - len(scored)
    figures.reference_unscored = sum(1 for r in chosen if r.reference is None)
    figures.cases = len({r.case_id for r in chosen})
    paired = [r for r in scored if r.reference is not None]
    if paired:
        figures.natural_mean = round(fmean(r.reward for r in paired), 4)  # type: ignore[misc]
        figures.reference_mean = round(fmean(r.reference for r in paired), 4)  # type: ignore[misc]
        if figures.reference_mean > 0:
            figures.ratio = round(figures.natural_mean / figures.reference_mean, 4)
        by_case: dict[str, list[ConsultationResult]] = {}
        for r in paired:
            by_case.setdefault(r.case_id, []).append(r)
        ratios = {case: fmean(r.reward for r in rs) / rs[0].reference  # type: ignore[misc, operator]
                  for case, rs in by_case.items() if rs[0].reference}
        if ratios:
            figures.min_case = min(ratios, key=lambda c: (ratios[c], c))
            figures.min_case_ratio = round(ratios[figures.min_case], 4)
    figures.items_annotated = sum(r.annotated for r in scored)
    figures.items_credited = sum(r.credited for r in scored)
    figures.items_unscored = sum(r.items_unscored for r in scored)
    if figures.items_annotated:
        figures.item_recall = round(figures.items_credited / figures.items_annotated, 4)
    figures.items_marked = sum(r.marked for r in scored)
    marked = [r for r in scored if r.clinician_reward is not None]
    figures.clinician_consultations = len(marked)
    clinician_mean = fmean(r.clinician_reward for r in marked) if marked else 0.0  # type: ignore[misc]
    if clinician_mean > 0:
        figures.clinician_ratio = round(fmean(r.reward for r in marked) / clinician_mean, 4)  # type: ignore[misc]
    group_annotated = sum(r.group_annotated for r in scored)
    if group_annotated:
        figures.group_item_recall = round(sum(r.group_credited for r in scored) / group_annotated, 4)
    figures.missed_by_group = dict(sorted(Counter(m.group for r in scored for m in r.missed).items()))
    credits = Counter(c for r in scored for c in r.false_credits)
    figures.false_credits = sum(credits.values())
    figures.false_credit_criteria = dict(credits.most_common())
    penalties = Counter(p for r in scored for p in r.penalties)
    figures.false_penalties = sum(penalties.values())
    figures.false_penalty_criteria = dict(penalties.most_common())
    figures.confirmed_penalties = sum(len(r.confirmed_penalties) for r in scored)
    figures.missed_penalties = sum(len(r.missed_penalties) for r in scored)
    return figures


# --------------------------------------------------------------------------- the quality ladder
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ORDER = re.compile(r"REQUEST\s+(?:TEST|EXAM|EXAMINATION)\s*:", re.IGNORECASE)  # as verifier.markers reads it
RUNGS = ("natural", "no_history", "no_orders", "wrong_diagnosis", "best_exploit")


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().rstrip("\"')]").endswith("?")


def _diagnosis_turn(turns: Sequence[str]) -> int:
    """The index of the last turn that states a diagnosis (else the last turn)."""
    for index in range(len(turns) - 1, -1, -1):
        if parse_diagnosis(turns[index]) is not None:
            return index
    return len(turns) - 1


def _keep_turns(turns: Sequence[str], edit: Callable[[str], str], *, upto: int) -> list[str]:
    """``edit`` applied to every turn before index ``upto``; turns left empty are dropped."""
    out = []
    for index, turn in enumerate(turns):
        text = edit(turn) if index < upto else turn
        if text.strip():
            out.append(text)
    return out


def without_questions(turns: Sequence[str]) -> list[str]:
    """The history questions taken out: question sentences removed from every turn before the diagnosis
    (protocol lines kept), and turns that were only questions dropped."""
    def edit(turn: str) -> str:
        lines = []
        for line in turn.splitlines():
            if parse_diagnosis(line) is not None:
                lines.append(line)
                continue
            order = _ORDER.search(line)
            prose, marker = (line[: order.start()], line[order.start():]) if order else (line, "")
            kept = " ".join(s for s in _SENTENCE_END.split(prose.strip()) if s and not _is_question(s))
            if f"{kept} {marker}".strip():
                lines.append(f"{kept} {marker}".strip())
        return "\n".join(lines)

    return _keep_turns(turns, edit, upto=_diagnosis_turn(turns))


def without_orders(turns: Sequence[str]) -> list[str]:
    """Every ``REQUEST TEST:`` / ``REQUEST EXAM:`` order cut from its line (lines and turns left empty dropped)."""
    def edit(turn: str) -> str:
        lines = [line[: order.start()].rstrip() if (order := _ORDER.search(line)) else line for line in turn.splitlines()]
        return "\n".join(line for line in lines if line.strip())

    return _keep_turns(turns, edit, upto=len(turns))


def wrong_diagnosis(case: Case) -> str:
    """The case's first differential, else a fixed condition unrelated to it."""
    if case.differential:
        return case.differential[0]
    return WRONG_DIAGNOSIS_HEADACHE if "headache" in case.final_diagnosis.lower() else WRONG_DIAGNOSIS


def with_diagnosis(turns: Sequence[str], diagnosis: str) -> list[str]:
    """The ``DIAGNOSIS:`` line of the diagnosis turn replaced by ``DIAGNOSIS: <diagnosis>`` (added on top
    of the last turn when there is none)."""
    out = list(turns)
    index = _diagnosis_turn(out)
    lines = out[index].splitlines()
    for at, line in enumerate(lines):
        if parse_diagnosis(line) is not None:
            lines[at] = f"DIAGNOSIS: {diagnosis}"
            break
    else:
        lines.insert(0, f"DIAGNOSIS: {diagnosis}")
    out[index] = "\n".join(lines)
    return out


def asks_for_tests(case: Case) -> bool:
    """Whether the case's rubric credits ordering any test (a record without results asks for none)."""
    return any(i.check is not None and i.check.kind == "ordered_test" for i in build_case_rubric(case).items)


def ladder_turns(case: Case, turns: Sequence[str]) -> dict[str, list[str]]:
    """The text rungs of the ladder, each the natural consultation with one thing taken away: its history
    questions, its orders, its right diagnosis (replaced by a wrong one)."""
    return {"natural": list(turns), "no_history": without_questions(turns), "no_orders": without_orders(turns),
            "wrong_diagnosis": with_diagnosis(turns, wrong_diagnosis(case))}


class Rung(BaseModel):
    name: str
    reward: float | None
    detail: str = ""  # the exploit that was best, for the last rung
    # the unclipped score (the verifier's scores["overall"], which the multi-turn stage trains on): where two rungs'
    # rewards tie at the clip's bound (both 0), it tells whether the training signal still orders them
    score: float | None = None


class CaseLadder(_Model):
    case_id: str
    heldout: bool
    register_: str = Field(alias="register")  # of the natural consultation the ladder is built from
    reference: float | None
    rungs: list[Rung]
    ordered: bool = False
    reason: str = ""  # why it is not ordered
    by_score: bool = False  # ordered only through the unclipped score, where two rewards tie at the clip's bound


# Which rung must score strictly below which: a good consultation above one missing its history or its
# orders; both above the right process ending in the wrong diagnosis; that above the best exploit.
LADDER_ORDER = (("natural", "no_history"), ("natural", "no_orders"), ("no_history", "wrong_diagnosis"),
                ("no_orders", "wrong_diagnosis"), ("wrong_diagnosis", "best_exploit"))


CLIP_BOUNDS = (0.0, 1.0)  # a reward is clipped to these; a tie at one hides an order the unclipped score may keep


def _strictly_below(lower: Rung, upper: Rung) -> tuple[bool, bool]:
    """(ordered, by the unclipped score only): ``lower`` scores strictly below ``upper``. Rewards that tie at the
    clip's bound (the right process with the wrong diagnosis and an exploit, both 0) are told apart by the unclipped
    score, where both have one; any other tie is a fault."""
    low, high = lower.reward or 0.0, upper.reward or 0.0
    if low < high:
        return True, False
    if low == high and low in CLIP_BOUNDS and lower.score is not None and upper.score is not None:
        return lower.score < upper.score, True
    return False, False


def judge_ladder(ladder: CaseLadder, min_ratio: float = LADDER_MIN_RATIO) -> CaseLadder:
    """Ordered: the natural rung >= ``min_ratio`` x the reference and every pair of ``LADDER_ORDER`` strictly
    ordered (two rewards tied at the clip's bound by their unclipped scores: ``by_score``). Any rung that could not be
    graded leaves the ladder unordered. ``reason`` lists every fault."""
    missing = [r.name for r in ladder.rungs if r.reward is None]
    if ladder.reference is None or missing:
        reason = f"unscored: {', '.join((['reference'] if ladder.reference is None else []) + missing)}"
        return ladder.model_copy(update={"ordered": False, "reason": reason})
    faults = []
    first = ladder.rungs[0].reward or 0.0
    if first < min_ratio * ladder.reference:
        faults.append(f"natural {first:.3f} < {min_ratio:g} x reference {ladder.reference:.3f}")
    rungs = {r.name: r for r in ladder.rungs}
    by_score = False
    for above, below in LADDER_ORDER:
        upper, lower = rungs.get(above), rungs.get(below)
        if upper is None or lower is None:
            continue
        ordered, tie = _strictly_below(lower, upper)
        by_score |= ordered and tie
        if not ordered:
            scores = f" (unclipped {lower.score:.3f} >= {upper.score:.3f})" if tie else ""
            faults.append(f"{lower.name} {lower.reward:.3f} >= {upper.name} {upper.reward:.3f}{scores}")
    return ladder.model_copy(update={"ordered": not faults, "reason": "; ".join(faults),
                                     "by_score": by_score and not faults})


class LadderFigures(BaseModel):
    split: Split
    cases: int = 0
    ordered: int = 0
    share: float | None = None
    not_ordered: list[str] = Field(default_factory=list)  # "case-id: reason"
    by_score: int = 0  # of those ordered, how many only through the unclipped score (a tie at the clip's bound)


def ladder_figures(ladders: Sequence[CaseLadder], split: Split) -> LadderFigures:
    chosen = [ladder for ladder in ladders if (ladder.heldout if split == "heldout" else not ladder.heldout)]
    ordered = sum(1 for ladder in chosen if ladder.ordered)
    return LadderFigures(split=split, cases=len(chosen), ordered=ordered,
                         share=round(ordered / len(chosen), 4) if chosen else None,
                         by_score=sum(1 for ladder in chosen if ladder.ordered and ladder.by_score),
                         not_ordered=[f"{ladder.case_id}: {ladder.reason}" for ladder in chosen if not ladder.ordered])


# --------------------------------------------------------------------------- the report
class RecallReport(BaseModel):
    case_set: str  # "project", "agentclinic", ...
    source: str  # the natural-consultation file
    cases: int
    consultations: int
    figures: list[RecallFigures]
    ladder: list[LadderFigures]
    ladders: list[CaseLadder]
    results: list[ConsultationResult]
    notes: list[str] = Field(default_factory=list)

    def figure(self, split: str, register: str = ALL) -> RecallFigures | None:
        return next((f for f in self.figures if f.split == split and f.register_ == register), None)


def summarise(results: Sequence[ConsultationResult], ladders: Sequence[CaseLadder], *, case_set: str, source: str,
              notes: Sequence[str] = ()) -> RecallReport:
    """Every split's figures per register (those present) and over all registers, and the ladder shares."""
    figures = []
    splits = [s for s in SPLITS if any(r.split == s for r in results)]
    for split in splits:
        present = [g for g in REGISTERS if any(r.split == split and r.register_ == g for r in results)]
        figures.extend(recall_figures(results, split, register) for register in [*present, ALL])  # type: ignore[arg-type]
    return RecallReport(
        case_set=case_set, source=source, cases=len({r.case_id for r in results}), consultations=len(results),
        figures=figures, ladder=[ladder_figures(ladders, s) for s in splits], ladders=list(ladders),
        results=list(results), notes=list(notes),
    )


# --------------------------------------------------------------------------- grading (I/O)
def _unclipped(result: VerifyResult | None) -> float | None:
    """The verifier's unclipped score of a graded request (None where it could not grade)."""
    if result is None or reward_of(result) is None or "overall" not in result.scores:
        return None
    return float(result.scores["overall"])


def guesses_right(policy: AuditPolicy[Case], case: Case) -> bool:
    """Whether ``policy``'s consultation on ``case`` ends in the case's own diagnosis."""
    request = policy.build(case)
    return request is not None and final_diagnosis_match(request.trajectory, case).matched


def natural_request(case: Case, turns: Sequence[str]) -> MedicalVerifyRequest:
    """A natural consultation as the audit submits its reference: fixed patient replies, rule grading."""
    return MedicalVerifyRequest(task=ConsultationTask(case=case), trajectory=doctors.dialogue(case, list(turns)),
                                options=MedicalOptions(grading="rule"))


async def recall_audit(
    cases: Sequence[Case], natural: NaturalSet, *, case_set: str, precision: AuditReport | None = None,
    concurrency: int = 8, progress: Callable[[str], None] | None = None, ladders: bool = True,
) -> RecallReport:
    """Grade every natural consultation of ``natural`` on ``cases`` and build the report. The reference's and
    the case-independent exploits' rewards come from ``precision`` (the exploit audit run on the same cases)
    where it has them, and are graded here otherwise. ``ladders=False`` leaves the quality ladders (and the
    exploits they need) out: the per-register figures alone."""
    by_id = {c.id: c for c in cases}
    unknown = [e.case for e in natural.entries if e.case not in by_id]
    if unknown:
        raise NaturalFormatError(f"{natural.source}: cases not among those audited: {', '.join(unknown[:5])}")
    say = progress or (lambda _note: None)
    suite = medical_suite([by_id[e.case] for e in natural.entries])
    semaphore = asyncio.Semaphore(concurrency)

    async def grade(request: Any) -> VerifyResult | None:
        if request is None:
            return None
        async with semaphore:
            return await suite.verify(request)

    async def rewards(requests: list[Any]) -> list[float | None]:
        graded = await asyncio.gather(*(grade(r) for r in requests))
        return [None if g is None else reward_of(g) for g in graded]

    ids = [e.case for e in natural.entries]

    async def policy_rewards(policy: AuditPolicy[Case], audited: PolicyAudit | None) -> dict[str, float | None]:
        known = {i: audited.rewards[i] for i in ids if i in audited.rewards} if audited else {}
        todo = [i for i in ids if i not in known]
        known.update(zip(todo, await rewards([policy.build(by_id[i]) for i in todo]), strict=True))
        return known

    reference = await policy_rewards(suite.reference, precision.reference if precision else None)
    audited = {p.name: p for p in precision.exploits} if precision else {}
    exploit_policies = {p.name: p for p in suite.exploits if p.case_independent}
    exploits = {name: await policy_rewards(p, audited.get(name)) for name, p in exploit_policies.items()} \
        if ladders else {}
    say("reference and exploits")

    jobs = [(e, c) for e in natural.entries for c in e.consultations]
    graded = await asyncio.gather(*(grade(natural_request(by_id[e.case], c.turns)) for e, c in jobs))
    results = [score_consultation(build_case_rubric(by_id[e.case]).items, g, c.met, case_id=e.case,  # type: ignore[arg-type]
                                  register=c.register_, heldout=e.heldout, reference=reference[e.case],
                                  marks=natural.marks_for(e.case, c.register_))
               for (e, c), g in zip(jobs, graded, strict=True)]
    say("natural consultations")

    async def ladder(entry: NaturalCase) -> CaseLadder:
        case = by_id[entry.case]
        first = next((c for c in entry.consultations if c.register_ == "gp_lay"), entry.consultations[0])
        texts = ladder_turns(case, first.turns)
        # A rubric that asks for no test cannot tell a consultation from itself without its orders: no such rung.
        names = [n for n in RUNGS[:-1] if n != "no_orders" or asks_for_tests(case)]
        graded = await asyncio.gather(*(grade(natural_request(case, texts[name])) for name in names))
        rungs = [Rung(name=name, reward=None if g is None else reward_of(g), score=_unclipped(g))
                 for name, g in zip(names, graded, strict=True)]
        # A fixed guess that happens to be this case's diagnosis ("Migraine" on the migraine case) is a lucky
        # guess, not a case-independent exploit: it is not held against the wrong-diagnosis rung.
        scored = {name: r[case.id] for name, r in exploits.items()
                  if r[case.id] is not None and not guesses_right(exploit_policies[name], case)}
        top = max(scored, key=lambda name: scored[name], default="")  # type: ignore[arg-type, return-value]
        best = Rung(name="best_exploit", reward=scored.get(top), detail=top)
        if top and scored[top] in CLIP_BOUNDS:  # tied at the bound: the best by the unclipped score
            tied = [name for name in scored if scored[name] == scored[top]]
            unclipped = await asyncio.gather(*(grade(exploit_policies[name].build(case)) for name in tied))
            ranked = [(s, name) for name, g in zip(tied, unclipped, strict=True) if (s := _unclipped(g)) is not None]
            if len(ranked) == len(tied):
                score, top = max(ranked)
                best = Rung(name="best_exploit", reward=scored[top], detail=top, score=score)
        rungs.append(best)
        return judge_ladder(CaseLadder(case_id=case.id, heldout=entry.heldout, register=first.register_,
                                       reference=reference[case.id], rungs=rungs))

    built = await asyncio.gather(*(ladder(e) for e in natural.entries)) if ladders else []
    say("ladders")
    notes = [f"{len(natural.skipped)} natural case(s) left out: not among the audited cases"] if natural.skipped else []
    criteria = {e.case: {i.criterion for i in build_case_rubric(by_id[e.case]).items} for e in natural.entries}
    stale = sum(crit not in criteria[e.case] for e in natural.entries for c in e.consultations
                for crit in natural.marks_for(e.case, c.register_))
    if stale:
        notes.append(f"{stale} clinician item mark(s) in {natural.marks_source} name no item of today's rubric "
                     "(reworded since they were written): those items count by the writers' groups")
    return summarise(results, built, case_set=case_set, source=natural.source, notes=notes)


# --------------------------------------------------------------------------- rendering
def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def render_recall_table(report: RecallReport) -> Any:
    """The report as a rich table (the CLI prints it beside the precision table)."""
    from rich.table import Table

    title = (f"recall audit: medical {report.case_set} ({report.cases} cases, {report.consultations} natural "
             f"consultations, {report.source})")
    shares = [f"{f.split} {f.ordered}/{f.cases}" + ("" if f.share is None else f" ({f.share:.2f})")
              + (f", {f.by_score} by the unclipped score" if f.by_score else "") for f in report.ladder]
    legend = ("ratio: to the exact-wording reference; lowest: the lowest case's ratio; clin.: to the same rubric "
              "decided by a clinician's item marks; recall: items a clinician marked met that were credited; "
              "false+: penalties met that no clinician confirmed; unsc.: could not be graded")
    ladder = f"quality ladder ordered: {', '.join(shares)}; " if shares else ""
    table = Table(title=title, caption=ladder + legend)
    # Short headers that fit 80 columns; which case is lowest is in recall_lines.
    for column in ("split", "register", "n", "ratio", "lowest", "clin.", "recall", "false+", "unsc."):
        table.add_column(column, justify="left" if column in {"split", "register"} else "right", no_wrap=True)
    for f in report.figures:
        table.add_row(f.split, f.register_, str(f.consultations), _num(f.ratio), _num(f.min_case_ratio),
                      _num(f.clinician_ratio), _num(f.item_recall), str(f.false_penalties), str(f.unscored),
                      style="bold" if f.register_ == ALL else None)
    return table


def recall_lines(report: RecallReport) -> list[str]:
    """What the table leaves out: the false penalties by criterion, the ladders that are not ordered."""
    lines = [f"note: {note}" for note in report.notes]
    lines += [f"lowest case ({f.split}): {f.min_case} {_num(f.min_case_ratio)}" for f in report.figures
              if f.register_ == ALL and f.min_case]
    for f in report.figures:
        if f.register_ == ALL:
            lines.extend(f"false penalty ({f.split}, {n}x): {criterion}"
                         for criterion, n in f.false_penalty_criteria.items())
            if f.false_credits:
                lines.append(f"false credits ({f.split}): {f.false_credits} items credited that a clinician marked "
                             "not met")
    for ladder in report.ladder:
        lines.extend(f"ladder not ordered ({ladder.split}): {case}" for case in ladder.not_ordered)
    return lines
