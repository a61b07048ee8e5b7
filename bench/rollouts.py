"""Consultation rollouts: concurrent vs one-after-another, embedded model as doctor and patient.

Runs the same N consultations (same cases, personas and seeds) in one process: one at a time, then all
at once (their model calls share batches in ``LocalChatClient``), and all at once again with every
prefill in a pass of its own (no ragged passes, ``ragged_pass_gain``). Prints one JSON line:
episodes per minute for each, the ratio (target >= 4x), the share of patient replies that needed
the template fallback, and the longest episode's generated tokens, which bound how full the
concurrent decoding batches can be (its calls run one after another).

    .venv/bin/python bench/rollouts.py               # 16 episodes, up to 6 doctor turns each
    .venv/bin/python bench/rollouts.py --episodes 4  # smaller
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


async def _run(args: argparse.Namespace) -> dict[str, object]:
    from patient_sim.cases import project_cases
    from patient_sim.graph import run_consultations
    from patient_sim.personas import sample_personas
    from policy.local import LocalChatClient
    from policy.model import load_model

    loaded = load_model("embedded")
    all_cases = project_cases()
    cases = [all_cases[i % len(all_cases)] for i in range(args.episodes)]
    personas = sample_personas(args.episodes, seed=args.seed, cases=cases)
    figures: dict[str, object] = {
        "bench": "rollouts",
        "episodes": args.episodes,
        "max_turns": args.max_turns,
        "doctor_max_tokens": args.doctor_max_tokens,
    }
    replies = fallbacks = leaks = turns = 0
    episode_tokens: list[int] = []
    # "concurrent_separate_prefills": the same concurrent run with every prefill in a pass of its own
    # (no ragged passes), side by side with the real one for the ragged passes' gain.
    for mode in ("sequential", "concurrent_separate_prefills", "concurrent"):
        client = LocalChatClient(
            loaded, max_batch_size=max(1, min(args.episodes, args.max_batch)),
            fuse_prefills=mode != "concurrent_separate_prefills",
        )
        start = time.perf_counter()
        if mode == "sequential":  # one at a time, episode i with seed + i as run_consultations gives it
            results = []
            for i in range(args.episodes):
                before = client.generated_tokens
                results += await run_consultations(
                    cases[i:i + 1], personas[i:i + 1], client, client, concurrency=1, max_turns=args.max_turns,
                    seed=args.seed + i, progress=False, doctor_max_tokens=args.doctor_max_tokens,
                )
                episode_tokens.append(client.generated_tokens - before)
        else:
            results = await run_consultations(
                cases, personas, client, client, concurrency=args.episodes, max_turns=args.max_turns,
                seed=args.seed, progress=True, doctor_max_tokens=args.doctor_max_tokens,
            )
        elapsed = time.perf_counter() - start
        await client.aclose()
        figures[f"{mode}_s"] = round(elapsed, 1)
        figures[f"{mode}_episodes_per_min"] = round(60 * len(results) / elapsed, 2)
        figures[f"{mode}_mean_batch"] = round(sum(client.batch_sizes) / max(1, len(client.batch_sizes)), 2)
        figures[f"{mode}_generated_tokens"] = client.generated_tokens
        figures[f"{mode}_prompt_tokens"] = client.prompt_tokens
        figures[f"{mode}_prefill_s"] = round(client.prefill_seconds, 1)
        figures[f"{mode}_decode_s"] = round(client.decode_seconds, 1)
        figures[f"{mode}_decode_steps"] = len(client.batch_sizes)
        figures[f"{mode}_prefill_passes"] = client.forward_passes - len(client.batch_sizes)
        figures[f"{mode}_prefills_riding_along"] = client.fused_prefills
        figures[f"{mode}_prefix_hit_share"] = round(client.prefix_hit_tokens / max(1, client.prompt_tokens), 3)
        if mode == "concurrent_separate_prefills":  # a control run: its episodes are not counted twice
            continue
        replies += sum(r.patient_replies for r in results)
        fallbacks += sum(r.fallbacks for r in results)
        leaks += sum(r.leaks_caught for r in results)
        turns += sum(r.turns for r in results)
        figures[f"{mode}_terminations"] = _count(r.termination_reason or "none" for r in results)
    figures["speedup"] = round(
        float(figures["concurrent_episodes_per_min"]) / float(figures["sequential_episodes_per_min"]), 2
    )
    figures["target_speedup"] = 4.0
    figures["ragged_pass_gain"] = round(
        float(figures["concurrent_separate_prefills_s"]) / float(figures["concurrent_s"]), 3
    )
    # An episode's model calls run one after another, so concurrently the run needs at least as many
    # decoding steps as its longest episode generates tokens: total / longest bounds the mean batch.
    figures["max_episode_tokens"] = max(episode_tokens)
    figures["mean_batch_bound"] = round(sum(episode_tokens) / max(1, max(episode_tokens)), 2)
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
    parser.add_argument("--max-turns", type=int, default=6, help="doctor turns per consultation (default 6)")
    parser.add_argument("--doctor-max-tokens", type=int, default=96)
    parser.add_argument("--max-batch", type=int, default=16, help="LocalChatClient max_batch_size")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.episodes < 1 or args.max_turns < 1:
        parser.error("--episodes and --max-turns must be >= 1")
    print(json.dumps(asyncio.run(_run(args))))


if __name__ == "__main__":
    main()
