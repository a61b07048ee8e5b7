"""The multi-turn ``rollout_func``: consultations between the current policy and the patient simulator.

For each prompt TRL hands over (one per completion; a group's prompts are consecutive), one
episode is played by **the** consultation loop (``patient_sim.loop.run_consultation``, the same loop
the consultation eval, ``simulate`` and the benchmarks use, with the same sampling defaults): doctor
turns are sampled from ``trainer.model`` through a ``LocalChatClient`` that batches the turns of all
concurrent episodes into one forward pass; the patient and the measurement responder answer through
``patient_sim.env.ConsultationEnv``.

The returned completion is the rest of the dialogue as tokens (``policy.tokens.TokenRecorder``):
doctor tokens as sampled (``env_mask`` 1) and environment tokens — the model's own chat template's
glue, the patient and measurement replies (``env_mask`` 0) — so the loss only ever sees the policy's
own tokens. The total is bounded by ``max_completion_tokens``; a turn that would overflow is cut and
the episode ends (``"budget"``), mask and ids staying the same length. A trajectory with a void doctor
turn is flagged (``void``) for the reward to drop (SimpleTIR).

ARPO-style branching (``branching.enabled``): before each doctor turn that follows a patient turn, the
policy's next-token entropy is compared with its entropy at the episode's first doctor turn (ARPO's
entropy rise after a tool response). The group's ``max_branches`` points of highest rise above
``threshold`` are forked (environment and recorder copied, the policy prefix shared) and each fork
continues with a different seed. The entropy is the one the local engine reports with the turn's first
token (a client that does not report it costs one forward pass of the policy per turn). A group keeps exactly ``num_generations`` trajectories: forks replace
some of the group's independent episodes. Ranking, not an absolute entropy, decides, because a warm-
started policy's entropy at turn starts is low (an absolute 2.5 nats never fired on SmolLM2-135M).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field, field_validator

from patient_sim.env import ConsultationEnv
from patient_sim.loop import SamplingConfig, new_env, run_consultation
from policy.engine.device import check_dtype, resolve_dtype
from policy.model import LoadedModel
from policy.tokens import TokenRecorder
from verifier.llm import ChatClient, Completion
from verifier.markers import is_void_turn
from verifier.types import Case, Message

logger = logging.getLogger(__name__)


class BranchingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    threshold: float = Field(0.0, description="rise in next-token entropy (nats) over the episode's first doctor "
                                              "turn that makes a point a fork candidate")
    max_branches: int = Field(1, ge=0, description="forks per group at its highest-rise candidates "
                                                   "(they replace independent episodes)")


class RolloutConfig(SamplingConfig):
    """The ``rollout:`` block of a multi-turn stage YAML: the shared sampling config (the same defaults
    as the consultation eval's) plus what only training needs."""

    max_completion_tokens: int | None = Field(384, ge=16, description="bound on the whole completion (all turns)")
    token_budget: int | None = Field(
        None, ge=1, description="end the stage once the policy has generated this many tokens (compare "
                                "branching with plain rollouts at an equal budget); None: max_steps decides")
    drop_void: bool = True
    episodes_per_case: int = Field(1, ge=1, description="dataset rows per case (distinct personas)")
    branching: BranchingConfig = Field(default_factory=BranchingConfig)
    dtype: str | None = Field(
        None, description="precision the doctor's turns are sampled in. None: on the trained weights themselves. "
                          "bfloat16 (or float16): on a copy in that precision, refreshed from the trained weights "
                          "before every step's rollouts, as a vLLM rollout engine beside a float32 trainer is; "
                          "the loss still uses the trained model's own log-probabilities")

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str | None) -> str | None:
        return check_dtype(value)

    def sampling(self) -> SamplingConfig:
        return SamplingConfig(**{name: getattr(self, name) for name in SamplingConfig.model_fields})


@dataclass
class EpisodeSpec:
    case: Case
    persona_seed: int


_OPENING_ATTEMPTS = 20  # personas tried for a case whose opening another case already has


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


