"""The GRPO stages on TRL's ``GRPOTrainer``: rule → rubric → multi-turn, one YAML config per stage.

No RL loss is written here: each stage is TRL's trainer with our datasets, reward functions
(``policy.rewards``, wrapped by the conditional length penalty) and, for the multi-turn stage, our
``rollout_func`` (``policy.rollout``). ``MedGRPOConfig`` (``policy.trainer_args``) carries the
Baichuan-M2/DAPO defaults; every field can be overridden from the YAML ``trainer:`` block. The stage
YAMLs are ``policy.stage_config``'s; ``policy.stages`` chains these stages after the ``sft`` warm start.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torch.optim.lr_scheduler import LambdaLR
from transformers import TrainerCallback
from trl import GRPOTrainer

from policy.clients import ClientSpec
from policy.engine.packed import packed_linears
from policy.graders import GraderSpec, build_grader
from policy.stage_config import (
    JsonlMetricsCallback,
    ReturnFreedMemory,
    StageConfig,
    StageConfigError,
    data_file,
    default_patient,
    peak_resident_gb,
    resident_gb,
    stage_cases,
    trainer_values,
)
from policy.trainer_args import MedGRPOConfig
from policy.validation import ValidationCallback, split_validation
from verifier.llm import ChatClient
from verifier.protocols import Grader

logger = logging.getLogger(__name__)


# Where a step's time goes, logged with every step (``metrics.jsonl``): the rollouts (``rollout_func`` or
# TRL's own generation), the reward functions, the rest of TRL's scoring (old log-probabilities,
# advantages), the loss's forward and backward, and the optimizer step.
STEP_TIMES = ("rollout", "reward", "scoring", "forward_backward", "optimizer")


def budget_schedule(rollout: Any, budget: int) -> Callable[[int], float]:
    """The learning-rate factor of a stage that ends at a generated-token budget: the share of the budget left.
    A linear schedule over ``max_steps`` would leave an arm that spends its budget in fewer steps than allowed (ARPO's
    branches) at a higher rate than one that runs them all; over the budget, both decay to zero as they finish."""
    return lambda _step: max(0.0, 1.0 - rollout.generated_tokens / budget)


def budget_scheduler(args: Any, lr_budget: tuple[Any, int] | None, optimizer: Any, steps: int) -> LambdaLR | None:
    """The scheduler of a stage with a token budget (``lr_budget``: its rollout and the budget) where the schedule is
    plain linear decay; None where the trainer's own applies (no budget, another schedule, a warm-up)."""
    if lr_budget is None or args.lr_scheduler_type != "linear" or args.get_warmup_steps(steps):
        return None
    return LambdaLR(optimizer, budget_schedule(*lr_budget))


