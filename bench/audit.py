"""The exploit audit of every verifier domain, side by side in one run; prints ONE JSON line.

* ``medical_project``: the project's cases (``data/cases``), scripted doctors, rule grading (and a judge
  that obeys the response for the text-aimed-at-the-judge exploits);
* ``medical_agentclinic``: the same on ``../shared/data/agentclinic_medqa.jsonl`` (skipped, with a
  reason, when that file is absent);
* ``medical_*_orders``: whether the measurement responder and the grader agree on what every order names;
* ``code``, ``search``, ``gui``: the shipped tasks through the real sandbox, index and Chromium.

For each: whether every bound held, the reference's mean reward, every exploit's ratio to it (``None``
where an exploit does not apply), the breaches, and the wall time.

Beside the medical precision figures, the recall figures (``evaluation/audit_recall.py``) of the natural
consultations in ``data/natural/`` (``medical_project_recall``, ``medical_agentclinic_recall``), per split
(``tune``, ``heldout``): per register (and ``all``) the ratio to the reference, the lowest case ratio,
item recall, false penalties and unscored consultations; the share of cases whose quality ladder is
ordered, and the cases where it is not. Item recall, false credits and false penalties are judged by the
clinicians' item marks (``data/natural/items/``); ``clinician_ratio`` is the reward over the reward with those
marks in place of the grader's verdicts, ``group_item_recall`` the item recall by the writers' groups alone.
Reported, not gated (``all_passed`` is precision's).

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


def _recall_figures(report, seconds: float) -> dict:  # noqa: ANN001 - bench script
    out: dict = {"source": report.source, "cases": report.cases, "consultations": report.consultations}
    for ladder in report.ladder:
        registers = {}
        for f in report.figures:
            if f.split != ladder.split:
                continue
            entry = {"ratio": f.ratio, "min_case_ratio": f.min_case_ratio, "min_case": f.min_case,
                     "item_recall": f.item_recall, "false_penalties": f.false_penalties, "unscored": f.unscored,
                     "clinician_ratio": f.clinician_ratio, "false_credits": f.false_credits,
                     "confirmed_penalties": f.confirmed_penalties, "missed_penalties": f.missed_penalties,
                     "group_item_recall": f.group_item_recall}
            if f.false_penalty_criteria:
                entry["false_penalty_criteria"] = f.false_penalty_criteria
            registers[f.register_] = entry
        out[ladder.split] = {"cases": ladder.cases, "registers": registers, "ladder_ordered": ladder.share,
                             "ladder_by_unclipped_score": ladder.by_score, "ladder_not_ordered": ladder.not_ordered}
    out["seconds"] = round(seconds, 1)
    return out


async def _recall(cases, precision, name: str) -> dict:  # noqa: ANN001 - bench script
    from evaluation.audit_recall import NaturalFormatError, load_natural, recall_audit
    from verifier.data import data_dir

    path = data_dir() / "natural" / f"{name}.yaml"
    if not path.is_file():
        return {"skipped": f"{path} not present"}
    started = time.perf_counter()
    try:
        natural = load_natural(path, {c.id for c in cases})
    except NaturalFormatError as exc:
        return {"error": str(exc)}
    report = await recall_audit(cases, natural, case_set=name, precision=precision)
    return _recall_figures(report, time.perf_counter() - started)


def _agreement(cases, name: str) -> dict:  # noqa: ANN001 - bench script
    from evaluation.audit_orders import order_agreement
    from verifier import yamlfile
    from verifier.data import data_dir

    started = time.perf_counter()
    path = data_dir() / "natural" / f"{name}.yaml"
    natural = yamlfile.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else []
    extra = {e["case"]: [t for c in e["consultations"] for t in c["turns"]] for e in natural}
    report = order_agreement(cases, extra)
    return {"cases": report.cases, "orders": report.orders, "disagreements": len(report.disagreements),
            "by_kind": report.counts(), "examples": [d.model_dump() for d in report.disagreements[:5]],
            "seconds": round(time.perf_counter() - started, 1)}


async def _suites(skip: set[str]) -> dict:
    from evaluation.audit import run_audit
    from evaluation.audit_code import code_suite
    from evaluation.audit_gui import gui_suite
    from evaluation.audit_medical import medical_suite
    from evaluation.audit_search import search_suite
    from patient_sim.cases import import_agentclinic, project_cases
    from verifier.backends.gui import GuiBackend

    out: dict = {}

    async def timed(name: str, suite):  # noqa: ANN001, ANN202
        started = time.perf_counter()
        report = await run_audit(suite)
        out[name] = _figures(report, time.perf_counter() - started)
        return report

    if "medical" not in skip:
        cases = project_cases()
        precision = await timed("medical_project", medical_suite(cases))
        out["medical_project_recall"] = await _recall(cases, precision, "project")
        out["medical_project_orders"] = _agreement(cases, "project")
        if AGENTCLINIC.is_file():
            imported = import_agentclinic(AGENTCLINIC)
            precision = await timed("medical_agentclinic", medical_suite(imported, source="agentclinic"))
            out["medical_agentclinic_recall"] = await _recall(imported, precision, "agentclinic")
            out["medical_agentclinic_orders"] = _agreement(imported, "agentclinic")
        else:
            out["medical_agentclinic"] = {"skipped": f"{AGENTCLINIC} not present"}
            out["medical_agentclinic_recall"] = {"skipped": f"{AGENTCLINIC} not present"}
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
