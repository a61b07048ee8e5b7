"""The ``sft`` stage: a supervised warm start on TRL's ``SFTTrainer``, before the staged GRPO.

Baichuan-M2 does not start RL from a raw model, and neither do we: a doctor whose turns are mostly void
(no question, order or diagnosis) gives GRPO groups with no reward variance, so nothing to learn from.
The stage trains on consultations in the protocol, played by the consultation loop with the varied
scripted reference doctor and the simulated patient (``policy.sft_data``), with the loss on the
doctor's tokens only: the labels are -100 on the system prompt, the patient's and the measurement
responder's replies and the chat template's glue, as ``policy.tokens.sft_tokens`` renders them from
the model's own chat template (the same rendering as the GRPO rollouts' ``env_mask``).

The dialogues are written to ``OUTPUT_DIR/dialogues.jsonl`` before training (a resumed run reads them
back), with a summary in ``OUTPUT_DIR/sft_data.json``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from trl import SFTTrainer

from patient_sim.loop import ConsultationResult
from patient_sim.prompts import DOCTOR_SYSTEM_PROMPT
from policy.sft_data import is_complete, warm_start_dialogues
from policy.stage_config import (
    JsonlMetricsCallback,
    ReturnFreedMemory,
    StageConfig,
    StageConfigError,
    default_patient,
    stage_cases,
    trainer_values,
)
from policy.tokens import sft_tokens
from policy.trainer_args import MedSFTConfig
from verifier.llm import ChatClient
from verifier.types import Message

logger = logging.getLogger(__name__)

DIALOGUES = "dialogues.jsonl"
SUMMARY = "sft_data.json"


def build_sft_args(
    config: StageConfig, output_dir: Path, *, overrides: dict[str, Any] | None = None, device: str = "cpu"
) -> MedSFTConfig:
    """The TRL config: defaults ← YAML ``trainer:`` ← command-line overrides."""
    values = trainer_values(config, output_dir, overrides=overrides, device=device)
    return MedSFTConfig(**values)


def build_sft_trainer(
    config: StageConfig, args: MedSFTConfig, *, model: str | None = None, patient: ChatClient | None = None
) -> SFTTrainer:
    """An ``SFTTrainer`` on the warm-start dialogues (built, or read back from the stage's folder)."""
    from datasets import Dataset

    from policy.model import load_model

    loaded = load_model(model or config.model)
    output_dir = Path(args.output_dir)
    dialogues = load_or_build_dialogues(config, output_dir, loaded.tokenizer, patient)
    rows = []
    for result in dialogues:
        input_ids, labels = sft_tokens(loaded.tokenizer, doctor_view(result))
        rows.append({"input_ids": input_ids, "labels": labels})
    if not rows:
        raise StageConfigError("stage sft: no complete warm-start dialogue (check data.cases)")
    return SFTTrainer(
        model=loaded.model,
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=loaded.tokenizer,
        callbacks=[JsonlMetricsCallback(output_dir / "metrics.jsonl", config.stage), ReturnFreedMemory()],
    )


def load_or_build_dialogues(
    config: StageConfig, output_dir: Path, tokenizer: Any, patient: ChatClient | None = None
) -> list[ConsultationResult]:
    """The stage's complete dialogues; written to ``dialogues.jsonl`` (with ``sft_data.json``) and read
    back by a later run with the same cases, sampling and ``warm_start`` settings."""
    cases = stage_cases(config)
    sampling = config.rollout.sampling()
    recipe = {"cases": [c.id for c in cases], "sampling": sampling.model_dump(mode="json"),
              "warm_start": config.warm_start.model_dump(mode="json")}
    path, summary_path = output_dir / DIALOGUES, output_dir / SUMMARY
    if path.is_file() and summary_path.is_file() and json.loads(summary_path.read_text()).get("recipe") == recipe:
        kept = [ConsultationResult.model_validate_json(line) for line in path.read_text().splitlines() if line]
        logger.info("read %d warm-start dialogues from %s", len(kept), path)
        return kept

    def fits(text: str) -> bool:  # a turn the model can say whole within the turn's token limit
        return len(tokenizer.encode(text, add_special_tokens=False)) < sampling.turn_tokens

    built = asyncio.run(warm_start_dialogues(
        cases, patient or default_patient(config.patient), sampling, variants=config.warm_start.variants,
        seed=config.warm_start.seed, concurrency=config.warm_start.concurrency, fits=fits, progress=True,
    ))
    kept = [r for r in built if is_complete(r)]
    output_dir.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r.model_dump_json() + "\n" for r in kept))
    reasons: dict[str, int] = {}
    for result in built:
        reasons[str(result.termination_reason)] = reasons.get(str(result.termination_reason), 0) + 1
    summary = {"recipe": recipe, "dialogues": len(built), "complete": len(kept), "termination": reasons,
               "patient_fallback_share": _share(sum(r.fallbacks for r in built), sum(r.patient_replies for r in built))}
    summary_path.write_text(json.dumps(summary, indent=1) + "\n")
    logger.info("warm start: %d of %d dialogues complete (%s)", len(kept), len(built), reasons)
    return kept


def doctor_view(result: ConsultationResult) -> list[Message]:
    """The dialogue as the doctor sees it (``ConsultationEnv.messages``): its system prompt, then the transcript."""
    return [Message(role="system", content=DOCTOR_SYSTEM_PROMPT), *result.transcript]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None
