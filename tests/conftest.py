"""Fixtures shared by the whole suite.

The embedded model is loaded once per session and shared: tests that use it take ``embedded`` (the
``LoadedModel``) or ``local_client`` (a ``LocalChatClient`` over it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# torch's OpenMP threads (libgomp) spin for a long while at the end of every parallel region by default
# (GOMP_SPINCOUNT 300000). Whenever anything else wants a core (another torch process a test starts, a
# second pytest-xdist worker, Chromium, anything else on the machine) the spinning threads take the cores
# from it and from each other, and generation runs 10-25 times slower (measured on two cores: 24 tokens
# of the embedded model in ~1 s alone, 14-28 s beside one busy process). A short spin keeps the speed of
# the default when the machine is quiet and loses little when it is not. Read once, when torch loads
# libgomp, so it is set here, before anything imports torch; subprocesses the tests start inherit it.
os.environ.setdefault("GOMP_SPINCOUNT", "10000")

# The torch threads one process of the project gets (the Makefile's OMP_NUM_THREADS: 2 on two cores).
PROCESS_THREADS = os.environ.get("OMP_NUM_THREADS") or str(os.cpu_count() or 1)
# Under pytest-xdist the cores are shared between the workers: each worker's torch gets its share, so two
# workers never run four threads on two cores (oversubscribed OpenMP threads spin against each other and
# run several times slower). Set before torch is imported; subprocesses the tests start inherit it.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    _THREADS = max(1, int(PROCESS_THREADS) // _WORKERS)
    os.environ["OMP_NUM_THREADS"] = str(_THREADS)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(_THREADS)

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
