"""Clinical cases: the project's YAML/JSONL format, the AgentClinic OSCE importer and case lookup.

The project's format is ``verifier.types.Case`` written as YAML (a list of case mappings, or one
mapping) or as JSONL (one case per line). Every error names the file, the line and the field::

    data/cases/cardiology.yaml:41: case 'acs-stemi': field 'final_diagnosis': Field required
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from verifier import yamlfile
from verifier.data import data_dir
from verifier.types import Case, Demographics

logger = logging.getLogger(__name__)

PROJECT_CASES_DIR = data_dir() / "cases"
_CASE_SUFFIXES = (".yaml", ".yml", ".jsonl", ".json")


class CaseFormatError(ValueError):
    """A case file that cannot be read; the message names the file, the line and the field."""

    def __init__(self, path: Path | str, line: int | None, field: str | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.reason = message
        where = f"{self.path}:{line}" if line is not None else self.path
        what = f" field '{field}':" if field else ""
        super().__init__(f"{where}:{what} {message}")


class CaseNotFoundError(LookupError):
    """``find_case`` was given an id that no project case has."""


# --------------------------------------------------------------------------- project format
def load_cases(path: Path | str) -> list[Case]:
    """Read cases from a YAML/JSONL file, or from every such file of a folder (sorted by name)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in _CASE_SUFFIXES)
        cases = [case for file in files for case in load_cases(file)]
        _check_unique(cases, path)
        return cases
    if not path.is_file():
        raise CaseFormatError(path, None, None, "no such file or folder")
    if path.suffix in (".jsonl", ".json"):
        cases = _load_jsonl(path)
    elif path.suffix in (".yaml", ".yml"):
        cases = _load_yaml(path)
    else:
        raise CaseFormatError(path, None, None, f"unknown case file type {path.suffix!r} (use .yaml or .jsonl)")
    _check_unique(cases, path)
    return cases


def project_cases() -> list[Case]:
    """All the project's own cases in ``data/cases/``."""
    return load_cases(PROJECT_CASES_DIR)


def find_case(id_or_path: str) -> Case:
    """A project case id, a file holding one case, or ``FILE#ID``."""
    if "#" in id_or_path:
        file, _, case_id = id_or_path.rpartition("#")
        cases = _load_any(Path(file))
        for case in cases:
            if case.id == case_id:
                return case
        raise CaseNotFoundError(f"{file}: no case with id {case_id!r} (ids: {_preview(cases)})")
    path = Path(id_or_path)
    if path.is_file():
        cases = _load_any(path)
        if len(cases) != 1:
            raise CaseNotFoundError(f"{path}: holds {len(cases)} cases; pick one with {path}#ID")
        return cases[0]
    cases = project_cases()
    for case in cases:
        if case.id == id_or_path:
            return case
    raise CaseNotFoundError(
        f"unknown case {id_or_path!r}: not a file and not a project case id (ids: {_preview(cases)})"
    )


def _load_any(path: Path) -> list[Case]:
    if path.suffix == ".jsonl" and _looks_like_agentclinic(path):
        return import_agentclinic(path)
    return load_cases(path)


