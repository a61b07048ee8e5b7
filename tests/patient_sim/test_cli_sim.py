"""``medverifier simulate``: errors exit 2 with a clear message; a human doctor interviews the patient."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from serving.cli import app

runner = CliRunner()


def test_unknown_case_and_bad_file_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "--case", "no-such-case"])
    assert result.exit_code == 2
    assert "unknown case 'no-such-case'" in result.output and "Traceback" not in result.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("- id: x\n  chief_complaint: Cough\n  history_of_present_illness: y\n  final_diagnosis: z\n"
                   "  disposition: someday\n", encoding="utf-8")
    result = runner.invoke(app, ["simulate", "--case", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:5: field 'disposition'" in result.output
    result = runner.invoke(app, ["simulate", "--case", "acs-stemi", "--doctor", "/no/such/checkpoint"])
    assert result.exit_code == 2 and "checkpoint folder" in result.output


@pytest.mark.slow
def test_human_doctor_interviews_the_simulated_patient(local_client, monkeypatch, tmp_path: Path) -> None:
    from policy import clients

    # The one client cache gets the session's model instead of loading a second copy.
    monkeypatch.setitem(clients._clients, clients.ClientSpec(model="embedded").cache_key(), local_client)
    out = tmp_path / "result.json"
    typed = "REQUEST TEST: ECG\nDo you smoke?\nDIAGNOSIS: inferior STEMI \\\nPlan: aspirin, cath lab now.\n"
    result = runner.invoke(
        app, ["simulate", "--case", "acs-stemi", "--doctor", "human", "--persona-seed", "2", "-o", str(out)],
        input=typed,
    )
    assert result.exit_code == 0, result.output
    assert "PATIENT: Hello" in result.output and "crushing chest pain" in result.output
    assert "ST elevation in leads II, III and aVF" in result.output
    assert "ended: diagnosis after 3 doctor turns" in result.output
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["diagnosis"] == "inferior STEMI" and saved["ordered_tests"] == ["ECG"]
    assert saved["transcript"][5]["content"] == "DIAGNOSIS: inferior STEMI \nPlan: aspirin, cath lab now."
    assert saved["patient_replies"] == 1
