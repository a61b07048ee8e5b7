"""The ``medverifier`` CLI as a user runs it: a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.openai_server import OpenAICompatibleServer, Reply

BIN = Path(sys.executable).parent / "medverifier"


def _run(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN), *args], input=stdin, capture_output=True, text=True, timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_help_lists_the_command_groups():
    result = _run("--help")
    assert result.returncode == 0
    for command in ("model", "chat"):
        assert command in result.stdout


def test_model_info_on_the_embedded_model(embedded):
    result = _run("model", "info")
    assert result.returncode == 0, result.stderr
    assert "SmolLM2-135M-Instruct" in result.stdout
    assert "134.5M" in result.stdout  # the parameter count of SmolLM2-135M


def test_model_info_on_a_missing_folder_is_a_clear_error(tmp_path):
    result = _run("model", "info", "--model", str(tmp_path / "missing"))
    assert result.returncode == 2
    assert "not a folder" in result.stderr and "Traceback" not in result.stderr


def test_chat_with_the_embedded_model_streams_a_reply(embedded):
    result = _run("chat", "--max-tokens", "8", "--temperature", "0", stdin="Hello!\n")
    assert result.returncode == 0, result.stderr
    reply = result.stdout.split("model> ", 1)[1].strip()
    assert reply, result.stdout


def test_chat_against_an_openai_compatible_server():
    with OpenAICompatibleServer(script=[Reply("hello from the server"), Reply(status=400, error="bad")]) as server:
        result = _run("chat", "--base-url", server.base_url, "--model", "test-model", stdin="hi\nagain\n")
    assert result.returncode == 0
    assert "hello from the server" in result.stdout
    assert "HTTP 400" in result.stderr and "Traceback" not in result.stderr
