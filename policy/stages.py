"""Running stages: one (``run_stage``) or a chain (``run_stages``), each from the previous one's final model.

``sft`` builds its trainer in ``policy.sft``, the GRPO stages in ``policy.grpo``; what a stage does
with its folder is the same for all: resume from its last checkpoint when asked, write ``final/``
(the best validation step's weights where ``validation.keep`` is ``best``), log to ``metrics.jsonl``.
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path
from typing import Any

from policy.grpo import build_args, build_trainer
from policy.sft import build_sft_args, build_sft_trainer
from policy.stage_config import StageConfig, StageConfigError, StageResult, trainer_fields
from policy.validation import BEST_DIR, BEST_RECORD, ValidationCallback
from verifier.llm import ChatClient
from verifier.protocols import Grader

logger = logging.getLogger(__name__)


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
    if config.stage == "sft":
        args: Any = build_sft_args(config, output_dir, overrides=overrides, device=device)
    else:
        args = build_args(config, output_dir, overrides=overrides, device=device)
    checkpoint = get_last_checkpoint(str(output_dir)) if resume else None
    if resume and checkpoint is None:
        logger.warning("%s: no checkpoint to resume from; starting fresh", output_dir)
    if checkpoint is None:  # a fresh run must not inherit an earlier run's best model
        (output_dir / BEST_RECORD).unlink(missing_ok=True)
        shutil.rmtree(output_dir / BEST_DIR, ignore_errors=True)
    if config.stage == "sft":
        trainer = build_sft_trainer(config, args, model=model, patient=patient)
    else:
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




def check_placement(device: str, use_vllm: bool) -> None:
    """Refuse, before any weight loads, what TRL would run elsewhere or fail on after minutes.

    ``device="cuda"`` on a machine where torch sees no GPU (TRL would quietly train on the CPU), vLLM without a
    GPU, vLLM not installed (TRL raises an ImportError once the model is loaded). A ``DeviceError`` or a
    ``StageConfigError`` that says what to do.
    """
    import importlib.util

    from policy.engine.device import resolve_device

    resolved = resolve_device(device)  # "cuda" without a GPU: DeviceError naming torch's build
    if not use_vllm:
        return
    if resolved.type != "cuda":
        raise StageConfigError(f"use_vllm (--use-vllm or a stage's trainer.use_vllm) needs a GPU: --device {device} "
                               f"resolves to the CPU here; use --device cuda on a GPU machine, or leave vLLM off")
    if importlib.util.find_spec("vllm") is None:
        raise StageConfigError("use_vllm: vLLM is not installed in this environment; install it on the GPU machine "
                               "(`pip install vllm`, or the project's `gpu` extra) or leave --use-vllm off")


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
    """Run stages in order; each starts from the previous stage's final model. ``overrides`` (trainer
    fields) go to each stage whose TRL config has them; a field no stage has is an error."""
    overrides = overrides or {}
    unknown = sorted(set(overrides) - set().union(*(trainer_fields(c.stage) for c, _ in stages)))
    if stages and unknown:
        raise StageConfigError(f"unknown trainer field(s) {unknown} for stage(s) {[c.stage for c, _ in stages]}")
    check_placement(device, any(overrides.get("use_vllm", c.trainer.get("use_vllm")) for c, _ in stages))
    results: list[StageResult] = []
    current = model
    for config, output_dir in stages:
        done = output_dir / "final" / "config.json"
        if resume and done.is_file():
            logger.info("stage %s already finished in %s; skipping", config.stage, output_dir)
            current = str(done.parent)
            continue
        result = run_stage(
            config, output_dir, model=current, resume=resume, device=device,
            overrides={k: v for k, v in overrides.items() if k in trainer_fields(config.stage)},
            patient=patient, grader=grader,
        )
        results.append(result)
        current = result.final_model
    return results
