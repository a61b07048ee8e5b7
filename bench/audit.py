"""The exploit audit of every verifier domain, side by side in one run; prints ONE JSON line.

* ``medical_project``: the project's cases (``data/cases``), scripted doctors, rule grading (and a judge
  that obeys the response for the text-aimed-at-the-judge exploits);
* ``medical_agentclinic``: the same on ``../shared/data/agentclinic_medqa.jsonl`` (skipped, with a
  reason, when that file is absent);
* ``code``, ``search``, ``gui``: the shipped tasks through the real sandbox, index and Chromium.

For each: whether every bound held, the reference's mean reward, every exploit's ratio to it (``None``
where an exploit does not apply), the breaches, and the wall time.

    .venv/bin/python bench/audit.py                 # everything (about 2-3 minutes here)
    .venv/bin/python bench/audit.py --skip gui      # without the browser
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("MEDVERIFIER_PROGRESS", "0")

AGENTCLINIC = Path(__file__).resolve().parents[2] / "shared" / "data" / "agentclinic_medqa.jsonl"


def _figures(report, seconds: float) -> dict:  # noqa: ANN001 - bench script
    return {
        "passed": report.passed,
        "items": report.items,
        "reference_mean": report.reference.mean_reward,
        "ratios": {p.name: p.ratio for p in report.exploits},
        "worst_case_independent_ratio": max((p.ratio or 0.0 for p in report.exploits if p.case_independent),
                                            default=None),
        "breaches": {p.name: p.failures for p in [report.reference, *report.exploits] if not p.passed},
        "seconds": round(seconds, 1),
    }


async def _suites(skip: set[str]) -> dict:
    from evaluation.audit import run_audit
    from evaluation.audit_code import code_suite
    from evaluation.audit_gui import gui_suite
    from evaluation.audit_medical import medical_suite
    from evaluation.audit_search import search_suite
    from patient_sim.cases import import_agentclinic, project_cases
    from verifier.backends.gui import GuiBackend

    out: dict = {}

    async def timed(name: str, suite) -> None:  # noqa: ANN001
        started = time.perf_counter()
        out[name] = _figures(await run_audit(suite), time.perf_counter() - started)

    if "medical" not in skip:
        await timed("medical_project", medical_suite(project_cases()))
        if AGENTCLINIC.is_file():
            await timed("medical_agentclinic", medical_suite(import_agentclinic(AGENTCLINIC), source="agentclinic"))
        else:
            out["medical_agentclinic"] = {"skipped": f"{AGENTCLINIC} not present"}
    if "code" not in skip:
        await timed("code", code_suite())
    if "search" not in skip:
        await timed("search", search_suite())
    if "gui" not in skip:
        backend = GuiBackend()
        try:
            await timed("gui", gui_suite(backend))
        finally:
            await backend.aclose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", action="append", default=[], choices=["medical", "code", "search", "gui"])
    args = parser.parse_args()
    started = time.perf_counter()
    figures = asyncio.run(_suites(set(args.skip)))
    figures["all_passed"] = all(f.get("passed", True) for f in figures.values() if isinstance(f, dict))
    figures["total_seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
