"""A run killed part-way (a real subprocess, SIGKILL) resumes without redoing finished examples and
ends with exactly the numbers of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from evaluation.healthbench_eval import HealthBenchEval
from policy.clients import ClientSpec
from policy.graders import GraderSpec

N = 8


def _write_records(path: Path) -> None:
    verdicts = ["met", "unmet", "garbage"]
    with path.open("w") as handle:
        for i in range(N):
            rubrics = [
                {"criterion": f"Point {j} for case {i} (verdict: {verdicts[(i + j) % 3]})",
                 "points": [5, 3, -2][j], "tags": [f"axis:{['accuracy', 'completeness', 'accuracy'][j]}"]}
                for j in range(3)
            ]
            record = {"prompt": [{"role": "user", "content": f"question number {i}"}], "prompt_id": f"q{i:02d}",
                      "rubrics": rubrics, "example_tags": [f"theme:t{i % 2}"], "ideal_completions_data": None}
            handle.write(json.dumps(record) + "\n")


def _rows(db: Path) -> list[tuple[str, int]]:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return list(conn.execute("SELECT example_id, pid FROM results ORDER BY example_id"))
    except sqlite3.Error:
        return []


def _cli(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "serving.cli", "eval", "healthbench", *args]


def test_killed_run_resumes_to_the_same_numbers(tmp_path: Path, repo_root: Path, isolated_home: Path) -> None:
    data = tmp_path / "records.jsonl"
    _write_records(data)
    log = tmp_path / "calls.log"
    env = {**os.environ, "PYTHONPATH": str(repo_root), "MEDVERIFIER_PROGRESS": "0", "SCRIPTED_CALL_LOG": str(log), "SCRIPTED_DELAY_S": "0.4"}
    common = ["--model", "py:tests.evaluation.fakes:policy", "--judge", "py:tests.evaluation.fakes:judge",
              "--runs-dir", str(tmp_path / "runs")]
    db = tmp_path / "runs" / "killed" / "results.sqlite"

    proc = subprocess.Popen(_cli([str(data), *common, "--run-name", "killed", "--concurrency", "1"]),
                            cwd=repo_root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    while len(_rows(db)) < 3:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "exited early"
        assert time.monotonic() < deadline, "the run never wrote 3 results"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    first = dict(_rows(db))
    assert 3 <= len(first) < N
    assert not (tmp_path / "runs" / "killed" / "summary.json").exists()

    env["SCRIPTED_DELAY_S"] = "0"
    done = subprocess.run(_cli(["--resume", "killed", *common[4:]]), cwd=repo_root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    final = dict(_rows(db))
    assert len(final) == N
    # Finished examples were neither resampled nor regraded: their rows are the killed process's.
    assert {k: final[k] for k in first} == first
    resumed_pids = set(final.values()) - set(first.values())
    assert len(resumed_pids) == 1
    resampled = [line.split("\t")[1].strip() for line in log.read_text().splitlines()
                 if int(line.split("\t")[0]) in resumed_pids]
    assert sorted(resampled) == sorted(f"question number {int(k[1:])}" for k in final if k not in first)

    resumed = json.loads((tmp_path / "runs" / "killed" / "summary.json").read_text())
    straight = HealthBenchEval.create(
        data, policy=ClientSpec(model="py:tests.evaluation.fakes:policy"),
        grader=GraderSpec(kind="hybrid", judge=ClientSpec(model="py:tests.evaluation.fakes:judge")),
        runs_dir=tmp_path / "runs", run_name="straight",
    )
    import asyncio

    uninterrupted = asyncio.run(straight.run(show_progress=False)).model_dump(mode="json")
    for summary in (resumed, uninterrupted):
        summary.pop("run")
    assert resumed == uninterrupted
    assert resumed["finished"] == N and resumed["unscored_items"] > 0
