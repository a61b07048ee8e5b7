"""``bench/patient_fidelity.py`` with a patient model behind an OpenAI-compatible server: the bench reaches
the server, names the model, and a patient model that restyles well is measured as one (few fallbacks),
while one that leaks is caught by the checker and shows as fallbacks and rejections."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from tests.openai_server import OpenAICompatibleServer

_ASKED = re.compile(r'What you want to say: "(.*)"\Z', re.DOTALL)


def _restyle(messages: list[dict]) -> str:
    asked = _ASKED.search(messages[0]["content"])
    reply = asked.group(1) if asked else ""
    return f"Well, doctor, {reply[:1].lower()}{reply[1:]}"


def _bench(repo_root, server: OpenAICompatibleServer) -> dict:  # noqa: ANN001
    done = subprocess.run(
        [sys.executable, "bench/patient_fidelity.py", "--quick", "--patient-model", server.model,
         "--patient-base-url", server.base_url, "--concurrency", "4"],
        cwd=repo_root, capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(repo_root)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_bench_measures_a_served_patient_model(repo_root) -> None:  # noqa: ANN001
    with OpenAICompatibleServer(model="served-patient", responder=_restyle) as server:
        figures = _bench(repo_root, server)
    model = figures["model"]
    assert "served-patient" in model["patient_model"] and server.requests
    assert model["replies"] > 20 and model["leaks"] == 0 and model["traceability"] == 1.0
    assert model["fallback_share"] < 0.2 and model["reworded_share"] > 0.8, model


def test_a_leaky_served_patient_is_caught_not_measured_as_fluent(repo_root) -> None:  # noqa: ANN001
    leaky = lambda messages: "Honestly I think it's cancer, my blood test said 42."  # noqa: E731
    with OpenAICompatibleServer(model="leaky-patient", responder=leaky) as server:
        figures = _bench(repo_root, server)
    model = figures["model"]
    assert model["leaks"] == 0 and model["fallback_share"] == 1.0 and model["reworded_share"] == 0.0
    assert model["rejections"].get("number", 0) + model["rejections"].get("diagnosis", 0) > 0, model["rejections"]
