"""Grading benchmark: judge calls and prompt tokens per example, per-item vs batched (side by side, same
records, same embedded judge), and rule-graded throughput. Prints one JSON line.

    .venv/bin/python bench/grading.py [--limit 20] [--max-tokens 8]

Targets: batched judge prompt tokens <= 1/4 of per-item; rule grading >= 5,000 items/s on one core.
``consultations_graded_per_s``: whole consultations (case rubric, rule grading, the clinical-language layer).
Every rubric item is sent to the judge here (checks ignored) so both modes grade the same items.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "2")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier.data import data_dir  # noqa: E402
from verifier.healthbench import HealthBenchRecord, load_healthbench  # noqa: E402
from verifier.judge import JudgeGrader  # noqa: E402
from verifier.rule_grader import RuleGrader  # noqa: E402
from verifier.types import Message  # noqa: E402

DATA = data_dir() / "rubric_tasks" / "medverifier_rubric_tasks.jsonl"


def conversation(record: HealthBenchRecord) -> list[Message]:
    ideal = record.ideal_completions_data.ideal_completion if record.ideal_completions_data else ""
    return [*record.prompt, Message(role="assistant", content=ideal or "I don't know.")]


async def judge_mode(client, records: list[HealthBenchRecord], *, batched: bool, max_tokens: int) -> dict:
    grader = JudgeGrader(client, batched=batched, max_retries=0, max_tokens=max_tokens)
    start = time.perf_counter()
    await asyncio.gather(*(grader.grade(conversation(r), r.rubrics) for r in records))
    seconds = time.perf_counter() - start
    n = len(records)
    stats = grader.stats
    return {
        "calls_per_example": stats.calls / n,
        "prompt_tokens_per_example": stats.prompt_tokens / n,
        "completion_tokens_per_example": stats.completion_tokens / n,
        "unscored_fraction": stats.unscored / max(stats.items, 1),
        "seconds": round(seconds, 2),
    }


def rule_throughput(records: list[HealthBenchRecord], seconds: float = 1.0) -> tuple[float, int]:
    grader = RuleGrader()
    work = [(conversation(r), [i for i in r.rubrics if i.check is not None]) for r in records]
    items_per_round = sum(len(items) for _, items in work)
    rounds = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for convo, items in work:
            grader.grade_sync(convo, items)
        rounds += 1
    return rounds * items_per_round / (time.perf_counter() - start), items_per_round


def consultation_throughput(seconds: float = 2.0) -> float:
    """Whole consultations graded per second: the reference dialogue of every project case against its case
    rubric, each round's text new (a turn gets a suffix) so that no per-text cache hides the work."""
    from patient_sim.cases import project_cases
    from patient_sim.doctors import dialogue, reference
    from rubric_gen.case_rubric import build_case_rubric

    grader = RuleGrader()
    work = [(dialogue(c, reference(c)), build_case_rubric(c).items) for c in project_cases()]
    rounds = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for convo, items in work:
            last = convo[-1].model_copy(update={"content": f"{convo[-1].content} ({rounds})"})
            grader.grade_sync([*convo[:-1], last], items)
        rounds += 1
    return rounds * len(work) / (time.perf_counter() - start)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20, help="Number of rubric records (>= 20 for the target).")
    parser.add_argument("--max-tokens", type=int, default=8, help="Judge reply tokens per rubric item.")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--skip-judge", action="store_true", help="Only measure rule-grading throughput.")
    args = parser.parse_args()
    records = load_healthbench(args.data)[: args.limit]
    out: dict[str, object] = {
        "records": len(records),
        "rubric_items_per_example": sum(len(r.rubrics) for r in records) / len(records),
    }
    torch_threads = None
    if not args.skip_judge:
        import torch

        from policy.clients import ClientSpec, build_client

        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        torch_threads = torch.get_num_threads()
        client = build_client(ClientSpec(model="embedded", max_batch_size=8))
        per_item = await judge_mode(client, records, batched=False, max_tokens=args.max_tokens)
        batched = await judge_mode(client, records, batched=True, max_tokens=args.max_tokens)
        out["judge_model"] = client.model
        out["per_item"] = per_item
        out["batched"] = batched
        ratio = batched["prompt_tokens_per_example"] / per_item["prompt_tokens_per_example"]
        out["batched_over_per_item_prompt_tokens"] = round(ratio, 4)
        out["batched_over_per_item_calls"] = round(batched["calls_per_example"] / per_item["calls_per_example"], 4)
        out["target_batched_prompt_tokens_le_quarter"] = ratio <= 0.25
    rate, checked = rule_throughput(records)
    out["rule_items_per_s"] = round(rate)
    out["rule_checked_items_per_round"] = checked
    out["target_rule_ge_5000_per_s"] = rate >= 5000
    out["consultations_graded_per_s"] = round(consultation_throughput(), 1)
    out["torch_threads"] = torch_threads
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
