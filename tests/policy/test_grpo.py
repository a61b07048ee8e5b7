"""Staged GRPO on the embedded model: each stage trains (parameters change), resume continues.

Tiny settings (2 completions of a few tokens per step) keep each step to seconds on 2 cores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from policy.grpo import STEP_TIMES
from policy.stage_config import (
    ReturnFreedMemory,
    StageConfig,
    StageConfigError,
    StageData,
    default_config_path,
    load_stage_config,
    resident_gb,
)
from policy.stages import run_stage, run_stages
from policy.trainer_args import MedGRPOConfig
from policy.validation import ValidationConfig, split_validation
from verifier.graders import HybridGrader

# With a few tokens from a 135M model every completion of a group may score the same, and then GRPO has
# no advantage and nothing moves. A negative threshold turns the conditional length penalty on for
# every group, so completions of different lengths always differ in reward: the trainer must learn.
ALWAYS_PENALISE = {"threshold": -1.0, "weight": 0.5}
TINY = {
    "num_generations": 2, "per_device_train_batch_size": 2, "max_completion_length": 12,
    "learning_rate": 5e-4, "save_steps": 1, "save_total_limit": 1, "seed": 1, "disable_tqdm": True,
}
# for tests that never resume: no checkpoint at all, not even the one the trainer writes when it stops
# (the stage writes final/ all the same, and that is what these tests read)
NO_RESUME = {**TINY, "save_strategy": "no"}
# the resumed run of a resume test: it reads checkpoint-1 and writes final/; a checkpoint of its own (the
# model and the optimizer's state, ~1.6 GB) would be written and never read
NO_CHECKPOINT = {"save_strategy": "no"}


def _changed(embedded, folder: Path) -> int:
    trained = load_file(str(folder / "model.safetensors"))
    base = embedded.model.state_dict()
    return sum(1 for name, value in trained.items() if name in base and not torch.equal(value, base[name]))


def test_defaults_follow_dapo_and_yaml_overrides() -> None:
    args = MedGRPOConfig(output_dir="/tmp/x")
    assert (args.beta, args.epsilon_high, args.loss_type, args.scale_rewards) == (0.0, 0.28, "dapo", "none")
    config = StageConfig(stage="rule", trainer={"beta": 0.04, "loss_type": "grpo"})
    assert config.trainer["beta"] == 0.04


def test_multiturn_loss_uses_the_rollouts_sampling_temperature(tmp_path) -> None:
    from policy.grpo import build_args

    config = StageConfig(stage="multiturn", rollout={"temperature": 0.6})
    assert build_args(config, tmp_path).temperature == 0.6  # not TRL's default 1.0
    assert build_args(StageConfig(stage="rule"), tmp_path).temperature == 1.0
    clash = StageConfig(stage="multiturn", rollout={"temperature": 0.6}, trainer={"temperature": 1.0})
    with pytest.raises(StageConfigError, match="differs from rollout.temperature"):
        build_args(clash, tmp_path)


def test_vllm_settings_reach_trl_from_the_yaml_and_the_command_line(tmp_path, monkeypatch) -> None:
    """No GPU here: the vLLM path is checked through its wiring, up to TRL's config."""
    import torch
    from typer.testing import CliRunner

    import policy.stages
    from policy.grpo import build_args
    from serving.cli import app

    path = tmp_path / "rule.yaml"
    path.write_text("stage: rule\ntrainer:\n  use_vllm: true\n  vllm_mode: server\n"
                    "  vllm_server_base_url: http://10.0.0.5:8000\n")
    args = build_args(load_stage_config(path), tmp_path / "out", device="cuda")
    assert (args.use_vllm, args.vllm_mode, args.vllm_server_base_url, args.use_cpu) == (
        True, "server", "http://10.0.0.5:8000", False)
    # the multi-turn rollouts decode with the local engine: a vLLM engine there would never be called
    with pytest.raises(StageConfigError, match="use_vllm is for the rule and rubric stages"):
        build_args(StageConfig(stage="multiturn", trainer={"use_vllm": True}), tmp_path / "mt", device="cuda")

    seen = {}

    def fake_run_stages(plan, **kwargs):  # noqa: ANN001, ANN003, ANN202
        seen.update(kwargs)
        return []

    monkeypatch.setattr(policy.stages, "run_stages", fake_run_stages)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # as on a GPU machine: the command checks first
    result = CliRunner().invoke(app, ["train", "--stage", "rubric", "--device", "cuda", "--use-vllm",
                                      "--vllm-mode", "colocate", "--output-dir", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert seen["device"] == "cuda"
    assert seen["overrides"] == {"use_vllm": True, "vllm_mode": "colocate", "use_cpu": False}


def test_a_gpu_or_vllm_that_is_not_there_is_refused_before_any_weight_loads(tmp_path, monkeypatch) -> None:
    """TRL would train on the CPU when told cuda on a machine without one, and raise an ImportError for a missing
    vLLM only after loading the model: the command says so first, exit 2, no traceback."""
    import importlib.util

    import torch
    from typer.testing import CliRunner

    from policy.engine.device import DeviceError
    from policy.stages import check_placement
    from serving.cli import app

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match="torch sees no CUDA device"):
        check_placement("cuda", use_vllm=False)
    with pytest.raises(StageConfigError, match="needs a GPU: --device auto resolves to the CPU"):
        check_placement("auto", use_vllm=True)
    check_placement("auto", use_vllm=False)
    result = CliRunner().invoke(app, ["train", "--stage", "rule", "--device", "cuda", "--max-steps", "1",
                                      "--output-dir", str(tmp_path / "r")])
    assert result.exit_code == 2 and "error: torch sees no CUDA device" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not (tmp_path / "r").exists()
    config = tmp_path / "rule.yaml"
    config.write_text("stage: rule\ntrainer:\n  use_vllm: true\n")  # vLLM asked for by the YAML alone
    result = CliRunner().invoke(app, ["train", "--stage", "rule", "--config", str(config), "--output-dir",
                                      str(tmp_path / "v")])
    assert result.exit_code == 2 and "needs a GPU" in result.output, result.output

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "vllm" else real_find_spec(name, *a))
    with pytest.raises(StageConfigError, match="vLLM is not installed in this environment"):
        check_placement("cuda", use_vllm=True)
    check_placement("cuda", use_vllm=False)


