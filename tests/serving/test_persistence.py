"""A consultation survives ``kill -9`` of the server: every acknowledged turn, and the message in flight."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.serving.conftest import KEY_A, free_port


@contextmanager
def serve_subprocess(db: Path, log: Path, args: Sequence[str] = ()) -> Iterator[tuple[subprocess.Popen, str]]:
    """``medverifier serve`` in a subprocess (the embedded model unless ``args`` name another)."""
    port = free_port()
    command = [sys.executable, "-m", "serving.cli", "serve", "--port", str(port), "--db", str(db),
               "--api-key", KEY_A, "--log-level", "warning", *args]
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2"), "MEDVERIFIER_DEFAULT_MAX_TOKENS": "6"}
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        # One client polls: httpx.get builds a client of its own, and loads the CA bundle, each time (0.1-0.2 s of
        # CPU, some fifty times while the server starts, taken from the starting server on a busy machine).
        with httpx.Client(base_url=url, timeout=1) as probe:
            deadline = time.monotonic() + 120
            while True:
                if process.poll() is not None:
                    raise AssertionError(f"server exited with {process.returncode}:\n{log.read_text()}")
                try:
                    if probe.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"server did not start:\n{log.read_text()}")
                time.sleep(0.2)
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def test_turns_survive_sigkill_and_restart(tmp_path: Path) -> None:
    db, log = tmp_path / "consultations.sqlite", tmp_path / "server.log"
    headers = {"Authorization": f"Bearer {KEY_A}"}
    with serve_subprocess(db, log) as (process, url), httpx.Client(base_url=url, headers=headers, timeout=120) as http:
        cid = http.post("/v1/consultations", json={"title": "durable"}).json()["id"]
        replies = []
        for text in ("Fever and cough for two days.", "No travel, no sick contacts."):
            response = http.post(f"/v1/consultations/{cid}/messages", json={"content": text})
            assert response.status_code == 200, response.text
            replies.append(response.json()["message"]["content"])
        # A third message: kill the server while its reply is being generated.
        with http.stream("POST", f"/v1/consultations/{cid}/messages?stream=true",
                         json={"content": "Now short of breath.", "max_tokens": 200}) as streamed:
            for line in streamed.iter_lines():
                if line.startswith("event: delta"):
                    os.kill(process.pid, signal.SIGKILL)
                    break
        process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL

    with serve_subprocess(db, log) as (_, url), httpx.Client(base_url=url, headers=headers, timeout=120) as http:
        history = http.get(f"/v1/consultations/{cid}").json()
        contents = [(m["role"], m["content"]) for m in history["messages"]]
        assert contents[:4] == [
            ("user", "Fever and cough for two days."), ("assistant", replies[0]),
            ("user", "No travel, no sick contacts."), ("assistant", replies[1]),
        ]
        assert contents[4:] == [("user", "Now short of breath.")]  # persisted before generation began
        assert history["turns"] == 2
        # The session carries on after the restart.
        response = http.post(f"/v1/consultations/{cid}/messages", json={"content": "Any advice?"})
        assert response.status_code == 200
        assert len(http.get(f"/v1/consultations/{cid}").json()["messages"]) == 7
