"""Staged GRPO on TRL's ``GRPOTrainer``: rule → rubric → multi-turn, one YAML config per stage.

No RL loss is written here: each stage is TRL's trainer with our datasets, reward functions
(``policy.rewards``, wrapped by the conditional length penalty) and, for the multi-turn stage, our
``rollout_func`` (``policy.rollout``). ``MedGRPOConfig`` carries the Baichuan-M2/DAPO defaults
(no KL, clip-higher, token-level loss, no std scaling) and CPU-friendly settings; every field can
be overridden from the YAML ``trainer:`` block.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from transformers import TrainerCallback
from trl import GRPOConfig, GRPOTrainer

from policy.clients import ClientSpec, build_client
from policy.engine.packed import packed_linears
from policy.graders import GraderSpec, GradingKind, build_grader
from policy.length_penalty import LengthPenaltyConfig
from policy.rewards import RuleRewardWeights
from policy.rollout import RolloutConfig
from policy.validation import BEST_DIR, BEST_RECORD, ValidationCallback, ValidationConfig, split_validation
from verifier.data import data_dir, data_path
from verifier.llm import ChatClient
from verifier.protocols import Grader

logger = logging.getLogger(__name__)

Stage = Literal["rule", "rubric", "multiturn"]
STAGES: tuple[Stage, ...] = ("rule", "rubric", "multiturn")
CONFIG_DIR = data_dir() / "train"


@dataclass
class MedGRPOConfig(GRPOConfig):
    """``GRPOConfig`` with the Baichuan-M2 / DAPO defaults and small CPU-friendly generation."""

    beta: float = field(default=0.0, metadata={"help": "KL coefficient; 0 = no KL term (DAPO)."})
    epsilon_high: float | None = field(default=0.28, metadata={"help": "Clip-higher upper bound (DAPO)."})
    loss_type: str = field(default="dapo", metadata={"help": "Token-level loss normalisation (DAPO)."})
    scale_rewards: str = field(default="none", metadata={"help": "No std scaling of advantages (Dr. GRPO)."})
    learning_rate: float = field(default=1e-5, metadata={"help": "AdamW learning rate."})
    num_generations: int | None = field(default=4, metadata={"help": "Completions per prompt (group size)."})
    per_device_train_batch_size: int = field(default=4, metadata={"help": "Completions per device step."})
    max_completion_length: int | None = field(default=32, metadata={"help": "Max tokens per completion."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature for rollouts."})
    logging_steps: float = field(default=1, metadata={"help": "Log every N steps."})
    save_steps: float = field(default=50, metadata={"help": "Checkpoint every N steps."})
    save_total_limit: int | None = field(default=2, metadata={"help": "Checkpoints kept."})
    # The multi-turn rollout decodes with a KV cache on trainer.model; checkpointing would disable it.
    gradient_checkpointing: bool = field(default=False, metadata={"help": "Gradient checkpointing."})
    bf16: bool | None = field(default=False, metadata={"help": "bfloat16 (slower than float32 on CPU)."})
    report_to: Any = field(default="none", metadata={"help": "Integrations to report to."})
    use_cpu: bool = field(default=True, metadata={"help": "Train on CPU (use --device to change)."})


TRAINER_FIELDS = {f.name for f in dataclasses.fields(MedGRPOConfig)}


class MedGRPOTrainer(GRPOTrainer):
    """TRL's ``GRPOTrainer``; its ``transformers`` generation runs on prepacked weights on a CPU.

    Only the no-autograd generation changes (``policy.engine.packed``: the same numbers to float32 rounding,
    a quarter less time per decoding step); the loss, its forward and backward are TRL's own.
    """

    def _generate_single_turn(self, *args: Any, **kwargs: Any) -> Any:
        packed = packed_linears(self.accelerator.unwrap_model(self.model))
        with packed.active() if packed else contextlib.nullcontext():
            return super()._generate_single_turn(*args, **kwargs)


class StageData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    train: list[str] = Field(default_factory=list, description="files (JSONL) or folders, relative to the repo")
    heldout: list[str] = Field(default_factory=list)
    case_prompts: bool = True  # rubric stage: add single-turn prompts derived from the project's cases
    cases: list[str] = Field(default_factory=list)  # multiturn: case ids (empty = all project cases)
    max_items: int | None = Field(None, ge=1)


class GradingConfig(BaseModel):
    """The verifier's grading kind (``policy.graders``: rule, judge or hybrid) and its judge model."""

    model_config = ConfigDict(extra="forbid")

    mode: GradingKind = "rule"  # judge needs a judge model; hybrid without one is the rule checks
    judge_model: str | None = None
    judge_base_url: str | None = None

    @model_validator(mode="after")
    def _judge_for_judge_mode(self) -> GradingConfig:
        if self.mode == "judge" and not self.judge_model:
            raise ValueError("mode 'judge' needs judge_model (and judge_base_url for a served judge)")
        return self


