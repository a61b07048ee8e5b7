"""Provenance: which template graded a run (config, summary, CLI defaults), prompt versions and weights
fingerprints, and resumes refused when any of them changed.

Scripted policy and judge clients come through the eval's plug-in hook (tests/evaluation/fakes.py);
the checkpoint whose weights change is a real safetensors file, the grade judge a real HTTP server.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file
from typer.testing import CliRunner

from evaluation.consult_eval import DIAGNOSIS_JUDGE_VERSION
from evaluation.healthbench_eval import HealthBenchEval
from evaluation.provenance import (
    ProvenanceMismatch,
    check_resumable,
    collect_provenance,
    consult_prompt_versions,
    weights_fingerprint,
)
from evaluation.records import ConsultParams, RunConfig
from evaluation.store import load_config, save_config
from policy import clients
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from serving.cli import app
from tests.evaluation.fakes import ScriptedPolicy
from tests.openai_server import OpenAICompatibleServer
from verifier import grader_prompts
from verifier.grader_prompts import MEDVERIFIER, GraderPrompt
from verifier.healthbench_template import HEALTHBENCH_SYSTEM_MESSAGE, HEALTHBENCH_TEMPLATE_SHA256

DATA = Path(__file__).parent / "data" / "tiny_healthbench.jsonl"
POLICY = ClientSpec(model="py:tests.evaluation.fakes:policy")
JUDGE = ClientSpec(model="py:tests.evaluation.fakes:judge")


@pytest.fixture(autouse=True)
def fresh_template_cache():
    grader_prompts.clear_caches()
    yield
    grader_prompts.clear_caches()


def _summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def _checkpoint(folder: Path, scale: float = 1.0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text('{"model_type": "llama", "hidden_size": 64}')
    weights = {"embed.weight": (np.arange(256 * 1024, dtype=np.float32) * scale).reshape(512, 512),
               "head.weight": np.ones((256, 512), dtype=np.float32) * scale}
    save_file(weights, str(folder / "model.safetensors"))
    return folder


# --------------------------------------------------------------------------- recorded where
async def test_config_and_summary_record_healthbenchs_template(tmp_path: Path, isolated_home: Path) -> None:
    evaluation = HealthBenchEval.create(DATA, policy=POLICY, grader=GraderSpec(judge=JUDGE), runs_dir=tmp_path,
                                        run_name="hb")
    assert evaluation.config.grader.prompt == "healthbench"  # HealthBench runs default to its template
    await evaluation.run(show_progress=False)
    config = load_config(evaluation.run_dir)
    summary = _summary(evaluation.run_dir)
    for provenance in (config.provenance.model_dump(mode="json"), summary["provenance"]):
        template = provenance["judge_template"]
        assert (template["name"], template["sha256"], template["system"]) == (
            "healthbench", HEALTHBENCH_TEMPLATE_SHA256, HEALTHBENCH_SYSTEM_MESSAGE)
        assert template["source"].startswith("inspect_evals.healthbench.scorer.GRADER_TEMPLATE")
        assert provenance["healthbench_comparable"] is True
        assert provenance["models"]["policy"]["kind"] == "plugin"
        assert provenance["models"]["judge"]["model"] == JUDGE.model
    assert summary["grader"].endswith(":healthbench")


def test_cli_defaults_to_healthbench_and_records_the_projects_prompt_as_such(tmp_path: Path,
                                                                             isolated_home: Path) -> None:
    runs = tmp_path / "runs"
    common = [str(DATA), "--model", POLICY.model, "--judge", JUDGE.model, "--runs-dir", str(runs)]
    expected = {"default": ("healthbench", True), "mv": ("medverifier", False), "batched": ("medverifier-batch", False)}
    extra = {"default": [], "mv": ["--grader-prompt", "medverifier"], "batched": ["--batched"]}
    for name, args in extra.items():
        result = CliRunner().invoke(app, ["eval", "healthbench", *common, "--run-name", name, *args])
        assert result.exit_code == 0, result.output
        provenance = _summary(runs / name)["provenance"]
        assert (provenance["judge_template"]["name"], provenance["healthbench_comparable"]) == expected[name]
    assert "not comparable with published HealthBench numbers" in result.output  # the --batched note


def test_cli_without_the_extra_refuses_before_sampling_unless_asked_for_the_projects_prompt(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "inspect_evals", None)
    log = tmp_path / "calls.log"
    monkeypatch.setenv("SCRIPTED_CALL_LOG", str(log))
    common = ["eval", "healthbench", str(DATA), "--model", POLICY.model, "--judge", JUDGE.model,
              "--runs-dir", str(tmp_path / "runs")]
    refused = CliRunner().invoke(app, [*common, "--run-name", "refused"])
    assert refused.exit_code == 2
    assert "pip install 'medverifier[healthbench]'" in refused.output
    assert "--grader-prompt medverifier" in refused.output and "Traceback" not in refused.output
    assert not log.exists()
    asked = CliRunner().invoke(app, [*common, "--run-name", "asked", "--grader-prompt", "medverifier"])
    assert asked.exit_code == 0, asked.output
    provenance = _summary(tmp_path / "runs" / "asked")["provenance"]
    assert provenance["judge_template"]["name"] == "medverifier" and provenance["healthbench_comparable"] is False


def test_grade_defaults_to_healthbenchs_template_over_a_real_judge_server(tmp_path: Path,
                                                                         isolated_home: Path) -> None:
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"prompt_id": i, "response": "Call an ambulance."}) + "\n" for i in "ab"))
    reply = '```json\n{"explanation": "yes", "criteria_met": true}\n```'
    with OpenAICompatibleServer(model="judge-model", responder=lambda messages: reply) as server:
        base = ["grade", "--data", str(DATA), "--responses", str(responses), "--judge", "judge-model",
                "--judge-base-url", server.base_url, "--no-cache"]
        default = CliRunner().invoke(app, base)
        assert default.exit_code == 0, default.output
        first = server.requests[0]["messages"]
        assert first[0] == {"role": "system", "content": HEALTHBENCH_SYSTEM_MESSAGE}
        assert first[1]["content"].startswith("Your job is to look at a conversation and a rubric item")
        summary = json.loads(default.output[default.output.index("{"):])
        assert summary["judge_template"]["sha256"] == HEALTHBENCH_TEMPLATE_SHA256
        assert summary["healthbench_comparable"] is True
        server.requests.clear()
        project = CliRunner().invoke(app, [*base, "--grader-prompt", "medverifier"])
        assert project.exit_code == 0, project.output
        assert [m["role"] for m in server.requests[0]["messages"]] == ["user"]
        assert "<<<conversation>>>" in server.requests[0]["messages"][0]["content"]
        assert json.loads(project.output[project.output.index("{"):])["healthbench_comparable"] is False


# --------------------------------------------------------------------------- resume refusals
async def test_resume_is_refused_when_the_judge_prompt_changed(tmp_path: Path, isolated_home: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    policy = ScriptedPolicy()
    monkeypatch.setitem(clients._clients, POLICY.cache_key(), policy)
    evaluation = HealthBenchEval.create(DATA, policy=POLICY, grader=GraderSpec(judge=JUDGE, prompt="medverifier"),
                                        runs_dir=tmp_path, run_name="mv")
    await evaluation.run(show_progress=False)
    calls = policy.calls
    resumed = HealthBenchEval(load_config(evaluation.run_dir), evaluation.run_dir)
    await resumed.run(show_progress=False)  # nothing changed: resumes, nothing is redone
    assert policy.calls == calls
    bumped = GraderPrompt(**{**MEDVERIFIER.model_dump(), "version": "medverifier-grader-3",
                             "template": MEDVERIFIER.template.replace("Judge only", "Grade only")})
    monkeypatch.setattr(grader_prompts, "MEDVERIFIER", bumped)
    with pytest.raises(ProvenanceMismatch, match=r"judge template: medverifier \(sha256 \w{12}, medverifier-grader-2\) "
                                                 r"-> medverifier \(sha256 \w{12}, medverifier-grader-3\)"):
        await HealthBenchEval(load_config(evaluation.run_dir), evaluation.run_dir).run(show_progress=False)
    assert policy.calls == calls


def test_resume_is_refused_when_the_policy_weights_changed(tmp_path: Path, isolated_home: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _checkpoint(tmp_path / "ckpt")
    spec = ClientSpec(model=str(folder))
    policy = ScriptedPolicy()  # stands in for the checkpoint's model; its weights are only fingerprinted
    monkeypatch.setitem(clients._clients, spec.cache_key(), policy)
    evaluation = HealthBenchEval.create(DATA, policy=spec, grader=GraderSpec(judge=JUDGE), runs_dir=tmp_path / "runs",
                                        run_name="ckpt-run")
    asyncio.run(evaluation.run(show_progress=False))
    stored = load_config(evaluation.run_dir).provenance.models["policy"]
    assert stored.kind == "local" and "1 weights file(s)" in stored.detail
    calls = policy.calls
    _checkpoint(folder, scale=1.001)  # a training step later: same names, shapes and size
    with pytest.raises(ProvenanceMismatch, match=rf"policy weights \({folder}\): fingerprint {stored.fingerprint[:12]} ->"):
        asyncio.run(HealthBenchEval(load_config(evaluation.run_dir), evaluation.run_dir).run(show_progress=False))
    result = CliRunner().invoke(app, ["eval", "healthbench", "--resume", "ckpt-run", "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2 and "cannot be resumed" in result.output and "policy weights" in result.output
    assert policy.calls == calls
    _checkpoint(folder)  # the original weights again: the run resumes
    asyncio.run(HealthBenchEval(load_config(evaluation.run_dir), evaluation.run_dir).run(show_progress=False))
    assert policy.calls == calls


async def test_a_run_from_before_provenance_resumes_and_records_it(tmp_path: Path, isolated_home: Path) -> None:
    evaluation = HealthBenchEval.create(DATA, policy=POLICY, grader=GraderSpec(judge=JUDGE), runs_dir=tmp_path,
                                        run_name="old")
    await evaluation.run(show_progress=False)
    save_config(evaluation.run_dir, load_config(evaluation.run_dir).model_copy(update={"provenance": None}))
    await HealthBenchEval(load_config(evaluation.run_dir), evaluation.run_dir).run(show_progress=False)
    assert load_config(evaluation.run_dir).provenance is not None


def test_consult_runs_record_prompt_versions_and_a_change_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    config = RunConfig(name="c", kind="consult", policy=POLICY, grader=GraderSpec(judge=JUDGE),
                       consult=ConsultParams(patient=ClientSpec(model="http-patient", base_url="http://x/v1")))
    before = collect_provenance(config, consult_prompt_versions(config, DIAGNOSIS_JUDGE_VERSION))
    assert set(before.prompts) == {"doctor", "patient", "case_rubric", "diagnosis_judge"}
    assert before.judge_template.name == "medverifier" and not before.healthbench_comparable
    assert before.models["patient"].kind == "remote"
    import patient_sim.prompts

    monkeypatch.setattr(patient_sim.prompts, "DOCTOR_PROMPT_VERSION", "doctor-v9")
    after = collect_provenance(config, consult_prompt_versions(config, DIAGNOSIS_JUDGE_VERSION))
    with pytest.raises(ProvenanceMismatch, match=rf"doctor prompt version: {before.prompts['doctor']} -> doctor-v9"):
        check_resumable("c", before, after)
    check_resumable("c", before, before)


# --------------------------------------------------------------------------- fingerprints
def test_weights_fingerprints(tmp_path: Path) -> None:
    folder = _checkpoint(tmp_path / "a")
    first = weights_fingerprint(ClientSpec(model=str(folder))).fingerprint
    _checkpoint(folder)  # rewritten with the same bytes (a new mtime): the same weights
    assert weights_fingerprint(ClientSpec(model=str(folder))).fingerprint == first
    _checkpoint(folder, scale=0.5)
    assert weights_fingerprint(ClientSpec(model=str(folder))).fingerprint != first
    _checkpoint(folder)
    (folder / "model.safetensors").rename(folder / "model-00001-of-00001.safetensors")
    assert weights_fingerprint(ClientSpec(model=str(folder))).fingerprint != first
    remote = weights_fingerprint(ClientSpec(model="gpt-x", base_url="http://a/v1"))
    assert remote.kind == "remote"
    assert remote != weights_fingerprint(ClientSpec(model="gpt-x", base_url="http://b/v1"))
    assert weights_fingerprint(ClientSpec(model=str(tmp_path / "nowhere"))).fingerprint == "missing"


def test_embedded_fingerprint_reads_the_gguf_without_loading_it() -> None:
    import time

    started = time.perf_counter()
    first = weights_fingerprint(ClientSpec(model="embedded"))
    assert time.perf_counter() - started < 2.0
    assert first.kind == "embedded" and first.fingerprint not in ("", "unavailable"), first.detail
    assert weights_fingerprint(ClientSpec(model="embedded")) == first
