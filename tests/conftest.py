"""Fixtures shared by the whole suite.

The embedded model is loaded once per session and shared: tests that use it take ``embedded`` (the
``LoadedModel``) or ``local_client`` (a ``LocalChatClient`` over it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def agentclinic_path() -> Path:
    """The external AgentClinic MedQA file; tests that need it skip when ../shared/data is absent."""
    path = SHARED_DATA / "agentclinic_medqa.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not present (the shared reference data is not laid out here)")
    return path


@pytest.fixture(scope="session")
def embedded():
    from policy.model import load_model

    return load_model("embedded")


@pytest.fixture(scope="session")
def local_client(embedded):
    from policy.engine.client import LocalChatClient

    return LocalChatClient(embedded, max_batch_size=8)
