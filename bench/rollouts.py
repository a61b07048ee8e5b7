"""Consultation rollouts through the one consultation loop: the eval path and the training path.

The same N consultations (same cases, personas and seeds) in one process, embedded model as doctor and
patient: one at a time, then all at once (their model calls share batches in ``LocalChatClient``), all
at once again with every prefill in a pass of its own (no ragged passes, ``ragged_pass_gain``), and
the **training path**: the same loop as GRPO's ``rollout_func`` runs it (``MultiTurnRollout``,
token-level recording with the model's chat template, the policy on a client of its own, the patient as
multiturn.yaml's ``patient:`` block says: the grounded template by default, every episode at once), beside the
eval path with the same template patient (``concurrent_template``, the same workload: target >= 0.9), and the
eval path as it runs for a trained doctor (``two_models``: the doctor's weights are not the patient's, so their
turns cannot share a pass). ``--also-model-patient`` adds the training path with the embedded model voicing the
patient on a frozen copy of the weights. Prints one JSON line: episodes per minute for each, the ratios (the
concurrent speed-up target >= 4x), the share of patient replies that needed the template fallback, and the
longest episode's generated tokens, which bound how full the concurrent decoding batches can be.

The sampling settings are the shared defaults (``patient_sim.loop.SamplingConfig``) unless given:

    .venv/bin/python bench/rollouts.py                                   # 16 episodes, the shared defaults
    .venv/bin/python bench/rollouts.py --doctor-max-tokens 96            # the eval path's old settings
    .venv/bin/python bench/rollouts.py --episodes 4                      # smaller
    .venv/bin/python bench/rollouts.py --skip-sequential                 # training path vs eval path only
    .venv/bin/python bench/rollouts.py --skip-sequential --skip-two-models --also-bfloat16   # float32 beside bfloat16
    .venv/bin/python bench/rollouts.py --skip-sequential --skip-two-models --arpo   # ARPO's rollouts beside plain
    .venv/bin/python bench/rollouts.py --skip-sequential --skip-two-models --also-model-patient  # the model-voiced patient
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _engine_figures(figures: dict[str, object], mode: str, client, elapsed: float, episodes: int) -> None:  # noqa: ANN001
    stats = client.stats
    figures[f"{mode}_s"] = round(elapsed, 1)
    figures[f"{mode}_episodes_per_min"] = round(60 * episodes / elapsed, 2)
    figures[f"{mode}_mean_batch"] = round(stats.mean_batch, 2)
    figures[f"{mode}_generated_tokens"] = stats.generated_tokens
    figures[f"{mode}_prompt_tokens"] = stats.prompt_tokens
    figures[f"{mode}_prefill_s"] = round(stats.prefill_seconds, 1)
    figures[f"{mode}_decode_s"] = round(stats.decode_seconds, 1)
    figures[f"{mode}_decode_steps"] = stats.decode_steps
    figures[f"{mode}_prefill_passes"] = stats.prefill_passes
    figures[f"{mode}_prefills_riding_along"] = stats.fused_prefills
    figures[f"{mode}_prefix_hit_share"] = round(stats.prefix_hit_share, 3)


async def _training_path(args: argparse.Namespace, loaded, cases, sampling, figures, mode: str = "training",  # noqa: ANN001
                         dtype: str | None = None) -> None:
    """The rollout loop as GRPO uses it: token-level, the current policy on its own client, the patient on a
    frozen copy of the model (``policy.stage_config.default_patient``: the policy's weights change).
    ``mode="arpo"``: the same episodes with multiturn.yaml's ARPO branching, in groups of its ``num_generations``.
    ``dtype``: the patient and the policy's sampling copy in that precision (default: ``--patient-dtype`` and
    ``--rollout-dtype``)."""
    from patient_sim.patient import TemplateVoice
    from policy.engine.client import LocalChatClient
    from policy.model import LoadedModel, load_model
    from policy.rollout import MultiTurnRollout, RolloutConfig
    from policy.stage_config import TEMPLATE_PATIENT, default_config_path, load_stage_config

    stage = load_stage_config(default_config_path("multiturn"))
    # multiturn.yaml's patient (the template, no model) unless the mode asks for the embedded model's voice
    model_voiced = mode in ("training_model", "training_bf16") or stage.patient.model != TEMPLATE_PATIENT
    patient = LocalChatClient(load_model("embedded", dtype=dtype or args.patient_dtype),
                              max_batch_size=max(1, min(args.episodes, args.max_batch))) if model_voiced else TemplateVoice()
    branching = stage.rollout.branching.model_copy(update={"enabled": mode == "arpo"})
    group = int(stage.trainer.get("num_generations", 4)) if mode == "arpo" else 1
    config = RolloutConfig(**sampling.model_dump(exclude={"max_completion_tokens"}), max_completion_tokens=8192,
                           dtype=dtype or args.rollout_dtype, branching=branching)
    rollout = MultiTurnRollout(list({c.id: c for c in cases}.values()), patient, loaded, config)
    # The policy's turns as GRPO samples them: on the trained weights, or on the rollout's copy in ``dtype``.
    sampler = LoadedModel(rollout.sampling_model(loaded.model), loaded.tokenizer, loaded.path, loaded.name)
    policy = LocalChatClient(sampler, max_batch_size=max(1, min(args.episodes, args.max_batch)))
    rows = {r["case_id"]: r["prompt"] for r in rollout.dataset_rows(seed=args.seed)}
    prompts = [rows[c.id] for c in cases]
    start = time.perf_counter()
    trajectories = await rollout.run(prompts, policy, group=group, seed=args.seed)
    elapsed = time.perf_counter() - start
    await policy.aclose()
    _engine_figures(figures, mode, policy, elapsed, len(trajectories))
    if isinstance(patient, LocalChatClient):
        await patient.aclose()
        figures[f"{mode}_patient_generated_tokens"] = patient.stats.generated_tokens
    figures[f"{mode}_policy_tokens"] = sum(sum(t.env_mask) for t in trajectories)
    figures[f"{mode}_env_tokens"] = sum(len(t.env_mask) - sum(t.env_mask) for t in trajectories)
    figures[f"{mode}_terminations"] = _count(t.ended for t in trajectories)
    figures[f"{mode}_doctor_turns"] = sum(len(t.doctor_turns) for t in trajectories)
    if mode == "arpo":
        figures["arpo_branches"] = rollout.branches
        figures["arpo_group"] = group


async def _two_models(args: argparse.Namespace, cases, personas, sampling, figures) -> None:  # noqa: ANN001
    """The eval path as it runs for a trained doctor (``eval consult --model RUN/final``): the doctor on
    weights of its own, the patient on the embedded model's; two engines, as in training."""
    from patient_sim.loop import consult_many
    from policy.engine.client import LocalChatClient
    from policy.model import load_model

    size = max(1, min(args.episodes, args.max_batch))
    doctor = LocalChatClient(load_model("embedded"), max_batch_size=size)
    patient = LocalChatClient(load_model("embedded", dtype=args.patient_dtype), max_batch_size=size)
    start = time.perf_counter()
    results = await consult_many(cases, personas, doctor, patient, sampling, concurrency=args.episodes,
                                 seed=args.seed, progress=True)
    elapsed = time.perf_counter() - start
    await doctor.aclose()
    await patient.aclose()
    _engine_figures(figures, "two_models", doctor, elapsed, len(results))
    figures["two_models_patient_generated_tokens"] = patient.stats.generated_tokens


