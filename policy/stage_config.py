"""A stage's YAML (validated: unknown keys are errors naming the file and line), its results and its metrics log.

Stages, in the order ``medverifier train --stages`` chains them: ``sft`` (the supervised warm start,
``policy.sft``), then the GRPO stages ``rule``, ``rubric`` and ``multiturn`` (``policy.grpo``);
``policy.stages`` runs them. Each stage's ``trainer:`` block holds fields of its TRL config
(``policy.trainer_args``).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import time
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from transformers import TrainerCallback

from patient_sim.patient import TemplateVoice
from policy.clients import ClientSpec, build_client
from policy.engine.device import check_dtype
from policy.graders import GradingKind
from policy.length_penalty import LengthPenaltyConfig
from policy.rewards import RuleRewardWeights
from policy.rollout import RolloutConfig
from policy.trainer_args import GRPO_FIELDS, SFT_FIELDS
from policy.validation import ValidationConfig
from verifier.data import data_dir, data_path
from verifier.llm import ChatClient

Stage = Literal["sft", "rule", "rubric", "multiturn"]
STAGES: tuple[Stage, ...] = ("sft", "rule", "rubric", "multiturn")
CONFIG_DIR = data_dir() / "train"


def trainer_fields(stage: Stage) -> frozenset[str]:
    """The ``trainer:`` keys ``stage`` accepts: its TRL config's fields."""
    return SFT_FIELDS if stage == "sft" else GRPO_FIELDS


def trainer_values(
    config: StageConfig, output_dir: Path, *, overrides: dict[str, Any] | None = None, device: str = "cpu"
) -> dict[str, Any]:
    """The stage's TRL config values: defaults ← YAML ``trainer:`` ← command-line overrides."""
    values: dict[str, Any] = {"output_dir": str(output_dir)}
    values.update(config.trainer)
    values.update(overrides or {})
    unknown = sorted(set(values) - trainer_fields(config.stage))
    if unknown:
        raise StageConfigError(f"unknown {'SFTConfig' if config.stage == 'sft' else 'GRPOConfig'} field(s) {unknown}")
    if device != "cpu":
        values.setdefault("use_cpu", False)
    return values


class CaseSource(BaseModel):
    """More cases for the ``sft`` and ``multiturn`` stages, beside the project's: a case file or folder
    (``format: project``, as ``data/cases``) or AgentClinic's OSCE JSONL (``format: agentclinic``)."""

    model_config = ConfigDict(extra="forbid")

    path: str  # relative paths: to the working directory ("data/..." means the data folder)
    format: Literal["project", "agentclinic"] = "project"


class StageData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    train: list[str] = Field(default_factory=list, description="files (JSONL) or folders, relative to the repo")
    heldout: list[str] = Field(default_factory=list)
    case_prompts: bool = True  # rubric stage: add single-turn prompts derived from the project's cases
    cases: list[str] = Field(default_factory=list)  # sft, multiturn: case ids (empty = every case)
    case_sources: list[CaseSource] = Field(default_factory=list)  # sft, multiturn: cases beside the project's
    max_items: int | None = Field(None, ge=1)


class GradingConfig(BaseModel):
    """The verifier's grading kind (``policy.graders``: rule, judge or hybrid) and its judge model."""

    model_config = ConfigDict(extra="forbid")

    mode: GradingKind = "rule"  # judge needs a judge model; hybrid without one is the rule checks
    judge_model: str | None = None
    judge_base_url: str | None = None
    # multiturn: "overall" trains on the verifier's unclipped score (``scores["overall"]``) instead of its reward,
    # which is clipped to [0, 1]: a consultation with the wrong diagnosis scores below 0, and clipped, a group of
    # them all scores 0 and teaches nothing about the history, tests and safety-netting they differ in.
    score: Literal["reward", "overall"] = "reward"

    @model_validator(mode="after")
    def _judge_for_judge_mode(self) -> GradingConfig:
        if self.mode == "judge" and not self.judge_model:
            raise ValueError("mode 'judge' needs judge_model (and judge_base_url for a served judge)")
        return self


class WarmStartConfig(BaseModel):
    """The ``warm_start:`` block of an ``sft`` stage: how many dialogues per case (``policy.sft_data``)."""

    model_config = ConfigDict(extra="forbid")

    variants: int = Field(4, ge=1, description="dialogues per case, each with its own wording, pacing and persona")
    seed: int = 0
    concurrency: int = Field(8, ge=1, description="dialogues played at once (their patient turns share batches)")


TEMPLATE_PATIENT = "template"


