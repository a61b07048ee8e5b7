"""``medverifier serve`` refuses bad input with a clear message and exit code 2 (no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys


def run_serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "serving.cli", "serve", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_unknown_model_folder_exits_2_with_the_reason(tmp_path) -> None:
    result = run_serve("--model", str(tmp_path / "no-such-model"), "--api-key", "k", "--port", "1")
    assert result.returncode == 2
    assert "not a folder" in result.stderr and "Traceback" not in result.stderr


def test_bad_setting_in_the_environment_names_the_variable() -> None:
    result = run_serve("--api-key", "k", env={"MEDVERIFIER_QUEUE_SIZE": "lots"})
    assert result.returncode == 2
    assert "MEDVERIFIER_QUEUE_SIZE" in result.stderr and "Traceback" not in result.stderr


def test_a_judge_url_without_a_judge_model_exits_2_with_the_reason() -> None:
    result = run_serve("--api-key", "k", "--judge-base-url", "http://127.0.0.1:1/v1")
    assert result.returncode == 2
    assert "judge_base_url is set but judge_model is not" in result.stderr and "Traceback" not in result.stderr
