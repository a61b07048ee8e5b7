"""The multi-turn ``rollout_func``: consultations between the current policy and the patient simulator.

For each prompt TRL hands over (one per completion; a group's prompts are consecutive), one
episode is played: the doctor turns are sampled from ``trainer.model`` through a
``LocalChatClient`` that batches the turns of all concurrent episodes into one forward pass; the
patient and the measurement responder answer through ``patient_sim.env.ConsultationEnv``.

The returned completion is the rest of the dialogue in chat-template form: doctor tokens (as
sampled, ``env_mask`` 1) and environment tokens (template glue, patient and measurement replies,
``env_mask`` 0), so the loss only ever sees the policy's own tokens. The total is bounded by
``max_completion_tokens``; a turn that would overflow is cut and the episode ends, mask and ids
staying the same length. A trajectory with a void doctor turn is flagged (``void``) for the reward
to drop (SimpleTIR).

ARPO-style branching (``branching.enabled``): when, after a patient turn, the policy's next-token
entropy exceeds ``threshold``, the episode is forked (environment deep-copied, the policy prefix
shared) and the fork continues with a different seed. A group keeps exactly ``num_generations``
trajectories: forks replace some of the group's independent episodes instead of adding to them.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import math
from dataclasses import dataclass, field
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field

from policy.model import LoadedModel
from verifier.markers import is_void_turn
from verifier.types import Case, Message

logger = logging.getLogger(__name__)


class BranchingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    threshold: float = Field(2.5, description="next-token entropy (nats) that triggers a fork")
    max_branches: int = Field(1, ge=0, description="forks per group (they replace independent episodes)")


class RolloutConfig(BaseModel):
    """The ``rollout:`` block of a multi-turn stage YAML."""

    model_config = ConfigDict(extra="forbid")

    max_turns: int = Field(4, ge=1)
    turn_tokens: int = Field(48, ge=4, description="max tokens per doctor turn")
    max_completion_tokens: int = Field(256, ge=16, description="bound on the whole completion (all turns)")
    min_turn_tokens: int = Field(8, ge=1)
    temperature: float = Field(1.0, ge=0.0)
    patient_max_tokens: int = Field(32, ge=4)
    drop_void: bool = True
    episodes_per_case: int = Field(1, ge=1, description="dataset rows per case (distinct personas)")
    branching: BranchingConfig = Field(default_factory=BranchingConfig)


@dataclass
class EpisodeSpec:
    case: Case
    persona_seed: int


@dataclass
class Trajectory:
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    doctor_turns: list[str] = field(default_factory=list)
    transcript: list[Message] = field(default_factory=list)
    void: bool = False
    ended: str = ""
    branched_from: int | None = None

    def add(self, ids: list[int], mask: int, logprobs: list[float] | None = None) -> None:
        self.completion_ids.extend(ids)
        self.env_mask.extend([mask] * len(ids))
        self.logprobs.extend(logprobs if logprobs is not None else [0.0] * len(ids))


class MultiTurnRollout:
    """A TRL ``rollout_func`` (call it as ``rollout(prompts, trainer)``)."""

    def __init__(self, cases: list[Case], patient: Any, loaded: LoadedModel, config: RolloutConfig) -> None:
        if not cases:
            raise ValueError("multi-turn rollout: no cases")
        self.cases = cases
        self.patient = patient
        self.loaded = loaded
        self.tokenizer = loaded.tokenizer
        self.config = config
        self._specs: dict[str, EpisodeSpec] = {}
        self.calls = 0
        self.branches = 0
        self._model: Any = loaded.model  # the model whose entropy decides branching (trainer.model in training)

    # ------------------------------------------------------------------ dataset
    def dataset_rows(self, *, seed: int = 0) -> list[dict[str, Any]]:
        """One row per (case, persona): the doctor's system prompt and the patient's opening."""
        rows = []
        for case in self.cases:
            for k in range(self.config.episodes_per_case):
                spec = EpisodeSpec(case, persona_seed=seed * 1000 + k)
                env = self._make_env(spec, env_seed=0)
                prompt = [m.model_dump() for m in self._prompt_messages(env)]
                key = _key(prompt)
                if key in self._specs and self._specs[key].case.id != case.id:
                    raise ValueError(f"cases {case.id!r} and {self._specs[key].case.id!r} open identically")
                self._specs[key] = spec
                rows.append({"prompt": prompt, "case_id": case.id})
        return rows

    def _make_env(self, spec: EpisodeSpec, env_seed: int) -> Any:
        from patient_sim.env import ConsultationEnv
        from patient_sim.personas import sample_persona

        persona = sample_persona(spec.persona_seed, case=spec.case)
        return ConsultationEnv(
            spec.case, persona, self.patient, max_turns=self.config.max_turns, seed=env_seed,
            patient_max_tokens=self.config.patient_max_tokens,
        )

    @staticmethod
    def _prompt_messages(env: Any) -> list[Message]:
        from patient_sim.prompts import DOCTOR_SYSTEM_PROMPT

        return [Message(role="system", content=DOCTOR_SYSTEM_PROMPT), Message(role="user", content=env.opening())]

    # ------------------------------------------------------------------ TRL entry point
    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        from policy.local import LocalChatClient

        model = trainer.model
        self._model = model
        was_training = model.training
        model.eval()
        policy = LocalChatClient(
            LoadedModel(model, self.tokenizer, self.loaded.path, self.loaded.name), max_batch_size=len(prompts)
        )
        group = getattr(trainer, "num_generations", 1) or 1
        step = int(getattr(getattr(trainer, "state", None), "global_step", 0))
        try:
            trajectories = asyncio.run(self.run(prompts, policy, group=group, seed=step * 7919))
        finally:
            if was_training:
                model.train()
        self.calls += 1
        return {
            "prompt_ids": [t.prompt_ids for t in trajectories],
            "completion_ids": [t.completion_ids for t in trajectories],
            "logprobs": [t.logprobs for t in trajectories],
            "env_mask": [t.env_mask for t in trajectories],
            "transcript": [json.dumps([m.model_dump() for m in t.transcript]) for t in trajectories],
            "void": [t.void for t in trajectories],
            "policy_tokens": [sum(t.env_mask) for t in trajectories],
        }

    async def run(self, prompts: list[Any], policy: Any, *, group: int = 1, seed: int = 0) -> list[Trajectory]:
        """Play one episode per prompt concurrently (doctor turns batch together in ``policy``)."""
        specs = [self._spec_for(p) for p in prompts]
        branching = self.config.branching
        if not branching.enabled or branching.max_branches == 0 or group < 2:
            return list(
                await asyncio.gather(
                    *(self._episode(spec, policy, seed + i, env_seed=i) for i, spec in enumerate(specs))
                )
            )
        results: list[Trajectory] = []
        for start in range(0, len(specs), group):
            results.extend(await self._branched_group(specs[start : start + group], policy, seed + start))
        return results

    def _spec_for(self, prompt: Any) -> EpisodeSpec:
        key = _key([m if isinstance(m, dict) else m.model_dump() for m in prompt])
        if key not in self._specs:
            raise KeyError("multi-turn rollout: a prompt that dataset_rows() did not build")
        return self._specs[key]

    async def _episode(
        self, spec: EpisodeSpec, policy: Any, seed: int, *, env_seed: int, start: tuple[Any, Trajectory] | None = None,
        forks: list[tuple[Any, Trajectory]] | None = None,
    ) -> Trajectory:
        """Play (or continue, from ``start``) one consultation; record fork points into ``forks``."""
        cfg = self.config
        if start is None:
            env = self._make_env(spec, env_seed)
            messages = self._prompt_messages(env)
            traj = Trajectory(prompt_ids=self._render(messages, generation_prompt=True))
            traj.transcript = [messages[1]]
        else:
            env, traj = start
        turn = len(traj.doctor_turns)
        while True:
            budget = cfg.max_completion_tokens - len(traj.completion_ids)
            if budget < cfg.min_turn_tokens:
                traj.ended = "budget"
                break
            messages = self._conversation(traj)
            if forks is not None and turn > 0 and self._entropy(messages) > cfg.branching.threshold:
                forks.append((copy.deepcopy(env, {id(self.patient): self.patient}), copy.deepcopy(traj)))
            done = await self._doctor_turn(env, traj, policy, seed * 101 + turn, min(cfg.turn_tokens, budget))
            turn += 1
            if done:
                break
        return traj

    async def _doctor_turn(self, env: Any, traj: Trajectory, policy: Any, seed: int, max_tokens: int) -> bool:
        """One doctor turn and the environment's answer; True when the episode is over."""
        completion = await policy.complete(
            self._conversation(traj), max_tokens=max_tokens, temperature=self.config.temperature, seed=seed
        )
        traj.add(list(completion.tokens), 1, list(completion.logprobs or [0.0] * len(completion.tokens)))
        text = completion.text.strip()
        traj.doctor_turns.append(text)
        traj.transcript.append(Message(role="assistant", content=text))
        if is_void_turn(text):
            traj.void = True
        im_end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        if not completion.tokens or completion.tokens[-1] != im_end:
            traj.add([im_end], 0)  # the template's end of turn, supplied by the environment
        result = await env.step(text)
        if result.done and not result.reply:
            traj.ended = result.reason or "done"
            return True
        traj.transcript.append(Message(role="user", content=result.reply))
        tail = "" if result.done else "\n<|im_start|>assistant\n"
        env_ids = self.tokenizer.encode(f"\n<|im_start|>user\n{result.reply}<|im_end|>{tail}", add_special_tokens=False)
        room = self.config.max_completion_tokens - len(traj.completion_ids)
        traj.add(env_ids[: max(room, 0)], 0)
        if result.done or len(env_ids) > room:
            traj.ended = (result.reason or "done") if result.done else "budget"
            return True
        return False

    async def _branched_group(self, specs: list[EpisodeSpec], policy: Any, seed: int) -> list[Trajectory]:
        """ARPO: fewer independent episodes, the rest forked at high-entropy points after patient turns."""
        n_roots = max(1, len(specs) - self.config.branching.max_branches)
        forks: list[tuple[Any, Trajectory]] = []
        roots = await asyncio.gather(
            *(self._episode(spec, policy, seed + i, env_seed=i, forks=forks) for i, spec in enumerate(specs[:n_roots]))
        )
        extra = []
        for j in range(len(specs) - n_roots):
            index = n_roots + j
            if j < len(forks):
                env, prefix = forks[j]
                prefix.branched_from = 0
                self.branches += 1
                extra.append(self._episode(specs[index], policy, seed + 10_000 + j, env_seed=index, start=(env, prefix)))
            else:
                extra.append(self._episode(specs[index], policy, seed + index, env_seed=index))
        return [*roots, *(await asyncio.gather(*extra))]

    # ------------------------------------------------------------------ helpers
    def _conversation(self, traj: Trajectory) -> list[Message]:
        from patient_sim.prompts import DOCTOR_SYSTEM_PROMPT

        return [Message(role="system", content=DOCTOR_SYSTEM_PROMPT), *traj.transcript]

    def _render(self, messages: list[Message], *, generation_prompt: bool) -> list[int]:
        ids = self.tokenizer.apply_chat_template(
            [m.model_dump() for m in messages], add_generation_prompt=generation_prompt, tokenize=True
        )
        if hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids)

    @torch.inference_mode()
    def _entropy(self, messages: list[Message]) -> float:
        """The policy's next-token entropy (nats) at the start of the doctor's next turn."""
        ids = torch.tensor([self._render(messages, generation_prompt=True)])
        model = self._model
        logits = model(input_ids=ids.to(next(model.parameters()).device)).logits[0, -1].float()
        logp = torch.log_softmax(logits, dim=-1)
        value = float(-(logp.exp() * logp).sum())
        return value if math.isfinite(value) else 0.0


def _key(prompt: list[dict[str, Any]]) -> str:
    return json.dumps([[m.get("role"), m.get("content")] for m in prompt])
