"""YAML read with libyaml's C parser where PyYAML has it (its wheels do): the clinical-language data, the
case files and the natural consultations are read at start-up and by every test worker, and the
pure-Python parser spent seconds on them. Same safe subset, same errors (``yaml.YAMLError`` with marks)."""

from __future__ import annotations

import yaml

SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> object:
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader


def compose(text: str) -> yaml.Node | None:
    return yaml.compose(text, Loader=SafeLoader)