class StageConfig(BaseModel):
    """One stage's YAML file (validated; unknown keys are errors)."""

    model_config = ConfigDict(extra="forbid")

    stage: Stage
    model: str = "embedded"
    data: StageData = Field(default_factory=StageData)
    reward: RuleRewardWeights = Field(default_factory=RuleRewardWeights)
    length_penalty: LengthPenaltyConfig = Field(default_factory=LengthPenaltyConfig)
    grading: GradingConfig = Field(default_factory=GradingConfig)
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    validation: ValidationConfig = Field(default_factory=ValidationConfig)
    trainer: dict[str, Any] = Field(default_factory=dict)

    @field_validator("trainer")
    @classmethod
    def _known_trainer_fields(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - TRAINER_FIELDS)
        if unknown:
            raise ValueError(f"unknown GRPOConfig field(s) {unknown}; see trl.GRPOConfig for the valid names")
        return value

    @model_validator(mode="after")
    def _validation_is_single_turn(self) -> StageConfig:
        if self.stage == "multiturn" and self.validation.every:
            raise ValueError(
                "validation is available for the rule and rubric stages; a multi-turn validation would need "
                "whole consultations (use bench/train_gain.py --multiturn-steps to compare checkpoints)"
            )
        return self


class StageConfigError(ValueError):
    """A stage YAML that cannot be used; the message names the file, the line and the field."""