def test_bad_yaml_names_file_line_and_field(tmp_path) -> None:
    path = tmp_path / "stage.yaml"
    path.write_text("stage: rule\nlength_penalty:\n  quantile: 80\n  weight: -1\n")
    with pytest.raises(StageConfigError, match=r"stage.yaml:4: field 'length_penalty.weight'"):
        load_stage_config(path)
    path.write_text("stage: rule\ntrainer:\n  learning_rte: 0.1\n")
    with pytest.raises(StageConfigError, match=r"stage.yaml:2: field 'trainer'.*learning_rte"):
        load_stage_config(path)
    path.write_text("stage: sideways\n")
    with pytest.raises(StageConfigError, match=r"stage.yaml:1: field 'stage'"):
        load_stage_config(path)


def test_project_stage_configs_load(repo_root) -> None:
    for stage in ("sft", "rule", "rubric", "multiturn"):
        assert load_stage_config(repo_root / "data" / "train" / f"{stage}.yaml").stage == stage


def test_rule_stage_trains_keeps_the_best_step_and_resumes_after_a_kill(embedded, tmp_path, monkeypatch) -> None:
    """One run, killed after its first step and resumed, checks both: training and its resume, and validation
    (the best step kept as final, and remembered across the resume)."""
    import policy.grpo as grpo

    packed_generations: list[bool] = []  # TRL's generation asks for the model's packed linears (policy.engine.packed)

    def spy(model, enabled=None):
        packed = real(model, enabled)
        packed_generations.append(packed is not None)
        return packed

    real = grpo.packed_linears
    monkeypatch.setattr(grpo, "packed_linears", spy)
    items = _toy_rule_items(tmp_path / "items.jsonl", cases=3, per_case=2)
    config = StageConfig(stage="rule", data={"train": [str(items)]}, length_penalty=ALWAYS_PENALISE, trainer=TINY,
                         validation={"every": 1, "cases": 1, "max_items": 2, "max_tokens": 8})
    out = tmp_path / "rule"
    first = run_stage(config, out, overrides={"max_steps": 1})  # "killed" after step 1: only its checkpoint stays
    assert first.global_step == 1 and (out / "checkpoint-1").is_dir()
    assert _changed(embedded, out / "checkpoint-1") > 0  # step 1 trained (final/ is the best step, maybe step 0)
    result = run_stage(config, out, resume=True, overrides={"max_steps": 2, **NO_CHECKPOINT})
    assert result.resumed_from and result.resumed_from.endswith("checkpoint-1")
    assert result.global_step == 2
    logged = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    steps = [r["step"] for r in logged]
    assert 1 in steps and 2 in steps
    assert any("rewards/rule_reward/mean" in r for r in logged)
    assert any(r.get("length_penalty/frac_penalised", 0) > 0 for r in logged)
    assert packed_generations and all(packed_generations)
    # validation: step 0 once, each step once across the resume; final/ is the best of them
    validated = [(r["step"], r["val_reward"]) for r in logged if "val_reward" in r]
    assert [step for step, _ in validated] == [0, 1, 2]
    best_step, best_reward = max(validated, key=lambda sr: (sr[1], -sr[0]))  # highest, earliest on ties
    assert (result.best_step, result.best_val_reward) == (best_step, best_reward)
    record = json.loads((out / "best.json").read_text())
    assert record["step"] == best_step and [h["step"] for h in record["history"]] == [0, 1, 2]
    final = load_file(str(Path(result.final_model) / "model.safetensors"))
    best = load_file(str(out / "best" / "model.safetensors"))
    assert all(torch.equal(final[k], best[k]) for k in best)
    if best_step == 0:  # nothing beat the start: final is the starting model
        assert _changed(embedded, Path(result.final_model)) == 0
    else:
        assert _changed(embedded, Path(result.final_model)) > 0