class MultiTurnRollout:
    """A TRL ``rollout_func`` (call it as ``rollout(prompts, trainer)``)."""

    def __init__(self, cases: list[Case], patient: ChatClient, loaded: LoadedModel, config: RolloutConfig) -> None:
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
        self.entropy_rises: list[float] = []  # at every candidate fork point of branched groups (calibration)
        self.generated_tokens = 0  # sampled by the policy over all calls (a fork's shared prefix counts once)
        self._model: Any = loaded.model  # the model whose entropy decides branching (trainer.model in training)
        self._copy: tuple[Any, Any] | None = None  # (trained model, its copy in ``dtype`` the turns are sampled from)

    # ------------------------------------------------------------------ dataset
    def dataset_rows(self, *, seed: int = 0) -> list[dict[str, Any]]:
        """One row per (case, persona): the doctor's system prompt and the patient's opening.

        The opening is how a rollout knows its case, so a case whose opening would be another case's word
        for word ("I've been having fatigue.", two AgentClinic cases) is opened by its next persona."""
        rows = []
        for case in self.cases:
            for k in range(self.config.episodes_per_case):
                for attempt in range(_OPENING_ATTEMPTS):
                    spec = EpisodeSpec(case, persona_seed=seed * 1000 + k + 100 * attempt)
                    prompt = [m.model_dump() for m in self._prompt_messages(self._make_env(spec, env_seed=0))]
                    key = _key(prompt)
                    if key not in self._specs or self._specs[key].case.id == case.id:
                        break
                else:
                    raise ValueError(f"cases {case.id!r} and {self._specs[key].case.id!r} open identically "
                                     f"with {_OPENING_ATTEMPTS} personas")
                self._specs[key] = spec
                rows.append({"prompt": prompt, "case_id": case.id})
        return rows

    def _make_env(self, spec: EpisodeSpec, env_seed: int) -> ConsultationEnv:
        from patient_sim.personas import sample_persona

        return new_env(spec.case, sample_persona(spec.persona_seed, case=spec.case), self.patient,
                       self.config.sampling(), seed=env_seed)

    @staticmethod
    def _prompt_messages(env: ConsultationEnv) -> list[Message]:
        return env.messages()

    # ------------------------------------------------------------------ TRL entry point
    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        from policy.engine.client import LocalChatClient

        model = trainer.model
        self._model = model
        was_training = model.training
        model.eval()
        policy = LocalChatClient(
            LoadedModel(self.sampling_model(model), self.tokenizer, self.loaded.path, self.loaded.name),
            max_batch_size=len(prompts),
        )
        group = getattr(trainer, "num_generations", 1) or 1
        step = int(getattr(getattr(trainer, "state", None), "global_step", 0))
        try:
            trajectories = asyncio.run(self.run(prompts, policy, group=group, seed=step * 7919))
        finally:
            if was_training:
                model.train()
        self.calls += 1
        self.generated_tokens += policy.stats.generated_tokens
        return {
            "prompt_ids": [t.prompt_ids for t in trajectories],
            "completion_ids": [t.completion_ids for t in trajectories],
            "logprobs": [t.logprobs for t in trajectories],
            "env_mask": [t.env_mask for t in trajectories],
            "transcript": [json.dumps([m.model_dump() for m in t.transcript]) for t in trajectories],
            "void": [t.void for t in trajectories],
            "policy_tokens": [sum(t.env_mask) for t in trajectories],
        }

    async def run(self, prompts: list[Any], policy: ChatClient, *, group: int = 1, seed: int = 0) -> list[Trajectory]:
        """Play one episode per prompt concurrently (doctor turns batch together in ``policy``)."""
        specs = [self._spec_for(p) for p in prompts]
        branching = self.config.branching
        if not branching.enabled or branching.max_branches == 0 or group < 2:
            return list(
                await asyncio.gather(
                    *(self._episode(spec, policy, seed + i, env_seed=i) for i, spec in enumerate(specs))
                )
            )
        # Every group at once (a group's forks wait only for its own roots), as plain rollouts play every episode
        # at once: one group after another left the decoding batches a quarter as full (a 4x slower rollout).
        groups = await asyncio.gather(*(
            self._branched_group(specs[start : start + group], policy, seed + start)
            for start in range(0, len(specs), group)
        ))
        return [trajectory for trajectories in groups for trajectory in trajectories]

    def _spec_for(self, prompt: Any) -> EpisodeSpec:
        key = _key([m if isinstance(m, dict) else m.model_dump() for m in prompt])
        if key not in self._specs:
            raise KeyError("multi-turn rollout: a prompt that dataset_rows() did not build")
        return self._specs[key]

    async def _episode(
        self, spec: EpisodeSpec, policy: Any, seed: int, *, env_seed: int,
        start: tuple[ConsultationEnv, TokenRecorder] | None = None,
        forks: _ForkPoints | None = None, root: int = 0,
    ) -> Trajectory:
        """Play (or continue, from ``start``) one consultation; offer its fork points to ``forks``."""
        env, recorder = start if start is not None else (
            self._make_env(spec, env_seed), TokenRecorder(self.tokenizer, self.config.max_completion_tokens))
        baseline: list[float] = []
        turn: dict[str, Any] = {}  # the doctor turn being played: its prompt, and what a fork from before it copies

        def fork_point(env: ConsultationEnv, recorder: Any) -> None:
            turn["messages"] = env.messages()
            turn["first"] = env.turns == 0
            # copied now, before the turn changes them (the rise is known only after it); kept only if it ranks
            turn["snapshot"] = None if env.turns == 0 else (
                copy.deepcopy(env, {id(self.patient): self.patient}), copy.deepcopy(recorder))

        def turn_played(completion: Completion) -> None:
            assert forks is not None
            # The engine reports the entropy where the turn starts; a client that does not is asked once more.
            entropy = completion.first_entropy
            if entropy is None:
                entropy = self._entropy(turn["messages"])
            if turn["first"]:
                baseline.append(entropy)
                return
            rise = entropy - baseline[0]
            self.entropy_rises.append(rise)
            if rise > self.config.branching.threshold:
                forks.offer(rise, root, turn["snapshot"])

        doctor = policy if forks is None else _Reporting(policy, turn_played)
        result = await run_consultation(env, doctor, self.config.sampling(), seed=seed, recorder=recorder,
                                        before_turn=fork_point if forks is not None else None)
        tokens = result.tokens
        assert tokens is not None  # a recorder was given
        doctor_turns = [m.content for m in result.transcript if m.role == "assistant"]
        return Trajectory(
            prompt_ids=tokens.prompt_ids, completion_ids=tokens.completion_ids, env_mask=tokens.env_mask,
            logprobs=tokens.logprobs, doctor_turns=doctor_turns, transcript=result.transcript,
            void=any(is_void_turn(t) for t in doctor_turns), ended=result.termination_reason or "done",
        )

    async def _branched_group(self, specs: list[EpisodeSpec], policy: Any, seed: int) -> list[Trajectory]:
        """ARPO: fewer independent episodes, the rest forked at the roots' highest entropy rises."""
        n_roots = max(1, len(specs) - self.config.branching.max_branches)
        forks = _ForkPoints(len(specs) - n_roots)
        roots = await asyncio.gather(
            *(self._episode(spec, policy, seed + i, env_seed=i, forks=forks, root=i) for i, spec in enumerate(specs[:n_roots]))
        )
        points = forks.best()
        extra = []
        for j in range(len(specs) - n_roots):
            index = n_roots + j
            if j < len(points):
                self.branches += 1
                extra.append(self._episode(specs[index], policy, seed + 10_000 + j, env_seed=index,
                                           start=points[j][1]))
            else:
                extra.append(self._episode(specs[index], policy, seed + index, env_seed=index))
        branched = list(await asyncio.gather(*extra))
        for trajectory, (origin, _) in zip(branched, points, strict=False):  # forks come first
            trajectory.branched_from = origin
        return [*roots, *branched]

    @torch.no_grad()
    def sampling_model(self, model: torch.nn.Module) -> torch.nn.Module:
        """The model the doctor's turns are sampled from: ``model`` itself, or (``dtype``) this rollout's copy of
        it in that precision, its weights copied from ``model``'s now (the copy is made once, then reused)."""
        if self.config.dtype is None:
            return model
        if self._copy is None or self._copy[0] is not model:
            weights = next(model.parameters())
            target = resolve_dtype(self.config.dtype, weights.device)
            if target == weights.dtype:
                self._copy = (model, model)
            else:
                twin = copy.deepcopy(model).to(target).eval().requires_grad_(False)
                for parameter in twin.parameters():
                    parameter.grad = None
                self._copy = (model, twin)
        twin = self._copy[1]
        if twin is not model:
            for mine, theirs in zip(twin.state_dict().values(), model.state_dict().values(), strict=True):
                mine.copy_(theirs)
        return twin

    # ------------------------------------------------------------------ helpers
    def _render(self, messages: list[Message], *, generation_prompt: bool) -> list[int]:
        return TokenRecorder(self.tokenizer).render_ids(messages, generation_prompt=generation_prompt)

    @torch.inference_mode()
    def _entropy(self, messages: list[Message]) -> float:
        """The policy's next-token entropy (nats) at the start of the doctor's next turn."""
        from policy.engine.engine import model_lock

        ids = torch.tensor([self._render(messages, generation_prompt=True)])
        model = self._model
        with model_lock(model):  # not inside a pass of the policy's own decoding engine
            logits = model(input_ids=ids.to(next(model.parameters()).device)).logits[0, -1].float()
        logp = torch.log_softmax(logits, dim=-1)
        value = float(-(logp.exp() * logp).sum())
        return value if math.isfinite(value) else 0.0


