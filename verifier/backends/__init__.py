"""Verifier backends, one file per domain: medical, code, search, gui.

This package's own module holds what the backends share (and imports none of them):
``verifier.registry.default_backends()`` builds the code, search and GUI backends (they need nothing
injected); the medical backend needs a rubric generator and a grader, so the composition root builds it.
Each backend ships its tasks under ``data/<domain>/`` (``DATA_DIR``, found by ``verifier.data``) as
JSONL records of a task, a known correct trajectory and a wrong one; ``load_records`` reads them with
errors naming file, line and field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from verifier.data import data_dir

DATA_DIR = data_dir()  # data/ in a checkout, medverifier_data/ in a wheel (verifier/data.py)

M = TypeVar("M", bound=BaseModel)


class RecordError(ValueError):
    """A data file line that does not validate; the message names file, line and field."""


def load_records(path: str | Path, model: type[M]) -> list[M]:
    path = Path(path)
    records: list[M] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                records.append(model.model_validate(json.loads(line)))
            except json.JSONDecodeError as exc:
                raise RecordError(f"{path}:{number}: invalid JSON: {exc.msg} (column {exc.colno})") from None
            except ValidationError as exc:
                first = exc.errors()[0]
                field = ".".join(str(p) for p in first["loc"]) or "<record>"
                raise RecordError(f"{path}:{number}: field {field}: {first['msg']}") from None
    return records
