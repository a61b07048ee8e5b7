"""Validation during a stage: greedy answers on cases set aside from training, and keep the best model.

A short GRPO run on a small model does not improve monotonically: in the rule stage the 135M
model's held-out accuracy rose by step 12 and fell back by step 32. So every ``every`` steps the
live policy answers the validation prompts greedily, the stage's own reward function scores them
(without the length penalty), and the best-scoring weights so far are saved to ``best/``. The step-0
model is validated too, so a run that never beats its starting point keeps the starting point.

The validation prompts come from training cases (never the held-out split): ``split_validation``
sets aside whole cases, so no case is both trained on and validated on.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import random
import shutil
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from transformers import TrainerCallback

logger = logging.getLogger(__name__)

BEST_DIR = "best"
BEST_RECORD = "best.json"


class ValidationConfig(BaseModel):
    """The ``validation:`` block of a stage YAML (rule and rubric stages)."""

    model_config = ConfigDict(extra="forbid")

    every: int = Field(0, ge=0, description="validate every N training steps (and at step 0); 0 = off")
    cases: int = Field(4, ge=1, description="training cases set aside for validation (whole cases)")
    max_items: int = Field(32, ge=1, description="validation prompts scored each time")
    max_tokens: int | None = Field(None, ge=1, description="answer tokens (default: max_completion_length)")
    keep: Literal["best", "last"] = "best"  # which weights become final/: the best validated or the last step
    seed: int = 0


def row_group(row: dict[str, Any], index: int) -> str:
    """The case a row belongs to: its ``case_id`` column, else its ``item_id``, else its position."""
    return str(row.get("case_id") or row.get("item_id") or index)


def split_validation(
    rows: list[dict[str, Any]], config: ValidationConfig
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(training rows, validation rows): ``config.cases`` whole cases, drawn by seed, go to validation.

    The validation rows are interleaved across their cases and capped at ``max_items``, so a cap
    keeps every set-aside case represented.
    """
    groups: dict[str, list[dict[str, Any]]] = {}
    for index, row in enumerate(rows):
        groups.setdefault(row_group(row, index), []).append(row)
    if len(groups) <= config.cases:
        raise ValueError(
            f"validation.cases={config.cases} would leave nothing to train on ({len(groups)} case(s) in the data)"
        )
    chosen = set(random.Random(config.seed).sample(sorted(groups), config.cases))
    train = [row for index, row in enumerate(rows) if row_group(row, index) not in chosen]
    columns = [groups[g] for g in sorted(chosen)]
    interleaved = [col[i] for i in range(max(map(len, columns))) for col in columns if i < len(col)]
    return train, interleaved[: config.max_items]


class ValidationCallback(TrainerCallback):
    """Scores the live policy on the validation rows and saves the best weights to ``output_dir/best``.

    Each validation appends ``{"stage", "step", "val_reward", "val_items", "val_s"}`` to the stage's
    metrics JSONL. ``best.json`` records the best step and score, so a resumed run keeps its best.
    """

    def __init__(
        self,
        rows: list[dict[str, Any]],
        reward: Any,
        tokenizer: Any,
        config: ValidationConfig,
        output_dir: Path,
        *,
        max_tokens: int,
        stage: str,
        model_name: str = "policy",
    ) -> None:
        if not rows:
            raise ValueError("validation needs at least one row")
        self.rows = rows
        self.reward = reward
        self.tokenizer = tokenizer
        self.config = config
        self.output_dir = Path(output_dir)
        self.max_tokens = max_tokens
        self.stage = stage
        self.model_name = model_name
        record = self.output_dir / BEST_RECORD
        saved = json.loads(record.read_text()) if record.is_file() else {}
        self.best_step: int | None = saved.get("step")
        self.best_reward: float | None = saved.get("val_reward")
        self.history: list[dict[str, float]] = saved.get("history", [])
        self._done = {int(h["step"]) for h in self.history}

    # ------------------------------------------------------------------ trainer events
    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        self._maybe_validate(state.global_step, model)

    def on_step_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        if self.config.every and state.global_step % self.config.every == 0:
            self._maybe_validate(state.global_step, model)

    def on_train_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        self._maybe_validate(state.global_step, model)  # the last step, when ``every`` does not divide it

    # ------------------------------------------------------------------ validation
    def _maybe_validate(self, step: int, model: Any) -> None:
        if model is None or step in self._done:
            return
        self._done.add(step)
        started = time.perf_counter()
        score, unscored = self.score(model)
        seconds = round(time.perf_counter() - started, 2)
        self.history.append({"step": step, "val_reward": score, "val_unscored": unscored})
        if score is None:  # nothing could be graded: no evidence either way, the best model stays
            logger.warning("validation at step %d: none of %d answers could be graded", step, unscored)
        elif self.best_reward is None or score > self.best_reward:
            self.best_step, self.best_reward = step, score
            self._save_best(model)
        if score is not None:
            logger.info("validation at step %d: reward %.4f (best %.4f at step %s, %d unscored) in %.1fs",
                        step, score, self.best_reward, self.best_step, unscored, seconds)
        self._write(self.output_dir / "metrics.jsonl", {
            "stage": self.stage, "step": step, "val_reward": score, "val_items": len(self.rows),
            "val_unscored": unscored, "val_s": seconds, "val_best_step": self.best_step,
        })
        (self.output_dir / BEST_RECORD).write_text(json.dumps({
            "step": self.best_step, "val_reward": self.best_reward, "history": self.history,
        }, indent=1))

    def score(self, model: Any) -> tuple[float | None, int]:
        """Mean reward of greedy answers to the validation prompts, and how many could not be graded
        (None rewards are left out of the mean; the mean is None when none was graded)."""
        texts = self._answers(model)
        columns = {key: [row[key] for row in self.rows] for key in self.rows[0] if key != "prompt"}
        prompts = [row["prompt"] for row in self.rows]
        completions = [[{"role": "assistant", "content": text}] for text in texts]
        rewards = self.reward(prompts=prompts, completions=completions, **columns)
        if inspect.isawaitable(rewards):
            rewards = asyncio.run(_awaited(rewards))
        scored = [float(r) for r in rewards if r is not None]
        unscored = len(rewards) - len(scored)
        return (round(sum(scored) / len(scored), 4) if scored else None), unscored

    def _answers(self, model: Any) -> list[str]:
        from policy.engine.client import LocalChatClient
        from policy.model import LoadedModel
        from verifier.types import Message

        was_training = model.training
        model.eval()
        client = LocalChatClient(LoadedModel(model, self.tokenizer, self.output_dir, self.model_name), max_batch_size=16)

        async def run() -> list[str]:
            try:
                outs = await asyncio.gather(*(
                    client.complete([Message(**m) for m in row["prompt"]], max_tokens=self.max_tokens, temperature=0.0)
                    for row in self.rows
                ))
            finally:
                await client.aclose()
            return [o.text for o in outs]

        try:
            return asyncio.run(run())
        finally:
            if was_training:
                model.train()

    def _save_best(self, model: Any) -> None:
        best = self.output_dir / BEST_DIR
        partial = self.output_dir / f"{BEST_DIR}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        model.save_pretrained(str(partial))
        self.tokenizer.save_pretrained(str(partial))
        shutil.rmtree(best, ignore_errors=True)
        partial.rename(best)  # a kill mid-save never leaves a half-written best/

    @staticmethod
    def _write(path: Path, record: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as fh:
            fh.write(json.dumps(record) + "\n")


async def _awaited(value: Any) -> Any:
    return await value
