"""``EngineStats``: what the engine has done, for tests, ``/metrics`` and the benchmarks.

One object per client, updated by its decoding thread as it goes (read it from any thread: each
field is a plain number or a list that only grows). ``snapshot()`` copies it, for figures that must
not move while they are read.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field


@dataclass
class EngineStats:
    forward_passes: int = 0  # every forward of the model: prefill passes, decoding steps, ragged passes
    admissions: int = 0  # turns that admitted requests (each group admitted together)
    admitted: list[int] = field(default_factory=list)  # requests admitted per admission
    batch_sizes: list[int] = field(default_factory=list)  # decoding rows in each step that decoded
    generated_tokens: int = 0
    prompt_tokens: int = 0  # prompt tokens of admitted requests
    prefix_hit_tokens: int = 0  # of those, served from the prefix cache instead of prefilled
    fused_prefills: int = 0  # prompts prefilled in a ragged pass (along decoding rows or each other)
    prefill_seconds: float = 0.0  # wall time in prefill passes (ragged passes without decoding rows too)
    decode_seconds: float = 0.0  # wall time in decoding steps (ragged passes with decoding rows too)

    @property
    def decode_steps(self) -> int:
        """Passes that decoded a token for the running batch (plain or ragged)."""
        return len(self.batch_sizes)

    @property
    def prefill_passes(self) -> int:
        """Passes that only prefilled prompts."""
        return self.forward_passes - len(self.batch_sizes)

    @property
    def mean_batch(self) -> float:
        """Mean decoding rows per decoding step (0 before the first step)."""
        return sum(self.batch_sizes) / len(self.batch_sizes) if self.batch_sizes else 0.0

    @property
    def prefix_hit_share(self) -> float:
        """The share of admitted prompt tokens served from the prefix cache."""
        return self.prefix_hit_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def snapshot(self) -> EngineStats:
        return copy.deepcopy(self)
