from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private $MEDVERIFIER_HOME (judge cache, runs) so tests never share state with a user's."""
    home = tmp_path / "home"
    monkeypatch.setenv("MEDVERIFIER_HOME", str(home))
    monkeypatch.setenv("MEDVERIFIER_PROGRESS", "0")
    return home