def test_rubric_then_multiturn_stages_chain(embedded, local_client, tmp_path) -> None:
    """The rubric stage's model goes on to the multi-turn stage, which trains on top of it. That stage also has a
    token budget (ARPO against plain GRPO is compared at an equal generated-token budget): it ends once the policy has
    generated that many tokens, whatever max_steps says."""
    tasks = tmp_path / "tasks.jsonl"
    rubric = [
        {"criterion": "short", "points": 2, "tags": ["axis:communication"], "check": {"kind": "word_limit", "max_words": 4}},
        {"criterion": "mentions rest", "points": 1, "tags": ["axis:completeness"],
         "check": {"kind": "mentions_any", "terms": ["rest", "the", "you"]}},
    ]
    tasks.write_text("".join(
        json.dumps({"prompt_id": f"t{i}", "prompt": [{"role": "user", "content": f"I have a cold ({i}). Advice?"}],
                    "rubrics": rubric}) + "\n" for i in range(2)
    ))
    rubric_cfg = StageConfig(stage="rubric", data={"train": [str(tasks)], "case_prompts": False},
                             length_penalty=ALWAYS_PENALISE, trainer={**NO_RESUME, "max_steps": 1})
    multi_cfg = StageConfig(
        stage="multiturn",
        data={"cases": ["acs-stemi"]},
        # a token budget of 1: the stage ends after its first step, whatever its max_steps says
        rollout={"max_turns": 2, "turn_tokens": 12, "max_completion_tokens": 64, "patient_max_tokens": 12,
                 "drop_void": False, "token_budget": 1},
        # doctor turns often all fill their token budget, so lengths are measured in characters here
        length_penalty={**ALWAYS_PENALISE, "unit": "chars"},
        trainer={**NO_RESUME, "max_steps": 3},
    )
    results = run_stages(
        [(rubric_cfg, tmp_path / "rubric"), (multi_cfg, tmp_path / "multiturn")],
        patient=local_client, grader=HybridGrader(None),
    )
    assert [r.stage for r in results] == ["rubric", "multiturn"]
    assert all(r.global_step == 1 for r in results)  # the multi-turn stage: one step's rollouts spend the budget
    assert _changed(embedded, Path(results[0].final_model)) > 0
    rubric_final = load_file(str(Path(results[0].final_model) / "model.safetensors"))
    multi_final = load_file(str(Path(results[1].final_model) / "model.safetensors"))
    assert any(not torch.equal(rubric_final[k], multi_final[k]) for k in multi_final)  # multi-turn trained on top
    logged = [json.loads(line) for line in (tmp_path / "multiturn" / "metrics.jsonl").read_text().splitlines()]
    assert any("rewards/consultation_reward/mean" in r for r in logged)
    # every step's time, split: the rollouts ran the consultations, so they took time; the rest was spent too
    steps = [r for r in logged if "loss" in r]
    assert len(steps) == 1
    assert steps[0]["rollout/generated_tokens"] >= 4  # four episodes, each at least one doctor token
    for record in steps:
        parts = {part: record[f"time/{part}_s"] for part in STEP_TIMES}
        assert parts["rollout"] > 0 and parts["reward"] > 0 and parts["forward_backward"] > 0
        assert parts["optimizer"] > 0 and parts["scoring"] >= 0
        assert sum(parts.values()) <= record["wall_s"]
        assert 0.1 < record["memory/rss_gb"] < 64  # the process's resident memory, after the trim
        assert record["memory/peak_rss_gb"] >= record["memory/rss_gb"]  # the most it held during the step


