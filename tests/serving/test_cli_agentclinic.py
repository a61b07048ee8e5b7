"""The commands that import AgentClinic files say what they imported: 'N imported, M skipped' on
stderr, each skipped record with its file, line and field; ``--strict`` fails the whole file."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from serving.cli import app

runner = CliRunner()


def _mixed_file(agentclinic_path: Path, tmp_path: Path) -> Path:
    real = agentclinic_path.read_text(encoding="utf-8").splitlines()[:2]
    no_diagnosis = json.loads(real[1])
    del no_diagnosis["OSCE_Examination"]["Correct_Diagnosis"]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([real[0], json.dumps(no_diagnosis), "{broken", real[1]]) + "\n", encoding="utf-8")
    return path


def test_audit_says_how_many_records_it_imported_and_skipped(agentclinic_path: Path, tmp_path: Path) -> None:
    path = _mixed_file(agentclinic_path, tmp_path)
    result = runner.invoke(app, ["audit", "--cases", str(path), "--agentclinic", "--json"])
    assert result.exit_code in (0, 1), result.output  # the audit ran (its verdict is not the point here)
    assert f"{path}: 2 imported, 2 skipped" in result.stderr
    assert f"skipped: {path}:2: field 'OSCE_Examination.Correct_Diagnosis': missing" in result.stderr
    assert f"skipped: {path}:3: invalid JSON" in result.stderr
    report = json.loads(result.stdout)
    assert report["items"] == 2
    strict = runner.invoke(app, ["audit", "--cases", str(path), "--agentclinic", "--strict"])
    assert strict.exit_code == 2 and f"{path}:2: field 'OSCE_Examination.Correct_Diagnosis'" in strict.stderr
    assert runner.invoke(app, ["audit", "--domain", "gui", "--strict"]).exit_code == 2


def test_eval_consult_says_the_same_before_it_runs(agentclinic_path: Path, tmp_path: Path) -> None:
    path = _mixed_file(agentclinic_path, tmp_path)
    strict = runner.invoke(app, ["eval", "consult", "--cases", str(path), "--agentclinic", "--strict",
                                 "--runs-dir", str(tmp_path / "runs")])
    assert strict.exit_code == 2 and "error:" in strict.stderr and f"{path}:2: field" in strict.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text("[1]\n{}\n", encoding="utf-8")
    nothing = runner.invoke(app, ["eval", "consult", "--cases", str(broken), "--agentclinic",
                                  "--runs-dir", str(tmp_path / "runs")])
    assert nothing.exit_code == 2, nothing.output
    assert f"{broken}: 0 imported, 2 skipped" in nothing.stderr and "no record could be imported" in nothing.stderr
    assert f"skipped: {broken}:2: field 'OSCE_Examination': missing" in nothing.stderr
