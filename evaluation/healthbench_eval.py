"""HealthBench-style evaluation, in the shape of openai/simple-evals' ``healthbench_eval.py``.

Top to bottom: the record type, the pure score calculation (delegated to ``verifier.scoring``), the
eval class, and ``main()``; the grader template lives in verifier/grader_prompts.py.

The judge reads HealthBench's own grader template by default (``GraderSpec.prompt="healthbench"``:
inspect_evals' copy of simple-evals' constant, verified by SHA-256; the ``healthbench`` extra), so the
scores are comparable with published HealthBench numbers given the same judge model; ``medverifier``
selects the project's hardened prompt instead, and ``--batched`` always uses the project's batch
prompt. Which template graded a run is recorded in its provenance (config, summary, judge cache).

Loads HealthBench JSONL unchanged (the full file, Hard, Consensus, or the project's own
``data/rubric_tasks/*.jsonl``), samples one response per prompt from any ``ChatClient`` (the embedded
model, a local checkpoint, an OpenAI-compatible URL), grades every rubric item, and reports the
overall score, per-axis and per-theme scores, bootstrap std, n, unscored counts and the
length-adjusted score ``score − p·(chars − 2000)/500``.

    python -m evaluation.healthbench_eval data/rubric_tasks/core.jsonl --limit 5 --judge embedded
    medverifier eval healthbench data/rubric_tasks/core.jsonl --limit 5
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import time
import zlib
from pathlib import Path

from evaluation.records import ExampleResult, HealthBenchExample, HealthBenchParams, RunConfig
from evaluation.runner import execute_run
from evaluation.store import new_run_name, runs_root
from evaluation.summary import RunSummary
from policy.clients import ClientSpec, build_client
from policy.graders import GRADING_KINDS, GraderSpec, build_grader
from verifier.grader_prompts import GRADER_PROMPT_NAMES
from verifier.healthbench import HealthBenchRecord, check_gradable, load_healthbench
from verifier.scoring import length_adjusted, score_example
from verifier.types import CriterionResult, Message, RubricItem

logger = logging.getLogger(__name__)

__all__ = ["HealthBenchEval", "HealthBenchRecord", "calculate_score", "evaluate_example", "main"]


def calculate_score(results: list[CriterionResult], example_tags: list[str] | None = None) -> dict[str, float]:
    """simple-evals' per-example metrics: ``overall_score``, each example tag and each rubric tag."""
    return score_example(results, example_tags=example_tags or []).metrics()


def example_seed(seed: int, example_id: str) -> int:
    """A per-example sampling seed that does not depend on which process or batch runs the example."""
    return (seed * 1_000_003 + zlib.crc32(example_id.encode())) % 2**31


def to_example(record: HealthBenchRecord, index: int) -> HealthBenchExample:
    return HealthBenchExample(
        example_id=record.prompt_id or f"line-{index + 1:06d}",
        prompt=[Message(role=m.role, content=m.content) for m in record.prompt],
        rubrics=[RubricItem.model_validate(r.model_dump()) for r in record.rubrics],
        example_tags=list(record.example_tags),
    )


async def evaluate_example(config: RunConfig, example: HealthBenchExample) -> ExampleResult:
    """Sample one response, grade every rubric item, score. Runs in the driver or a Ray actor."""
    params = config.healthbench or HealthBenchParams(data_path="")
    started = time.perf_counter()
    policy = build_client(config.policy)
    completion = await policy.complete(
        example.prompt,
        max_tokens=params.max_tokens,
        temperature=0.0,
        seed=example_seed(config.seed, example.example_id),
    )
    response = completion.text
    conversation = [*example.prompt, Message(role="assistant", content=response)]
    criteria = await build_grader(config.grader).grade(conversation, example.rubrics)
    scored = score_example(criteria, example_tags=example.example_tags, prompt_id=example.example_id)
    return ExampleResult(
        example_id=example.example_id,
        kind="healthbench",
        score=scored.overall,
        metrics=scored.metrics(),
        example_tags=scored.example_tags,
        criteria=criteria,
        unscored=scored.unscored,
        response_chars=len(response),
        length_adjusted=(
            None if scored.overall is None
            else length_adjusted(scored.overall, len(response), params.length_penalty)
        ),
        transcript=conversation,
        seconds=time.perf_counter() - started,
    )