class MedGRPOTrainer(GRPOTrainer):
    """TRL's ``GRPOTrainer``; its ``transformers`` generation runs on prepacked weights on a CPU, and each
    step's time is split into ``time/<part>_s`` (``STEP_TIMES``) in the logs.

    Only the no-autograd generation changes (``policy.engine.packed``: the same numbers to float32 rounding,
    a quarter less time per decoding step); the loss, its forward and backward are TRL's own.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._times = dict.fromkeys(STEP_TIMES, 0.0)
        self.add_callback(_OptimizerClock(self))
        if self.rollout_func is not None:
            self.rollout_func = _timed(self.rollout_func, self, "rollout")

    # (rollout, tokens): a stage that ends at a token budget decays its learning rate with the budget spent
    lr_budget: tuple[Any, int] | None = None

    def create_scheduler(self, num_training_steps: int, optimizer: Any = None) -> Any:
        if self.lr_scheduler is None and (
                scheduler := budget_scheduler(self.args, self.lr_budget, optimizer or self.optimizer, num_training_steps)):
            self.lr_scheduler = scheduler
            self._created_lr_scheduler = True
        return super().create_scheduler(num_training_steps, optimizer)

    def _add_time(self, part: str, seconds: float) -> None:
        self._times[part] += seconds

    def _generate_single_turn(self, *args: Any, **kwargs: Any) -> Any:
        packed = packed_linears(self.accelerator.unwrap_model(self.model))
        started = time.perf_counter()
        try:
            with packed.active() if packed else contextlib.nullcontext():
                return super()._generate_single_turn(*args, **kwargs)
        finally:
            self._add_time("rollout", time.perf_counter() - started)

    def _calculate_rewards(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return super()._calculate_rewards(*args, **kwargs)
        finally:
            self._add_time("reward", time.perf_counter() - started)

    def _prepare_inputs(self, *args: Any, **kwargs: Any) -> Any:
        rollout, reward = self._times["rollout"], self._times["reward"]
        started = time.perf_counter()
        try:
            return super()._prepare_inputs(*args, **kwargs)
        finally:
            inside = (self._times["rollout"] - rollout) + (self._times["reward"] - reward)
            self._add_time("scoring", time.perf_counter() - started - inside)
            self._prepared = time.perf_counter() - started

    def training_step(self, *args: Any, **kwargs: Any) -> Any:
        self._prepared = 0.0
        started = time.perf_counter()
        output = super().training_step(*args, **kwargs)
        self._add_time("forward_backward", time.perf_counter() - started - self._prepared)
        return output

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        if "loss" in logs:  # a training step's log (not the run's summary): its time split, then zeroed
            logs.update({f"time/{part}_s": round(seconds, 3) for part, seconds in self._times.items()})
            self._times = dict.fromkeys(STEP_TIMES, 0.0)
            if (rss := resident_gb()) is not None:  # after the step's trim (ReturnFreedMemory)
                logs["memory/rss_gb"] = rss
            if (peak := peak_resident_gb(reset=True)) is not None:  # the most it held since the last log line
                logs["memory/peak_rss_gb"] = peak
            rollout = getattr(self.rollout_func, "rollout", None)
            if rollout is not None:  # the multi-turn rollout's running totals
                logs["rollout/generated_tokens"] = rollout.generated_tokens
                logs["rollout/branches"] = rollout.branches
                if rollout.entropy_rises:  # where ARPO's forks came from: the rise at candidate points
                    logs["rollout/entropy_rise_mean"] = round(sum(rollout.entropy_rises) / len(rollout.entropy_rises), 4)
                    logs["rollout/entropy_rise_max"] = round(max(rollout.entropy_rises), 4)
        super().log(logs, start_time)


class _TokenBudget(TrainerCallback):
    """Ends training once the multi-turn policy has generated ``budget`` tokens (``rollout.token_budget``)."""

    def __init__(self, rollout: Any, budget: int) -> None:
        self.rollout = rollout
        self.budget = budget

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.rollout.generated_tokens >= self.budget:
            logger.info("token budget reached: %d of %d generated tokens after step %d",
                        self.rollout.generated_tokens, self.budget, state.global_step)
            control.should_training_stop = True


class _OptimizerClock(TrainerCallback):
    """Times the optimizer step (the callbacks either side of it)."""

    def __init__(self, trainer: MedGRPOTrainer) -> None:
        self.trainer = trainer
        self.started = 0.0

    def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.started = time.perf_counter()

    def on_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.trainer._add_time("optimizer", time.perf_counter() - self.started)


def _timed(func: Any, trainer: MedGRPOTrainer, part: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            trainer._add_time(part, time.perf_counter() - started)

    call.rollout = func  # type: ignore[attr-defined]  # what was wrapped, for its running totals
    return call


def build_args(
    config: StageConfig, output_dir: Path, *, overrides: dict[str, Any] | None = None, device: str = "cpu"
) -> MedGRPOConfig:
    """The TRL config: defaults ← YAML ``trainer:`` ← command-line overrides (device, vLLM, max steps)."""
    values = trainer_values(config, output_dir, overrides=overrides, device=device)
    if config.stage == "multiturn":
        if values.get("use_vllm"):  # TRL would start a vLLM engine that the rollout_func never calls
            raise StageConfigError(
                "stage multiturn: use_vllm is for the rule and rubric stages; the multi-turn rollouts decode on "
                "the policy's own weights with the local engine (use --device cuda to put them on a GPU)")
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
        rows = rule_rows([item for f in files for item in load_rule_items(data_file(f))])
        reward: Any = make_rule_reward(config.reward)
    elif config.stage == "rubric":
        cases = stage_cases(config) if config.data.case_prompts else []
        rows = rubric_rows([data_file(f) for f in config.data.train], cases)
        reward = RubricReward(grader or build_stage_grader(config))
    else:
        from policy.rollout import MultiTurnRollout
        from rubric_gen.case_rubric import build_case_rubric

        cases = stage_cases(config)
        rollout = MultiTurnRollout(cases, patient or default_patient(config.patient), loaded, config.rollout)
        rows = rollout.dataset_rows(seed=args.seed)
        rollout_func = rollout
        reward = ConsultationReward(
            grader or build_stage_grader(config),
            {c.id: c for c in cases},
            lambda case: build_case_rubric(case).items,
            drop_void=config.rollout.drop_void,
            score=config.grading.score,
        )
    callbacks: list[Any] = [JsonlMetricsCallback(Path(args.output_dir) / "metrics.jsonl", config.stage),
                            ReturnFreedMemory()]
    if rollout_func is not None and config.rollout.token_budget is not None:
        callbacks.append(_TokenBudget(rollout_func, config.rollout.token_budget))
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
    trainer = MedGRPOTrainer(
        model=loaded.model,
        reward_funcs=[reward_fn],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=loaded.tokenizer,
        rollout_func=rollout_func,
        callbacks=callbacks,
    )
    if rollout_func is not None and config.rollout.token_budget is not None:
        trainer.lr_budget = (rollout_func, config.rollout.token_budget)
    return trainer


def build_stage_grader(config: StageConfig) -> Grader:
    """The verifier's grader for the stage's ``grading`` (its judge's replies are not cached: a reward)."""
    grading = config.grading
    judge = ClientSpec(model=grading.judge_model, base_url=grading.judge_base_url) if grading.judge_model else None
    return build_grader(GraderSpec(kind=grading.mode, judge=judge, judge_cache=False))

