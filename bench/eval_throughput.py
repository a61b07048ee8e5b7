"""Consult-eval throughput: serial vs concurrent (local asyncio) and local vs Ray, in one run.

The same consultations (the project's cases, the embedded model as doctor and patient, rule grading)
are run three times into separate throw-away run folders:

* ``serial``      — local executor, concurrency 1 (one consultation at a time);
* ``concurrent``  — local executor, all consultations at once (their turns share batched forward passes);
* ``ray``         — Ray executor on a local 2-CPU cluster (2 actors, each loading its own model copy;
  the actors' start-up and model load are inside the timing, as they are for a real user).

The local model is loaded and warmed up before timing. Prints ONE JSON line. The doctor samples at
temperature 0.7 with per-request seeds, and batching changes float rounding, so the three modes do not
produce identical transcripts: the token counts and tokens/s of the local modes are printed beside
examples/minute so that a mode that happened to generate more text is visible.

    .venv/bin/python bench/eval_throughput.py            # 4 cases, up to 3 doctor turns
    .venv/bin/python bench/eval_throughput.py --size 2   # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("MEDVERIFIER_PROGRESS", "0")
os.environ.setdefault("OMP_NUM_THREADS", "2")


async def _timed(evaluation, executor) -> tuple[float, int]:  # noqa: ANN001 - bench script
    from evaluation.consult_eval import DIAGNOSIS_JUDGE_VERSION, evaluate_case
    from evaluation.provenance import consult_prompt_versions
    from evaluation.runner import execute_run

    started = time.perf_counter()
    summary = await execute_run(evaluation.run_dir, evaluation.config, evaluation.examples(), evaluate=evaluate_case,
                                prompts=consult_prompt_versions(evaluation.config, DIAGNOSIS_JUDGE_VERSION),
                                executor=executor, show_progress=False, write_report=False)
    return time.perf_counter() - started, summary.finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=4, help="number of consultations per mode")
    parser.add_argument("--max-turns", type=int, default=3)
    parser.add_argument("--doctor-max-tokens", type=int, default=48)
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    from evaluation.demo import DemoOptions, build_demo
    from evaluation.executors import LocalExecutor, RayExecutor
    from policy.clients import ClientSpec, build_client
    from policy.model import prepare_embedded
    from verifier.types import Message

    prepare_embedded()
    client = build_client(ClientSpec(model="embedded"))
    asyncio.run(client.complete([Message(role="user", content="hello")], max_tokens=4))  # warm-up

    options = DemoOptions(cases=args.size, max_turns=args.max_turns, doctor_max_tokens=args.doctor_max_tokens,
                          concurrency=args.size)
    figures: dict[str, float | int | str | None] = {"bench": "eval_throughput", "consultations": args.size,
                                                   "max_turns": args.max_turns,
                                                   "doctor_max_tokens": args.doctor_max_tokens, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as runs:
        modes = [("serial", LocalExecutor(concurrency=1)), ("concurrent", LocalExecutor(concurrency=args.size))]
        if not args.skip_ray:
            modes.append(("ray", RayExecutor(concurrency=args.size, num_cpus=2)))
        for name, executor in modes:
            evaluation = build_demo(options, runs_dir=runs, run_name=name)
            tokens, passes, batches = client.generated_tokens, client.stats.forward_passes, len(client.stats.batch_sizes)
            seconds, finished = asyncio.run(_timed(evaluation, executor))
            if name != "ray":  # the Ray actors' own model copies keep their counters to themselves
                sizes = client.stats.batch_sizes[batches:]
                figures[f"{name}_tokens"] = client.generated_tokens - tokens
                figures[f"{name}_tokens_per_s"] = round((client.generated_tokens - tokens) / seconds, 1)
                figures[f"{name}_forward_passes"] = client.stats.forward_passes - passes
                figures[f"{name}_mean_batch"] = round(sum(sizes) / len(sizes), 2) if sizes else None
            figures[f"{name}_seconds"] = round(seconds, 2)
            figures[f"{name}_finished"] = finished
            figures[f"{name}_examples_per_min"] = round(60 * finished / seconds, 2) if seconds else None
    serial = figures["serial_examples_per_min"]
    concurrent = figures["concurrent_examples_per_min"]
    figures["concurrent_vs_serial"] = round(concurrent / serial, 2) if serial and concurrent else None
    if not args.skip_ray:
        ray_rate = figures["ray_examples_per_min"]
        figures["ray_vs_local_concurrent"] = round(ray_rate / concurrent, 2) if ray_rate and concurrent else None
    print(json.dumps(figures))  # noqa: T201 - the benchmark's one line of output


if __name__ == "__main__":
    main()