class HealthBenchEval:
    """One HealthBench run: which records, which policy and grader; ``run()`` resumes by itself."""

    def __init__(self, config: RunConfig, run_dir: Path) -> None:
        if config.kind != "healthbench" or config.healthbench is None:
            raise ValueError("HealthBenchEval needs a healthbench run config")
        self.config = config
        self.run_dir = run_dir

    @classmethod
    def create(
        cls,
        data_path: str | Path,
        *,
        policy: ClientSpec,
        grader: GraderSpec,
        seed: int = 0,
        limit: int | None = None,
        concurrency: int = 8,
        executor: str = "local",
        ray_address: str | None = None,
        max_tokens: int = 256,
        length_penalty: float = 0.05,
        run_name: str | None = None,
        runs_dir: str | Path | None = None,
    ) -> HealthBenchEval:
        name = run_name or new_run_name("healthbench")
        if grader.prompt is None:  # HealthBench numbers are graded with HealthBench's template by default
            grader = grader.model_copy(update={"prompt": "healthbench"})
        config = RunConfig(
            name=name, kind="healthbench", policy=policy, grader=grader, seed=seed, limit=limit,
            concurrency=concurrency, executor=executor, ray_address=ray_address,  # type: ignore[arg-type]
            healthbench=HealthBenchParams(data_path=str(Path(data_path).resolve()), max_tokens=max_tokens,
                                          length_penalty=length_penalty),
        )
        return cls(config, runs_root(runs_dir) / name)

    def examples(self) -> list[HealthBenchExample]:
        assert self.config.healthbench is not None
        records = load_healthbench(self.config.healthbench.data_path)
        examples = [to_example(r, i) for i, r in enumerate(records)]
        limit = self.config.limit
        if limit is not None and limit < len(examples):
            # As simple-evals: a seeded sample, so --limit picks the same examples on resume.
            examples = random.Random(self.config.seed).sample(examples, limit)
        return examples

    def preflight(self) -> list[HealthBenchExample]:
        """Everything that can fail before sampling: the data file, gradability, the judge's template."""
        examples = self.examples()
        grader = self.config.grader
        check_gradable((item for e in examples for item in e.rubrics), grading=grader.kind,
                       has_judge=grader.uses_judge)
        self.config.grader.judge_prompt()
        return examples

    async def run(self, *, show_progress: bool | None = None) -> RunSummary:
        return await execute_run(self.run_dir, self.config, self.preflight(), evaluate=evaluate_example,
                                 show_progress=show_progress)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="HealthBench-style rubric evaluation of a chat model.")
    parser.add_argument("data", help="HealthBench-format JSONL file")
    parser.add_argument("--model", default="embedded")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--judge", default=None, help="judge model (without one: rule checks only)")
    parser.add_argument("--judge-base-url", default=None)
    parser.add_argument("--grading", choices=GRADING_KINDS, default="hybrid")
    parser.add_argument("--grader-prompt", choices=GRADER_PROMPT_NAMES, default="healthbench",
                        help="the judge's template: HealthBench's own (comparable numbers) or the project's")
    parser.add_argument("--device", default=None, help="where local models run: cpu, cuda, cuda:N or auto")
    parser.add_argument("--dtype", default=None, help="local models' precision: float32, bfloat16, float16, auto")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs-dir", default=None)
    args = parser.parse_args(argv)
    placement = {"device": args.device, "dtype": args.dtype}
    judge = ClientSpec(model=args.judge, base_url=args.judge_base_url, **placement) if args.judge else None
    evaluation = HealthBenchEval.create(
        args.data, policy=ClientSpec(model=args.model, base_url=args.base_url, **placement),
        grader=GraderSpec(kind=args.grading, judge=judge, prompt=args.grader_prompt), seed=args.seed,
        limit=args.limit, concurrency=args.concurrency, runs_dir=args.runs_dir,
    )
    summary = asyncio.run(evaluation.run())
    logger.info("run %s finished", evaluation.config.name)
    print(summary.model_dump_json(indent=2))  # noqa: T201 - this is a script entry point


if __name__ == "__main__":
    main()
