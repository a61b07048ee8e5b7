"""HealthBench-format records (``prompt``, ``prompt_id``, ``rubrics``, ``example_tags``,
``ideal_completions_data``) and graded-response files, loaded with errors that name file, line and field.

A real HealthBench JSONL file loads unchanged; this project's records may add a machine ``check``
to rubric items. ``check_gradable`` refuses a grading set-up under which no item could be decided.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from verifier.types import Message, RubricItem, RubricTask

T = TypeVar("T", bound=BaseModel)

logger = logging.getLogger(__name__)

NO_GRADER_HINT = ("give a judge (--judge MODEL; --judge-base-url URL for a served one), or pass --grading rule "
                  "to run the rule checks alone")


class DataFileError(ValueError):
    """A bad record in a data file; ``str()`` names the file, the line and the field."""

    def __init__(self, path: str | Path, line: int, field: str, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        where = f"{self.path}:{line}" + (f": field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


class IdealCompletionsData(BaseModel):
    model_config = ConfigDict(extra="allow")

    ideal_completion: str | None = None
    ideal_completions_group: str | None = None
    ideal_completions_ref_completions: list[str] | None = None


class HealthBenchRecord(BaseModel):
    model_config = ConfigDict(extra="allow")

    prompt: list[Message] = Field(min_length=1)
    prompt_id: str = Field(min_length=1)
    rubrics: list[RubricItem] = Field(min_length=1)
    example_tags: list[str] = Field(default_factory=list)
    ideal_completions_data: IdealCompletionsData | None = None

    def to_task(self) -> RubricTask:
        return RubricTask(
            prompt=self.prompt, rubrics=self.rubrics, prompt_id=self.prompt_id, example_tags=self.example_tags
        )


class ResponseRecord(BaseModel):
    """One response to grade: ``{"prompt_id", "response"}`` (``completion`` is accepted as an alias)."""

    model_config = ConfigDict(extra="allow")

    prompt_id: str = Field(min_length=1)
    response: str

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: object) -> object:
        if isinstance(data, dict) and "response" not in data:
            for key in ("completion", "response_text", "output"):
                if key in data:
                    return {**data, "response": data[key]}
        return data


def _field(error: dict) -> str:
    return ".".join(str(part) for part in error.get("loc", ()))


def _load_jsonl(path: str | Path, model: type[T]) -> list[T]:
    path = Path(path)
    if not path.is_file():
        raise DataFileError(path, 0, "", "no such file")
    records: list[T] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataFileError(path, number, "", f"invalid JSON: {exc.msg} (column {exc.colno})") from None
            if not isinstance(data, dict):
                raise DataFileError(path, number, "", f"expected a JSON object, got {type(data).__name__}")
            try:
                records.append(model.model_validate(data))
            except ValidationError as exc:
                first = exc.errors()[0]
                raise DataFileError(path, number, _field(first), first["msg"]) from None
    return records


def load_healthbench(path: str | Path) -> list[HealthBenchRecord]:
    """Every record of a HealthBench-format JSONL file; duplicate ``prompt_id``s are an error."""
    records = _load_jsonl(path, HealthBenchRecord)
    seen: dict[str, int] = {}
    for index, record in enumerate(records):
        if record.prompt_id in seen:
            raise DataFileError(path, index + 1, "prompt_id", f"duplicate prompt_id {record.prompt_id!r}")
        seen[record.prompt_id] = index
    return records


def load_responses(path: str | Path) -> list[ResponseRecord]:
    return _load_jsonl(path, ResponseRecord)


class NotGradable(ValueError):
    """No rubric item could be decided with the grading that was asked for; the message names the options."""


def check_gradable(items: Iterable[RubricItem], *, grading: str, has_judge: bool) -> None:
    """Refuse, before any response is sampled or graded, a set-up in which no item could be decided.

    Without a judge only items with a machine ``check`` are decided; the rest are unscored. When none
    has one (any real HealthBench file), every response would be produced for nothing. An explicit
    ``grading="rule"`` is the user asking for exactly that, and is let through.
    """
    if grading == "rule" or has_judge:
        return
    items = list(items)
    checked = sum(1 for item in items if item.check is not None)
    if items and checked == 0:
        raise NotGradable(f"none of the {len(items)} rubric items has a rule check and no judge is configured, "
                          f"so every item would be unscored: {NO_GRADER_HINT}")
    if checked < len(items):
        logger.warning("%d of %d rubric items have no rule check and no judge: they stay unscored (%s)",
                       len(items) - checked, len(items), NO_GRADER_HINT)