def _looks_like_agentclinic(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
        return "OSCE_Examination" in first
    except OSError:
        return False


def _preview(cases: list[Case], n: int = 8) -> str:
    ids = [c.id for c in cases[:n]]
    return ", ".join(ids) + (", ..." if len(cases) > n else "")


def _check_unique(cases: list[Case], path: Path) -> None:
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise CaseFormatError(path, None, "id", f"duplicate case id {case.id!r}")
        seen.add(case.id)


def _load_jsonl(path: Path) -> list[Case]:
    cases = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CaseFormatError(path, lineno, None, f"invalid JSON: {exc.msg} (column {exc.colno})") from exc
        cases.append(_validate(data, path, lambda _field, n=lineno: n))
    return cases


def _load_yaml(path: Path) -> list[Case]:
    text = path.read_text(encoding="utf-8")
    try:
        root = yamlfile.compose(text)
        data = yamlfile.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise CaseFormatError(path, line, None, f"invalid YAML: {getattr(exc, 'problem', exc)}") from exc
    if data is None:
        return []
    if isinstance(data, dict):
        data, nodes = [data], [root]
    elif isinstance(data, list):
        nodes = list(root.value)
    else:
        raise CaseFormatError(path, 1, None, "expected a list of cases or one case mapping")
    cases = []
    for item, node in zip(data, nodes, strict=True):
        cases.append(_validate(item, path, lambda field, n=node: _yaml_line(n, field)))
    return cases


def _yaml_line(node: yaml.Node, field: str | None) -> int:
    """The line of ``field`` (a dotted path) inside a mapping node, else the node's own line."""
    current = node
    for part in (field or "").split(".") if field else []:
        found = None
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                if str(key.value) == part:
                    found = value if value.start_mark.line == key.start_mark.line else key
                    current = value
                    break
        elif isinstance(current, yaml.SequenceNode) and part.isdigit() and int(part) < len(current.value):
            current = found = current.value[int(part)]
        if found is None:
            break
        node = found
    return node.start_mark.line + 1


def _validate(data: Any, path: Path, line_of: Any) -> Case:
    if not isinstance(data, dict):
        raise CaseFormatError(path, line_of(None), None, f"expected a case mapping, got {type(data).__name__}")
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"]) or None
        case_id = data.get("id", "?")
        more = f" (and {exc.error_count() - 1} more errors)" if exc.error_count() > 1 else ""
        raise CaseFormatError(
            path, line_of(field), field, f"case {case_id!r}: {error['msg']}{more}"
        ) from exc


# --------------------------------------------------------------------------- AgentClinic importer
class SkippedRecord(BaseModel):
    """An AgentClinic record that could not be a case, and why (file, line, field)."""

    path: str
    line: int
    field: str | None = None
    reason: str

    def __str__(self) -> str:
        what = f" field '{self.field}':" if self.field else ""
        return f"{self.path}:{self.line}:{what} {self.reason}"


class AgentClinicImport(BaseModel):
    """What ``read_agentclinic`` made of a file: the cases, and the records it skipped."""

    path: str
    cases: list[Case]
    skipped: list[SkippedRecord] = Field(default_factory=list)

    def summary(self) -> str:
        return f"{len(self.cases)} imported, {len(self.skipped)} skipped"


def read_agentclinic(path: Path | str, *, strict: bool = False) -> AgentClinicImport:
    """AgentClinic's OSCE JSONL (MedQA/MIMIC shape) as cases ``agentclinic-0001``, ``-0002``, ...

    The number is the record's position in the file, so an id names the same record whatever else
    is skipped. Optional sections may be missing, empty or shaped differently (an empty ``Symptoms``
    object is an asymptomatic screening case: its chief complaint comes from the history, then the
    objective). A record that cannot be a case (not JSON, no diagnosis, nothing the patient
    presents with) is skipped and listed; with ``strict`` it fails the whole file instead.
    """
    path = Path(path)
    if not path.is_file():
        raise CaseFormatError(path, None, None, "no such file")
    result = AgentClinicImport(path=str(path), cases=[])
    number = 0
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        number += 1
        try:
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CaseFormatError(path, lineno, None, f"invalid JSON: {exc.msg} (column {exc.colno})") from exc
            result.cases.append(_osce_case(record, f"agentclinic-{number:04d}", path, lineno))
        except CaseFormatError as exc:
            if strict:
                raise
            result.skipped.append(SkippedRecord(path=str(path), line=lineno, field=exc.field, reason=exc.reason))
    if result.skipped:
        logger.warning("%s: %s (first: %s)", path, result.summary(), result.skipped[0])
    result.cases = apply_rubric_review(result.cases)
    return result


AGENTCLINIC_REVIEW = data_dir() / "agentclinic" / "rubric_review.jsonl"


class RubricReviewEntry(BaseModel):
    """One item two clinicians agreed an imported case's rubric should leave out (``data/agentclinic/``)."""

    model_config = ConfigDict(extra="forbid")

    case: str
    diagnosis: str  # the case's diagnosis: an entry applies only to the record it was written for
    leave_out: str  # a secondary symptom as recorded, a test as clinical.case_tests names it, or "onset"
    why: list[str] = Field(default_factory=list)


def load_rubric_review(path: Path = AGENTCLINIC_REVIEW) -> list[RubricReviewEntry]:
    """The clinicians' review of the AgentClinic cases' rubrics; a bad line is an error naming it."""
    entries = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                entries.append(RubricReviewEntry.model_validate_json(line))
            except ValidationError as exc:
                raise CaseFormatError(path, lineno, None, f"not a review entry: {exc.errors()[0]['msg']}") from exc
    return entries


def apply_rubric_review(cases: list[Case], path: Path = AGENTCLINIC_REVIEW) -> list[Case]:
    """``cases`` with what the review leaves out of each one's rubric. An entry applies where the case id and
    its diagnosis both match, so another AgentClinic file (or a reordered one) is left as it is."""
    if not path.is_file():
        return cases
    by_case: dict[tuple[str, str], list[str]] = {}
    for entry in load_rubric_review(path):
        by_case.setdefault((entry.case, entry.diagnosis), []).append(entry.leave_out)
    return [c.model_copy(update={"rubric_leaves_out": by_case[c.id, c.final_diagnosis]})
            if (c.id, c.final_diagnosis) in by_case else c for c in cases]


def import_agentclinic(path: Path | str, *, strict: bool = False) -> list[Case]:
    """The cases of ``read_agentclinic(path)`` (skipped records are logged, not raised)."""
    return read_agentclinic(path, strict=strict).cases


def _osce_case(record: Any, case_id: str, path: Path, lineno: int) -> Case:
    def section(mapping: dict, key: str, where: str) -> dict:
        value = mapping.get(key)
        if value is None or value == "" or value == []:
            return {}
        if not isinstance(value, dict):
            raise CaseFormatError(path, lineno, f"{where}{key}", f"expected an object, got {type(value).__name__}")
        return value

    if not isinstance(record, dict):
        raise CaseFormatError(path, lineno, None, f"expected a JSON object, got {type(record).__name__}")
    if "OSCE_Examination" not in record:
        raise CaseFormatError(path, lineno, "OSCE_Examination", "missing (not an AgentClinic OSCE record)")
    osce = section(record, "OSCE_Examination", "")
    diagnosis = _text(osce.get("Correct_Diagnosis"))
    if not diagnosis:
        field = "OSCE_Examination.Correct_Diagnosis"
        raise CaseFormatError(path, lineno, field, "empty" if "Correct_Diagnosis" in osce else "missing")
    actor = section(osce, "Patient_Actor", "OSCE_Examination.")
    primary, secondary = _symptoms(actor.get("Symptoms"))
    history = _text(actor.get("History"))
    objective = _text(osce.get("Objective_for_Doctor"))
    chief_complaint = primary or _first_sentence(history) or _first_sentence(objective)
    if not chief_complaint:
        raise CaseFormatError(path, lineno, "OSCE_Examination.Patient_Actor",
                              "nothing the patient presents with (no symptom, history or objective)")
    meds = actor.get("Current_Medications") or actor.get("Medications") or actor.get("Drug_History") or []
    return Case(
        id=case_id,
        title=objective,
        demographics=_parse_demographics(_text(actor.get("Demographics"))),
        chief_complaint=chief_complaint,
        history_of_present_illness=history,
        primary_symptoms=[primary] if primary else [],
        secondary_symptoms=secondary,
        past_medical_history=_items(actor.get("Past_Medical_History")),
        social_history=_items(actor.get("Social_History")),
        medications=_items(meds),
        review_of_systems=_items(actor.get("Review_of_Systems")),
        physical_exam=_flatten(osce.get("Physical_Examination_Findings"), "", "Physical examination"),
        test_results=_flatten(osce.get("Test_Results"), "", "Test results"),
        final_diagnosis=diagnosis,
        disposition="unknown",  # AgentClinic does not say how urgent a case is: no triage items
        source="agentclinic",
    )


def _symptoms(value: Any) -> tuple[str, list[str]]:
    """(primary, secondary) from ``Symptoms``: an object as AgentClinic writes it, a text, a list."""
    if isinstance(value, dict):
        return _text(value.get("Primary_Symptom")), _items(value.get("Secondary_Symptoms"))
    items = _items(value)
    return (items[0], items[1:]) if items else ("", [])


def _first_sentence(text: str, limit: int = 200) -> str:
    sentence = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[:limit].rsplit(" ", 1)[0] + "..."


def _parse_demographics(text: str) -> Demographics:
    age = None
    match = re.search(r"(\d+)[- ](year|month|week|day)s?[- ]old", text, re.IGNORECASE)
    if match:
        age = int(match.group(1)) if match.group(2).lower() == "year" else 0
    elif re.search(r"\b(?:newborn|neonate)\b", text, re.IGNORECASE):  # "Newborn, born after the 32nd gestational week"
        age = 0
    sex = None
    if re.search(r"\b(female|woman|girl|lady|mother)\b", text, re.IGNORECASE):
        sex = "female"
    elif re.search(r"\b(male|man|boy|gentleman|father)\b", text, re.IGNORECASE):
        sex = "male"
    return Demographics(age=age, sex=sex, description=text)


def _label(key: str) -> str:
    return key.replace("_", " ").strip()


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{_label(k)}: {_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value)
    return "" if value is None else str(value).strip()


def _items(value: Any) -> list[str]:
    if isinstance(value, list):
        return [t for t in (_text(v) for v in value) if t]
    if isinstance(value, dict):
        return [f"{_label(k)}: {_text(v)}" for k, v in value.items() if _text(v)]
    text = _text(value)
    return [text] if text else []


def _flatten(value: Any, prefix: str = "", label: str = "") -> dict[str, str]:
    """``{"Imaging": {"Chest_CT": {"Findings": "..."}}}`` -> ``{"Imaging > Chest CT > Findings": "..."}``;
    a section that is only a text (or a list) is kept under ``label``."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for key, inner in value.items():
            name = f"{prefix} > {_label(key)}" if prefix else _label(key)
            out.update(_flatten(inner, name))
    elif prefix:
        out[prefix] = _text(value)
    elif label and _text(value):
        out[label] = _text(value)
    return out