async def _template_eval_path(args: argparse.Namespace, loaded, cases, sampling, figures) -> None:  # noqa: ANN001
    """The eval path with the template patient: the doctor on the embedded model, every patient reply the grounded
    template (``--patient-model template``), the same workload as the training path with ``patient.model: template``:
    the same personas (``MultiTurnRollout.dataset_rows``' first persona of each case), so the same patience. With
    the eval path's own persona sample, the patients left after two turns in 8 of 16 consultations and 2 of 16 in the
    training path: the eval path did 28% fewer doctor turns, and the ratio measured the personas, not the paths."""
    from patient_sim.loop import consult_many
    from patient_sim.patient import TemplateVoice
    from patient_sim.personas import sample_persona
    from policy.engine.client import LocalChatClient

    personas = [sample_persona(args.seed * 1000, case=case) for case in cases]
    doctor = LocalChatClient(loaded, max_batch_size=max(1, min(args.episodes, args.max_batch)))
    start = time.perf_counter()
    results = await consult_many(cases, personas, doctor, TemplateVoice(), sampling, concurrency=args.episodes,
                                 seed=args.seed, progress=True)
    elapsed = time.perf_counter() - start
    await doctor.aclose()
    _engine_figures(figures, "concurrent_template", doctor, elapsed, len(results))
    figures["concurrent_template_doctor_turns"] = sum(r.turns for r in results)
    figures["concurrent_template_terminations"] = _count(r.termination_reason or "none" for r in results)