class _Reporting:
    """A doctor client that hands each completion to ``on_completion`` before the consultation sees it."""

    def __init__(self, client: Any, on_completion: Callable[[Completion], None]) -> None:
        self.client = client
        self.model = getattr(client, "model", "policy")
        self.on_completion = on_completion

    async def complete(self, messages: list[Message], **kwargs: Any) -> Completion:
        completion = await self.client.complete(messages, **kwargs)
        self.on_completion(completion)
        return completion


class _ForkPoints:
    """The ``size`` highest-rise fork points offered so far (each with its copy of the env and recorder)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._points: list[tuple[float, int, int, tuple[ConsultationEnv, TokenRecorder]]] = []
        self._offered = 0

    def offer(self, rise: float, root: int, snapshot: tuple[ConsultationEnv, TokenRecorder]) -> None:
        self._offered += 1
        if self.size == 0 or (len(self._points) == self.size and rise <= self._points[-1][0]):
            return
        self._points.append((rise, -self._offered, root, snapshot))
        self._points.sort(key=lambda p: (p[0], p[1]), reverse=True)
        del self._points[self.size:]

    def best(self) -> list[tuple[int, tuple[ConsultationEnv, TokenRecorder]]]:
        """(root index, snapshot) of each kept point, highest rise first."""
        return [(root, point) for _, _, root, point in self._points]


def _key(prompt: list[dict[str, Any]]) -> str:
    return json.dumps([[m.get("role"), m.get("content")] for m in prompt])