class PatientConfig(BaseModel):
    """The ``patient:`` block of an ``sft`` or ``multiturn`` stage: the frozen model that plays the patient.

    Its weights never change, so their precision is free to choose: on a CPU with bfloat16 matrix units
    (``bench/rollouts.py --patient-dtype bfloat16`` measures it) a bfloat16 patient decodes faster, and the
    patient's reply is only a restyling of the facts the fact selector picked (leaks and unsupported claims are
    still checked). The doctor's turns are sampled in the rollout's own precision (``rollout.dtype``).
    """

    model_config = ConfigDict(extra="forbid")

    model: str = Field("embedded", description="the patient's model; 'template': no model, every reply the "
                       "grounded template (the facts the selector picked, in the persona's manner)")
    dtype: str | None = Field(None, description="float32, bfloat16, float16 or auto (None: float32)")
    max_batch_size: int = Field(8, ge=1)

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str | None) -> str | None:
        return check_dtype(value)

    def spec(self) -> ClientSpec:
        return ClientSpec(model=self.model, dtype=self.dtype, max_batch_size=self.max_batch_size)


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
    warm_start: WarmStartConfig = Field(default_factory=WarmStartConfig)
    patient: PatientConfig = Field(default_factory=PatientConfig)
    trainer: dict[str, Any] = Field(default_factory=dict)

    @field_validator("trainer")
    @classmethod
    def _known_trainer_fields(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        stage = info.data.get("stage", "rule")  # validated before ``trainer`` (declared first)
        unknown = sorted(set(value) - trainer_fields(stage))
        if unknown:
            name = "SFTConfig" if stage == "sft" else "GRPOConfig"
            raise ValueError(f"unknown {name} field(s) {unknown}; see trl.{name} for the valid names")
        return value

    @model_validator(mode="after")
    def _overall_is_for_consultations(self) -> StageConfig:
        if self.grading.score == "overall" and self.stage != "multiturn":
            raise ValueError("grading.score 'overall' is for the multiturn stage (the other stages train on the reward)")
        return self

    @model_validator(mode="after")
    def _validation_is_single_turn(self) -> StageConfig:
        if self.stage in ("sft", "multiturn") and self.validation.every:
            raise ValueError(
                "validation is available for the rule and rubric stages; for sft and multiturn it would need "
                "whole consultations (bench/train_consult.py evaluates their checkpoints on held-out cases)"
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


class ReturnFreedMemory(TrainerCallback):
    """After every optimizer step, hands the heap memory the step freed back to the OS (glibc ``malloc_trim``).

    A training step allocates and frees gigabytes of tensors (rollout caches, activations, gradients); glibc
    keeps what was freed in its arenas, so the process's resident memory grew by about 0.3 GB a step and a
    30-step multi-turn run was killed for memory at step 20 (17.8 GB on a 23 GB machine). Measured on the
    multi-turn stage (2 consultations a step): 7.8 GB resident after four steps, 5.1 GB once trimmed, then
    level (the live tensors stop at the model, its optimizer state and the frozen patient's full prefix
    cache). ``memory/rss_gb`` in ``metrics.jsonl`` shows it per step. Without glibc this does nothing.
    """

    def __init__(self) -> None:
        name = ctypes.util.find_library("c")
        library = ctypes.CDLL(name) if name else None
        self._trim = getattr(library, "malloc_trim", None)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self._trim is not None:
            self._trim(0)


def resident_gb() -> float | None:
    """The process's resident memory in GB (Linux), or None where ``/proc`` does not say."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return round(pages * 4096 / 1e9, 3)


def peak_resident_gb(*, reset: bool = False) -> float | None:
    """The most resident memory the process has had (GB, Linux ``VmHWM``) since it started or since the last
    ``reset``; None where ``/proc`` does not say."""
    try:
        line = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM:"))
        peak = round(int(line.split()[1]) * 1024 / 1e9, 3)
    except (OSError, StopIteration, IndexError, ValueError):
        return None
    if reset:
        with contextlib.suppress(OSError):
            Path("/proc/self/clear_refs").write_text("5")  # the kernel's reset of the high-water mark
    return peak


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


def data_file(path: str) -> Path:
    return data_path(path)  # "data/..." in a YAML means the data folder, wherever it is installed


def stage_cases(config: StageConfig) -> list[Any]:
    """The stage's cases: the project's and ``data.case_sources``', all of them or those ``data.cases`` names."""
    from patient_sim.cases import CaseFormatError, import_agentclinic, load_cases, project_cases

    cases = project_cases()
    for source in config.data.case_sources:
        path = data_file(source.path)
        try:
            more = import_agentclinic(path) if source.format == "agentclinic" else load_cases(path)
        except CaseFormatError as exc:
            raise StageConfigError(f"data.case_sources: {exc}") from exc
        clash = sorted({c.id for c in cases} & {c.id for c in more})
        if clash:
            raise StageConfigError(f"data.case_sources: {source.path}: case id(s) {clash[:5]} already taken")
        cases = [*cases, *more]
    if config.data.cases:
        known = {c.id: c for c in cases}
        missing = [c for c in config.data.cases if c not in known]
        if missing:
            raise StageConfigError(f"data.cases: unknown case id(s) {missing}")
        cases = [known[c] for c in config.data.cases]
    return cases


def default_patient(config: PatientConfig | None = None) -> ChatClient:
    """A frozen copy of the embedded model plays the patient (the policy's weights change); ``model: template``,
    no model: every reply is the grounded template."""
    config = config or PatientConfig()
    if config.model == TEMPLATE_PATIENT:
        return TemplateVoice()
    return build_client(config.spec())


def default_config_path(stage: Stage) -> Path:
    return CONFIG_DIR / f"{stage}.yaml"