async def _run(args: argparse.Namespace) -> dict[str, object]:
    from patient_sim.cases import project_cases
    from patient_sim.loop import SamplingConfig, consult_many
    from patient_sim.personas import sample_personas
    from policy.engine.client import LocalChatClient
    from policy.model import load_model

    chosen = {"max_turns": args.max_turns, "turn_tokens": args.doctor_max_tokens, "temperature": args.temperature}
    sampling = SamplingConfig(**{k: v for k, v in chosen.items() if v is not None})
    loaded = load_model("embedded")
    all_cases = project_cases()
    cases = [all_cases[i % len(all_cases)] for i in range(args.episodes)]
    personas = sample_personas(args.episodes, seed=args.seed, cases=cases)
    figures: dict[str, object] = {"bench": "rollouts", "episodes": args.episodes, "sampling": sampling.model_dump(),
                                  "patient_dtype": args.patient_dtype or "float32",
                                  "rollout_dtype": args.rollout_dtype or "float32"}
    replies = fallbacks = leaks = turns = 0
    episode_tokens: list[int] = []
    # "concurrent_separate_prefills": the same concurrent run with every prefill in a pass of its own
    # (no ragged passes), side by side with the real one for the ragged passes' gain.
    modes = ("sequential", "concurrent_separate_prefills", "concurrent")
    for mode in modes[1:] if args.skip_sequential else modes:
        client = LocalChatClient(
            loaded, max_batch_size=max(1, min(args.episodes, args.max_batch)),
            fuse_prefills=mode != "concurrent_separate_prefills",
        )
        start = time.perf_counter()
        if mode == "sequential":  # one at a time, episode i with seed + i as consult_many gives it
            results = []
            for i in range(args.episodes):
                before = client.stats.generated_tokens
                results += await consult_many(cases[i:i + 1], personas[i:i + 1], client, client, sampling,
                                              concurrency=1, seed=args.seed + i, progress=False)
                episode_tokens.append(client.stats.generated_tokens - before)
        else:
            results = await consult_many(cases, personas, client, client, sampling, concurrency=args.episodes,
                                         seed=args.seed, progress=True)
        elapsed = time.perf_counter() - start
        await client.aclose()
        _engine_figures(figures, mode, client, elapsed, len(results))
        if mode == "concurrent_separate_prefills":  # a control run: its episodes are not counted twice
            continue
        replies += sum(r.patient_replies for r in results)
        fallbacks += sum(r.fallbacks for r in results)
        leaks += sum(r.leaks_caught for r in results)
        turns += sum(r.turns for r in results)
        figures[f"{mode}_terminations"] = _count(r.termination_reason or "none" for r in results)
    if not args.skip_two_models:
        await _two_models(args, cases, personas, sampling, figures)
    if not args.skip_training:
        await _training_path(args, loaded, cases, sampling, figures)
        figures["training_vs_concurrent"] = round(float(figures["concurrent_s"]) / float(figures["training_s"]), 3)
        # the same workload: the eval path with the training path's patient (multiturn.yaml's, the template)
        await _template_eval_path(args, loaded, cases, sampling, figures)
        figures["training_vs_concurrent_template"] = round(
            float(figures["concurrent_template_s"]) / float(figures["training_s"]), 3)
        figures["target_training_vs_concurrent_template"] = 0.9
        if not args.skip_two_models:  # the same two sets of weights on both paths
            figures["training_vs_two_models"] = round(float(figures["two_models_s"]) / float(figures["training_s"]), 3)
        if args.also_bfloat16:  # the same training path with the patient and the policy's sampling in bfloat16
            await _training_path(args, loaded, cases, sampling, figures, mode="training_bf16", dtype="bfloat16")
            figures["training_bf16_vs_concurrent"] = round(
                float(figures["concurrent_s"]) / float(figures["training_bf16_s"]), 3)
            figures["training_bf16_speedup"] = round(
                float(figures["training_s"]) / float(figures["training_bf16_s"]), 3)
        if args.also_model_patient:  # the training path with the embedded model voicing the patient, as before
            await _training_path(args, loaded, cases, sampling, figures, mode="training_model")
            figures["training_model_vs_concurrent"] = round(
                float(figures["concurrent_s"]) / float(figures["training_model_s"]), 3)
            figures["template_patient_speedup"] = round(
                float(figures["training_model_s"]) / float(figures["training_s"]), 3)
        if args.arpo:  # consultations per minute with branching, against the plain training path's
            await _training_path(args, loaded, cases, sampling, figures, mode="arpo")
            figures["arpo_vs_training"] = round(
                float(figures["arpo_episodes_per_min"]) / float(figures["training_episodes_per_min"]), 3)
    if not args.skip_sequential:
        figures["speedup"] = round(
            float(figures["concurrent_episodes_per_min"]) / float(figures["sequential_episodes_per_min"]), 2
        )
        figures["target_speedup"] = 4.0
        # An episode's model calls run one after another, so concurrently the run needs at least as many
        # decoding steps as its longest episode generates tokens: total / longest bounds the mean batch.
        figures["max_episode_tokens"] = max(episode_tokens)
        figures["mean_batch_bound"] = round(sum(episode_tokens) / max(1, max(episode_tokens)), 2)
    figures["ragged_pass_gain"] = round(
        float(figures["concurrent_separate_prefills_s"]) / float(figures["concurrent_s"]), 3
    )
    figures["patient_replies"] = replies
    figures["fallback_share"] = round(fallbacks / max(1, replies), 3)
    figures["leaks_caught_per_reply"] = round(leaks / max(1, replies), 3)
    figures["doctor_turns"] = turns
    return figures