@pytest.mark.parametrize(("budget", "schedule", "warmup", "after"), [
    (1000, "linear", 0, 0.75),  # a quarter of the budget spent after one step: three quarters of the rate
    (None, "linear", 0, None),  # no budget: the trainer's linear schedule over max_steps
    (1000, "linear", 5, None),  # a warm-up keeps the trainer's schedule
    (1000, "cosine", 0, None),
])
def test_a_token_budget_decays_the_learning_rate_with_the_budget_spent(budget, schedule, warmup, after) -> None:
    """An ARPO arm that spends its budget in fewer steps than max_steps allows ends at a rate of 0, as the plain arm
    does at its last step, not at the rate a linear schedule over max_steps would leave it."""
    from types import SimpleNamespace

    import torch

    from policy.grpo import budget_scheduler

    rollout = SimpleNamespace(generated_tokens=0)
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    args = SimpleNamespace(lr_scheduler_type=schedule, get_warmup_steps=lambda steps: warmup)
    scheduler = budget_scheduler(args, (rollout, budget) if budget else None, optimizer, 30)
    if after is None:
        assert scheduler is None
        return
    rollout.generated_tokens = 250
    optimizer.step()
    scheduler.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(after)


def _toy_rule_items(path: Path, cases: int, per_case: int) -> Path:
    rows = [
        {"id": f"c{c}:q{i}", "case_id": f"case{c}", "kind": "diagnosis_mcq", "split": "train", "letter": "A",
         "accepted": ["yes"],
         "prompt": [{"role": "user", "content": f"Case {c}, question {i}: pick A.\nA) yes\nB) no\nReply: ANSWER: <letter>"}]}
        for c in range(cases) for i in range(per_case)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_split_validation_sets_aside_whole_cases() -> None:
    rows = [{"case_id": f"case{c}", "item_id": f"{c}:{i}"} for c in range(6) for i in range(5)]
    train, held = split_validation(rows, ValidationConfig(every=1, cases=2, max_items=6))
    held_cases = {r["case_id"] for r in held}
    assert len(held_cases) == 2 and len(held) == 6
    assert not held_cases & {r["case_id"] for r in train}
    assert len(train) == 20  # the set-aside cases' rows are all out of training, even past the cap
    assert split_validation(rows, ValidationConfig(every=1, cases=2, max_items=6))[1] == held  # seeded
    with pytest.raises(ValueError, match="nothing to train on"):
        split_validation(rows, ValidationConfig(every=1, cases=6))


def test_validation_keep_last_and_multiturn_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="rule and rubric stages"):
        StageConfig(stage="multiturn", validation={"every": 2})
    path = tmp_path / "stage.yaml"
    path.write_text("stage: rule\nvalidation:\n  every: 2\n  keep: newest\n")
    with pytest.raises(StageConfigError, match=r"stage.yaml:4: field 'validation.keep'"):
        load_stage_config(path)


