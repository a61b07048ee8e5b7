"""The trained doctor served and evaluated, as the README's training section ends: a tiny real run of
``medverifier train`` (one sft step on one short dialogue of one case), then ``serve``, ``eval consult``
and ``eval healthbench`` with ``--model RUN/final``.

Each check asserts that the trained checkpoint itself is what answered: its weights fingerprint in the
eval run's provenance, and the served reply equal to the checkpoint's own greedy reply.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from evaluation.provenance import folder_fingerprint
from evaluation.store import ResultsStore
from policy.clients import ClientSpec, build_client, register_client
from serving.cli import app
from tests.serving.conftest import KEY_A
from tests.serving.test_persistence import serve_subprocess
from verifier.types import Message

HEALTHBENCH = Path(__file__).parent / "evaluation" / "data" / "tiny_healthbench.jsonl"
TINY_SFT = """\
stage: sft
model: embedded
data: {cases: [acs-stemi]}
warm_start: {variants: 1, seed: 0, concurrency: 1}
rollout: {max_turns: 3, patient_max_tokens: 12}
trainer: {per_device_train_batch_size: 1, learning_rate: 1.0e-3, save_strategy: "no", disable_tqdm: true,
          report_to: none}
"""


@pytest.fixture(scope="module")
def trained_run(local_client, run_shared) -> Path:
    """``medverifier train --stage sft --max-steps 1`` into a fresh run folder; the folder (trained once per test run
    and shared by the workers)."""
    # The warm start's simulated patient is the embedded model: the session's copy, not a second load.
    register_client(ClientSpec(model="embedded", max_batch_size=8), local_client)

    def train(root: Path) -> None:
        config = root / "sft.yaml"
        config.write_text(TINY_SFT)
        run = root / "runs" / "sft"
        result = CliRunner().invoke(app, ["train", "--stage", "sft", "--config", str(config),
                                          "--output-dir", str(run), "--max-steps", "1"])
        assert result.exit_code == 0, result.output
        stage = json.loads(result.stdout.strip().splitlines()[-1])
        assert stage["final_model"] == str(run / "final") and stage["global_step"] == 1
        assert (run / "final" / "config.json").is_file() and (run / "final" / "model.safetensors").is_file()

    return run_shared.folder("trained", train) / "runs" / "sft"


@pytest.fixture
def quiet_eval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDVERIFIER_PROGRESS", "0")


def _provenance_policy(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())["provenance"]["models"]["policy"]


def test_eval_consult_runs_the_trained_checkpoint(trained_run: Path, tmp_path: Path, quiet_eval,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    final = trained_run / "final"
    monkeypatch.chdir(trained_run.parent)  # `--model sft/final`, relative, as the README's `runs/<run>/final`
    result = CliRunner().invoke(app, [
        "eval", "consult", "--model", "sft/final", "--case", "acs-stemi", "--max-turns", "2",
        "--doctor-max-tokens", "24", "--grading", "rule", "--no-judge-cache", "--concurrency", "1",
        "--runs-dir", str(tmp_path), "--run-name", "trained"])
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "trained"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["finished"] == summary["planned"] == 1
    policy = _provenance_policy(run_dir)
    # stored as an absolute path: a resume from another directory finds the same weights
    assert policy["kind"] == "local" and policy["model"] == str(final.resolve())
    assert policy["fingerprint"] == folder_fingerprint(final)[0]  # these weights, not the embedded model's
    assert json.loads((run_dir / "config.json").read_text())["policy"]["model"] == str(final.resolve())
    store = ResultsStore.for_run(run_dir)
    try:
        (consultation,) = store.results(policy=str(final.resolve()))  # keyed by the checkpoint's path
    finally:
        store.close()
    assert consultation.example_id.startswith("acs-stemi")


def test_eval_healthbench_runs_the_trained_checkpoint(trained_run: Path, tmp_path: Path, quiet_eval) -> None:
    final = trained_run / "final"
    result = CliRunner().invoke(app, [
        "eval", "healthbench", str(HEALTHBENCH), "--model", str(final), "--grading", "rule", "--limit", "1",
        "--max-tokens", "16", "--no-judge-cache", "--runs-dir", str(tmp_path), "--run-name", "trained"])
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "trained"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["finished"] == summary["planned"] == 1
    policy = _provenance_policy(run_dir)
    assert Path(policy["model"]).resolve() == final.resolve()
    assert policy["fingerprint"] == folder_fingerprint(final)[0]


def test_serve_answers_with_the_trained_checkpoint(trained_run: Path, tmp_path: Path) -> None:
    final = trained_run / "final"
    with serve_subprocess(tmp_path / "db.sqlite", tmp_path / "server.log", ["--model", str(final)]) as (_, url):
        headers = {"Authorization": f"Bearer {KEY_A}"}
        with httpx.Client(base_url=url, headers=headers, timeout=120) as http:
            served = http.get("/v1/models").json()["data"][0]["id"]
            question = [{"role": "user", "content": "I have chest pain since an hour."}]
            response = http.post("/v1/chat/completions", json={
                "model": served, "messages": question, "max_tokens": 8, "temperature": 0})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["model"] == served
    text = body["choices"][0]["message"]["content"]
    # The reply is the checkpoint's own greedy reply (loaded here from the same folder).
    own = build_client(ClientSpec(model=str(final)))
    expected = asyncio.run(own.complete([Message(**question[0])], max_tokens=8, temperature=0.0))
    assert text == expected.text and text.strip()
