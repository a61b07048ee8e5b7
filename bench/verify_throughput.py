"""Verifier throughput per domain (code, search, GUI) at concurrency 1 and 8, and sandbox overhead.

Prints ONE JSON line. Tasks are the shipped ones (their correct trajectories), cycled to ``--tasks``
per measurement. The sandbox overhead is the mean wall time of a trivial program (``pass``) through
``Sandbox.run`` against a bare ``python -I -c pass`` subprocess, measured side by side.

    .venv/bin/python bench/verify_throughput.py [--tasks 24] [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verifier.backends.code import CodeBackend, load_code_tasks  # noqa: E402
from verifier.backends.gui import GuiBackend, load_gui_tasks  # noqa: E402
from verifier.backends.search import SearchBackend, load_search_tasks  # noqa: E402
from verifier.sandbox import Sandbox  # noqa: E402
from verifier.search_index import default_index  # noqa: E402


async def _throughput(backend, requests: list, concurrency: int) -> float:
    semaphore = asyncio.Semaphore(concurrency)

    async def one(request):
        async with semaphore:
            result = await backend.verify(request)
            if result.reward != 1.0:
                raise RuntimeError(f"{backend.domain}: a correct trajectory scored {result.reward}: {result.meta}")

    started = time.perf_counter()
    await asyncio.gather(*(one(r) for r in requests))
    return len(requests) / (time.perf_counter() - started)


def _cycle(records: list, n: int) -> list:
    return [records[i % len(records)].request() for i in range(n)]


async def main(tasks: int, runs: int) -> dict:
    figures: dict[str, float | int | str] = {"tasks_per_measurement": tasks}
    started = time.perf_counter()
    default_index()  # built once, outside the timed verifications; its build time is reported
    figures["search_index_build_s"] = round(time.perf_counter() - started, 4)
    gui = GuiBackend(max_concurrency=8)
    backends = {
        "code": (CodeBackend(Sandbox(max_concurrency=8)), load_code_tasks()),
        "search": (SearchBackend(), load_search_tasks()),
        "gui": (gui, load_gui_tasks()),
    }
    try:
        await gui.verify(load_gui_tasks()[0].request())  # start Chromium outside the timed part
        for domain, (backend, records) in backends.items():
            for concurrency in (1, 8):
                rate = await _throughput(backend, _cycle(records, tasks), concurrency)
                figures[f"{domain}_tasks_per_s_c{concurrency}"] = round(rate, 2)
            figures[f"{domain}_speedup_c8_vs_c1"] = round(
                figures[f"{domain}_tasks_per_s_c8"] / figures[f"{domain}_tasks_per_s_c1"], 2
            )
    finally:
        await gui.aclose()

    sandbox = Sandbox()
    await sandbox.run("pass")
    started = time.perf_counter()
    for _ in range(runs):
        result = await sandbox.run("pass")
        assert result.ok, result.stderr
    sandboxed = (time.perf_counter() - started) / runs
    started = time.perf_counter()
    for _ in range(runs):
        subprocess.run([sandbox.python, "-I", "-c", "pass"], check=True)
    bare = (time.perf_counter() - started) / runs
    figures.update(
        sandbox_run_ms=round(sandboxed * 1000, 2),
        bare_python_ms=round(bare * 1000, 2),
        sandbox_overhead_ms=round((sandboxed - bare) * 1000, 2),
        sandbox_vs_bare_ratio=round(sandboxed / bare, 2),
        sandbox_isolation=result.isolation,
    )
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=24, help="verifications per domain and concurrency")
    parser.add_argument("--runs", type=int, default=20, help="trivial programs for the sandbox overhead")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.tasks, args.runs))))
