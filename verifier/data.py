"""Where the project's shipped data is: one locator for every package.

The data (cases, rubric tasks, rule items, code/search/GUI tasks, the GUI pages, the train YAMLs)
lives in ``data/`` at the top of a source checkout. A wheel carries the same folder as the
``medverifier_data`` package (``pyproject.toml`` maps ``data/`` to it), installed beside
``verifier``. ``MEDVERIFIER_DATA_DIR`` points everything at another copy (e.g. an edited task set).
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "MEDVERIFIER_DATA_DIR"
WHEEL_PACKAGE = "medverifier_data"
_ROOT = Path(__file__).resolve().parents[1]  # the folder holding the ``verifier`` package


def data_dir() -> Path:
    """The data folder: ``$MEDVERIFIER_DATA_DIR``, else the installed ``medverifier_data``, else ``data/``.

    Nothing is checked beyond the override: a missing file is reported by whoever opens it, with its
    full path, so importing a package never fails for want of data it may not need.
    """
    override = os.environ.get(ENV_VAR)
    if override:
        path = Path(override).expanduser().resolve()
        if not path.is_dir():
            raise FileNotFoundError(f"{ENV_VAR}={override!r}: no such folder")
        return path
    installed = _ROOT / WHEEL_PACKAGE
    # the source checkout's folder, unless a wheel put its copy beside the code
    return installed if installed.is_dir() else _ROOT / "data"


def data_path(path: str | Path) -> Path:
    """A path as the project's own files write it (``data/rule/train.jsonl``, in a train YAML).

    An absolute path, or one that exists from the current directory, is used as it is; otherwise a
    leading ``data/`` means the data folder, wherever it is installed.
    """
    candidate = Path(path).expanduser()
    if candidate.is_absolute() or candidate.exists():
        return candidate
    parts = candidate.parts
    return data_dir().joinpath(*parts[1:]) if parts and parts[0] == "data" else _ROOT / candidate