def test_freed_heap_goes_back_to_the_os_after_a_step() -> None:
    """glibc keeps freed chunks between live ones; the step-end trim returns their pages (the 30-step run's
    resident memory grew by 0.3 GB a step without it and was killed for memory)."""
    chunks = [bytearray(64 * 1024) for _ in range(4000)]  # ~260 MB of heap chunks (under the mmap threshold)
    for chunk in chunks:
        chunk[::4096] = b"x" * len(chunk[::4096])  # touch every page, so it is resident
    kept = chunks[::50]  # a live chunk every 3 MB stops the heap from shrinking at its top
    del chunks
    before = resident_gb()
    ReturnFreedMemory().on_step_end(None, None, None)
    after = resident_gb()
    assert before is not None and after is not None
    assert before - after > 0.15, (before, after)
    assert len(kept) == 80


def test_the_patient_block_picks_the_frozen_patients_precision(tmp_path, monkeypatch) -> None:
    import policy.grpo as grpo
    from policy.grpo import build_args, build_trainer

    path = tmp_path / "multiturn.yaml"
    path.write_text("stage: multiturn\ndata: {cases: [acs-stemi]}\npatient:\n  dtype: bfloat16\n")
    config = load_stage_config(path)
    assert config.patient.spec().dtype == "bfloat16" and config.patient.spec().model == "embedded"
    assert load_stage_config(repo_stage("multiturn")).patient.spec().dtype is None  # float32 unless asked

    class Built(Exception):
        pass

    def patient_for(patient_config):  # noqa: ANN001
        raise Built(patient_config)

    monkeypatch.setattr(grpo, "default_patient", patient_for)
    with pytest.raises(Built) as built:
        build_trainer(config, build_args(config, tmp_path / "out", overrides={**NO_RESUME, "max_steps": 1}))
    assert built.value.args[0].dtype == "bfloat16"

    path.write_text("stage: multiturn\npatient:\n  dtype: bf16\n")
    with pytest.raises(StageConfigError, match=r"multiturn.yaml:3: field 'patient.dtype'.*bfloat16"):
        load_stage_config(path)


def repo_stage(stage: str) -> Path:
    return Path(__file__).resolve().parents[2] / "data" / "train" / f"{stage}.yaml"


def test_a_stage_trains_on_the_cases_of_its_case_sources(agentclinic_path, tmp_path) -> None:
    from policy.stage_config import stage_cases

    base = load_stage_config(default_config_path("multiturn"))
    source = {"path": str(agentclinic_path), "format": "agentclinic"}
    every = stage_cases(base.model_copy(update={"data": StageData(case_sources=[source])}))
    ids = [c.id for c in every]
    assert "acute-appendicitis" in ids and "agentclinic-0001" in ids and len(ids) == len(set(ids))
    chosen = stage_cases(base.model_copy(update={"data": StageData(
        cases=["agentclinic-0058", "acute-appendicitis"], case_sources=[source])}))
    assert [c.id for c in chosen] == ["agentclinic-0058", "acute-appendicitis"]
    assert chosen[0].final_diagnosis and chosen[0].test_results  # the imported case, whole
    with pytest.raises(StageConfigError, match="unknown case id"):
        stage_cases(base.model_copy(update={"data": StageData(cases=["agentclinic-0001"])}))  # no source, no case
    with pytest.raises(StageConfigError, match="already taken"):
        stage_cases(base.model_copy(update={"data": StageData(case_sources=[source, source])}))
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(StageConfigError, match=r"data.case_sources: .*nope.jsonl"):
        stage_cases(base.model_copy(update={"data": StageData(case_sources=[{"path": str(missing), "format": "agentclinic"}])}))
