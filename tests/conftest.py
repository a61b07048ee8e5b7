"""Fixtures shared by the whole suite.

The embedded model is loaded once per session and shared: tests that use it take ``embedded`` (the
``LoadedModel``) or ``local_client`` (a ``LocalChatClient`` over it).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock
from pydantic import BaseModel

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# With PYTHONDONTWRITEBYTECODE set (as it is where the suite is timed) no bytecode is ever written, and uv installs
# the packages without any (only pip's torch comes compiled): every Python process of the suite (each pytest-xdist
# worker, each server, CLI, bench and Ray worker subprocess) compiled transformers, trl, ray, fastapi, pydantic and
# the project from source again, half of the 6 s of CPU that importing serving.app takes. The bytecode goes to one
# cache outside the source trees instead (what PYTHONDONTWRITEBYTECODE keeps clean), written by the first process
# that imports a module and read by every later one; subprocesses the tests start inherit it. (The code sandbox's
# interpreter runs isolated, -I, and reads neither variable.)
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    _HOME = Path(os.environ.get("MEDVERIFIER_HOME") or Path.home() / ".cache" / "medverifier").expanduser()
    os.environ["PYTHONPYCACHEPREFIX"] = str(_HOME / "pycache")
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False
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


M = TypeVar("M", bound=BaseModel)


class RunShared:
    """Values computed once per test run and read by every pytest-xdist worker: a module fixture is otherwise built
    again in each worker that runs one of its tests (the exploit audits, 40 to 80 s each on two cores). The first
    worker to ask computes under a file lock and writes the value as JSON; the others wait for the lock and read it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get(self, name: str, model: type[M], compute: Callable[[], M]) -> M:
        path = self.root / f"{name}.json"
        with FileLock(f"{path}.lock"):
            if path.is_file():
                return model.model_validate_json(path.read_text())
            value = compute()
            path.write_text(value.model_dump_json())
            return value

    def folder(self, name: str, build: Callable[[Path], None]) -> Path:
        """A folder ``build`` fills once per run (a tiny training run's output); the others wait for it."""
        path = self.root / name
        with FileLock(f"{path}.lock"):
            if not (path / ".built").is_file():
                shutil.rmtree(path, ignore_errors=True)
                path.mkdir()
                build(path)
                (path / ".built").touch()
        return path


@pytest.fixture(scope="session")
def run_shared(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> RunShared:
    """The run's shared values: in the folder above the workers' own temporary folders (new for every run), or the
    session's own one without workers."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if worker_id != "master" else base) / "run-shared"
    root.mkdir(exist_ok=True)
    return RunShared(root)