def _count(items: object) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:  # type: ignore[attr-defined]
        counts[item] = counts.get(item, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=16, help="consultations per mode (default 16)")
    parser.add_argument("--max-turns", type=int, default=None, help="doctor turns (default: the shared config's)")
    parser.add_argument("--doctor-max-tokens", type=int, default=None, help="tokens per doctor turn (default: shared)")
    parser.add_argument("--temperature", type=float, default=None, help="the doctor's temperature (default: shared)")
    parser.add_argument("--skip-training", action="store_true", help="leave out the training path")
    parser.add_argument("--skip-sequential", action="store_true",
                        help="leave out the one-at-a-time run (and the speedup): the training path against the eval path")
    parser.add_argument("--skip-two-models", action="store_true",
                        help="leave out the eval path with the doctor and the patient on separate weights")
    parser.add_argument("--patient-dtype", default=None,
                        help="the patient's weights on the two-model paths (default float32; bfloat16 ...)")
    parser.add_argument("--rollout-dtype", default=None,
                        help="the training path's policy samples on a copy in this precision (multiturn.yaml's "
                             "rollout.dtype; default: on the float32 weights)")
    parser.add_argument("--also-bfloat16", action="store_true",
                        help="also the training path with the patient and the policy's sampling copy in bfloat16")
    parser.add_argument("--also-model-patient", action="store_true",
                        help="also the training path with the embedded model voicing the patient (patient.model: "
                             "embedded; multiturn.yaml's default is the template)")
    parser.add_argument("--arpo", action="store_true",
                        help="also the training path with multiturn.yaml's ARPO branching (groups of num_generations)")
    parser.add_argument("--max-batch", type=int, default=16, help="LocalChatClient max_batch_size")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.episodes < 1 or (args.max_turns is not None and args.max_turns < 1):
        parser.error("--episodes and --max-turns must be >= 1")
    print(json.dumps(asyncio.run(_run(args))))


if __name__ == "__main__":
    main()