def load_stage_config(path: Path | str) -> StageConfig:
    path = Path(path)
    if not path.is_file():
        raise StageConfigError(f"{path}: no such file")
    text = path.read_text()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise StageConfigError(f"{path}{line}: invalid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise StageConfigError(f"{path}:1: expected a mapping with a 'stage' key")
    try:
        return StageConfig.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = [str(p) for p in error["loc"]]
        raise StageConfigError(
            f"{path}:{_yaml_line(text, loc)}: field '{'.'.join(loc) or 'stage'}': {error['msg']}"
        ) from exc


def _yaml_line(text: str, loc: list[str]) -> int:
    """1-based line of the deepest key of ``loc`` found in the YAML (1 when not found)."""
    node: Any = yaml.compose(text)
    line = 1
    for key in loc:
        if not isinstance(node, yaml.MappingNode):
            break
        match = next(((k, v) for k, v in node.value if k.value == key), None)
        if match is None:
            break
        line, node = match[0].start_mark.line + 1, match[1]
    return line


def build_args(
    config: StageConfig, output_dir: Path, *, overrides: dict[str, Any] | None = None, device: str = "cpu"
) -> MedGRPOConfig:
    """The TRL config: defaults ← YAML ``trainer:`` ← command-line overrides (device, vLLM, max steps)."""
    values: dict[str, Any] = {"output_dir": str(output_dir)}
    values.update(config.trainer)
    values.update(overrides or {})
    unknown = sorted(set(values) - TRAINER_FIELDS)
    if unknown:
        raise StageConfigError(f"unknown GRPOConfig field(s) {unknown}")
    if device != "cpu":
        values.setdefault("use_cpu", False)
    if config.stage == "multiturn":
        values.setdefault("max_completion_length", config.rollout.max_completion_tokens)
        # TRL computes the loss's log-probabilities at ``temperature``: it must be the one the episodes
        # were sampled at, or the policy gradient is taken for a distribution nobody sampled from.
        if values.setdefault("temperature", config.rollout.temperature) != config.rollout.temperature:
            raise StageConfigError(
                f"trainer.temperature {values['temperature']} differs from rollout.temperature "
                f"{config.rollout.temperature}: the multi-turn stage samples at rollout.temperature; set only that"
            )
    try:
        import tensorboard  # noqa: F401

        values.setdefault("report_to", ["tensorboard"])
    except ImportError:
        pass
    return MedGRPOConfig(**values)


class JsonlMetricsCallback(TrainerCallback):
    """Appends every log record (step, epoch, wall time and TRL's metrics) to a JSONL file."""

    def __init__(self, path: Path, stage: str) -> None:
        self.path = path
        self.stage = stage
        self.started = time.perf_counter()
        path.parent.mkdir(parents=True, exist_ok=True)

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if not logs:
            return
        record = {"stage": self.stage, "step": state.global_step, "wall_s": round(time.perf_counter() - self.started, 2)}
        record.update({k: v for k, v in logs.items() if isinstance(v, int | float | str | bool)})
        with self.path.open("a") as fh:
            fh.write(json.dumps(record) + "\n")


class StageResult(BaseModel):
    stage: Stage
    output_dir: str
    final_model: str
    global_step: int
    metrics_path: str
    resumed_from: str | None = None
    wall_s: float
    best_step: int | None = None  # with validation: the step whose weights are final/ (keep: best)
    best_val_reward: float | None = None


def build_trainer(
    config: StageConfig,
    args: MedGRPOConfig,
    *,
    model: str | None = None,
    patient: ChatClient | None = None,
    grader: Grader | None = None,
) -> Any:
    """A ``GRPOTrainer`` for one stage (the model is ``embedded`` or a checkpoint folder).

    ``patient`` (the simulated patient's client; default: a frozen copy of the embedded model) and
    ``grader`` (default: ``build_stage_grader``, per ``grading``) are injectable.
    """
    from datasets import Dataset

    from policy.length_penalty import with_length_penalty
    from policy.model import load_model
    from policy.rewards import ConsultationReward, RubricReward, make_rule_reward, rubric_rows
    from policy.rule_data import load_rule_items, rule_rows

    loaded = load_model(model or config.model)
    rollout_func = None
    if config.stage == "rule":
        files = config.data.train or ["data/rule/train.jsonl"]
        rows = rule_rows([item for f in files for item in load_rule_items(_resolve(f))])
        reward: Any = make_rule_reward(config.reward)
    elif config.stage == "rubric":
        cases = _stage_cases(config) if config.data.case_prompts else []
        rows = rubric_rows([_resolve(f) for f in config.data.train], cases)
        reward = RubricReward(grader or build_stage_grader(config))
    else:
        from policy.rollout import MultiTurnRollout
        from rubric_gen.case_rubric import build_case_rubric

        cases = _stage_cases(config)
        rollout = MultiTurnRollout(cases, patient or _default_patient(), loaded, config.rollout)
        rows = rollout.dataset_rows(seed=args.seed)
        rollout_func = rollout
        reward = ConsultationReward(
            grader or build_stage_grader(config),
            {c.id: c for c in cases},
            lambda case: build_case_rubric(case).items,
            drop_void=config.rollout.drop_void,
        )
    callbacks: list[Any] = [JsonlMetricsCallback(Path(args.output_dir) / "metrics.jsonl", config.stage)]
    if config.validation.every and rows:
        try:
            rows, held = split_validation(rows, config.validation)
        except ValueError as exc:
            raise StageConfigError(f"stage {config.stage}: {exc}") from exc
        callbacks.append(ValidationCallback(
            held, reward, loaded.tokenizer, config.validation, Path(args.output_dir),
            max_tokens=config.validation.max_tokens or args.max_completion_length or 32,
            stage=config.stage, model_name=loaded.name,
        ))
    if config.data.max_items:
        rows = rows[: config.data.max_items]
    if not rows:
        raise StageConfigError(f"stage {config.stage}: no training items (check data.train / data.cases)")
    reward_fn = with_length_penalty(reward, args.num_generations or 1, config.length_penalty)
    return MedGRPOTrainer(
        model=loaded.model,
        reward_funcs=[reward_fn],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=loaded.tokenizer,
        rollout_func=rollout_func,
        callbacks=callbacks,
    )


def _resolve(path: str) -> Path:
    return data_path(path)  # "data/..." in a YAML means the data folder, wherever it is installed


def _stage_cases(config: StageConfig) -> list[Any]:
    from patient_sim.cases import project_cases

    cases = project_cases()
    if config.data.cases:
        known = {c.id: c for c in cases}
        missing = [c for c in config.data.cases if c not in known]
        if missing:
            raise StageConfigError(f"data.cases: unknown case id(s) {missing}")
        cases = [known[c] for c in config.data.cases]
    return cases


def build_stage_grader(config: StageConfig) -> Grader:
    """The verifier's grader for the stage's ``grading`` (its judge's replies are not cached: a reward)."""
    grading = config.grading
    judge = ClientSpec(model=grading.judge_model, base_url=grading.judge_base_url) if grading.judge_model else None
    return build_grader(GraderSpec(kind=grading.mode, judge=judge, judge_cache=False))


def _default_patient() -> ChatClient:
    """A frozen copy of the embedded model plays the patient (the policy's weights change)."""
    return build_client(ClientSpec(model="embedded", max_batch_size=8))


def run_stage(
    config: StageConfig,
    output_dir: Path,
    *,
    model: str | None = None,
    resume: bool = False,
    overrides: dict[str, Any] | None = None,
    device: str = "cpu",
    patient: ChatClient | None = None,
    grader: Grader | None = None,
) -> StageResult:
    """Train one stage; with ``resume`` continue from the last checkpoint in ``output_dir`` if any."""
    from transformers.trainer_utils import get_last_checkpoint

    started = time.perf_counter()
    output_dir.mkdir(parents=True, exist_ok=True)
    args = build_args(config, output_dir, overrides=overrides, device=device)
    checkpoint = get_last_checkpoint(str(output_dir)) if resume else None
    if resume and checkpoint is None:
        logger.warning("%s: no checkpoint to resume from; starting fresh", output_dir)
    if checkpoint is None:  # a fresh run must not inherit an earlier run's best model
        (output_dir / BEST_RECORD).unlink(missing_ok=True)
        shutil.rmtree(output_dir / BEST_DIR, ignore_errors=True)
    trainer = build_trainer(config, args, model=model, patient=patient, grader=grader)
    trainer.train(resume_from_checkpoint=checkpoint)
    final = output_dir / "final"
    shutil.rmtree(final, ignore_errors=True)
    validation = next((c for c in trainer.callback_handler.callbacks if isinstance(c, ValidationCallback)), None)
    if validation and config.validation.keep == "best" and (output_dir / BEST_DIR).is_dir():
        shutil.copytree(output_dir / BEST_DIR, final)
        logger.info("final model = step %s (validation reward %s)", validation.best_step, validation.best_reward)
    else:
        trainer.save_model(str(final))
        trainer.processing_class.save_pretrained(str(final))
    return StageResult(
        stage=config.stage,
        output_dir=str(output_dir),
        final_model=str(final),
        global_step=trainer.state.global_step,
        metrics_path=str(output_dir / "metrics.jsonl"),
        resumed_from=checkpoint,
        wall_s=round(time.perf_counter() - started, 2),
        best_step=validation.best_step if validation else None,
        best_val_reward=validation.best_reward if validation else None,
    )


def run_stages(
    stages: list[tuple[StageConfig, Path]],
    *,
    model: str | None = None,
    resume: bool = False,
    overrides: dict[str, Any] | None = None,
    device: str = "cpu",
    patient: ChatClient | None = None,
    grader: Grader | None = None,
) -> list[StageResult]:
    """Run stages in order; each starts from the previous stage's final model."""
    results: list[StageResult] = []
    current = model
    for config, output_dir in stages:
        done = output_dir / "final" / "config.json"
        if resume and done.is_file():
            logger.info("stage %s already finished in %s; skipping", config.stage, output_dir)
            current = str(done.parent)
            continue
        result = run_stage(
            config, output_dir, model=current, resume=resume, overrides=overrides, device=device,
            patient=patient, grader=grader,
        )
        results.append(result)
        current = result.final_model
    return results


def default_config_path(stage: Stage) -> Path:
    return CONFIG_DIR / f"{stage}.yaml"
