"""The TRL trainer arguments of each stage, with this project's defaults (overridable from a YAML's ``trainer:``).

``MedGRPOConfig`` carries the Baichuan-M2/DAPO defaults (no KL, clip-higher, token-level loss, no std
scaling) and CPU-friendly generation; ``MedSFTConfig`` the warm start's (a few epochs over a few hundred
dialogues, a higher learning rate than RL's). Both train on the CPU unless ``--device`` says otherwise.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from trl import GRPOConfig, SFTConfig


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
    bf16: bool | None = field(default=False, metadata={"help": "bfloat16 autocast (on a CPU with AVX512-BF16 or AMX, a multi-turn GRPO step's forward/backward took 29-32 s against 42-43 s in float32, and 57-59 s against 81-82 s under load; see multiturn.yaml on why it is off)."})
    report_to: Any = field(default="none", metadata={"help": "Integrations to report to."})
    use_cpu: bool = field(default=True, metadata={"help": "Train on CPU (use --device to change)."})



@dataclass
class MedSFTConfig(SFTConfig):
    """``SFTConfig`` for the warm start: the dataset comes tokenized with its labels (doctor tokens only)."""

    learning_rate: float = field(default=2e-4, metadata={"help": "AdamW learning rate."})
    num_train_epochs: float = field(default=2.0, metadata={"help": "Passes over the dialogues."})
    per_device_train_batch_size: int = field(default=4, metadata={"help": "Dialogues per device step."})
    max_length: int | None = field(default=1024, metadata={"help": "Tokens per dialogue (longer ones are cut)."})
    logging_steps: float = field(default=1, metadata={"help": "Log every N steps."})
    save_steps: float = field(default=50, metadata={"help": "Checkpoint every N steps."})
    save_total_limit: int | None = field(default=2, metadata={"help": "Checkpoints kept."})
    gradient_checkpointing: bool = field(default=False, metadata={"help": "Gradient checkpointing."})
    bf16: bool | None = field(default=False, metadata={"help": "bfloat16 autocast (on a CPU with AVX512-BF16 or AMX, a multi-turn GRPO step's forward/backward took 29-32 s against 42-43 s in float32, and 57-59 s against 81-82 s under load; see multiturn.yaml on why it is off)."})
    report_to: Any = field(default="none", metadata={"help": "Integrations to report to."})
    use_cpu: bool = field(default=True, metadata={"help": "Train on CPU (use --device to change)."})


GRPO_FIELDS = frozenset(f.name for f in dataclasses.fields(MedGRPOConfig))
SFT_FIELDS = frozenset(f.name for f in dataclasses.fields(MedSFTConfig))
