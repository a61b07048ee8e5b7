"""Running an eval's examples through an executor into a run's results store, resumably.

``execute_run`` is given the examples and the eval's per-example ``evaluate`` function (the evals
import the runner, never the other way round). It records the run's provenance (the judge's template,
prompt versions, weights fingerprints) and refuses to continue a run whose stored results came from
other ones; it skips every example already stored under the same (policy, grader, seed), writes each
new result the moment it is finished, then aggregates *all* stored results into ``summary.json`` and
rebuilds ``report.html``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from evaluation.executors import ExecutionReport, Executor, make_executor
from evaluation.progress import progress
from evaluation.provenance import check_resumable, collect_provenance
from evaluation.records import Evaluate, ExampleResult, ExampleT, RunConfig
from evaluation.report import write_report as build_report
from evaluation.store import ResultsStore, dump_json, load_config, save_config
from evaluation.summary import RunSummary, summarize

logger = logging.getLogger(__name__)


def store_keys(config: RunConfig) -> dict[str, str | int]:
    return {"policy": config.policy.label, "grader": config.grader.label, "seed": config.seed}


async def execute_run(
    run_dir: Path,
    config: RunConfig,
    examples: Sequence[ExampleT],
    *,
    evaluate: Evaluate[ExampleT],
    prompts: Mapping[str, str] | None = None,
    executor: Executor | None = None,
    show_progress: bool | None = None,
    write_report: bool = True,
) -> RunSummary:
    """Run ``evaluate`` on every example not yet stored; ``prompts`` are the versions of the eval's own
    prompts, recorded in the run's provenance (``provenance.collect_provenance``)."""
    ids = [e.example_id for e in examples]
    duplicates = {i for i, n in Counter(ids).items() if n > 1}
    if duplicates:
        raise ValueError(f"duplicate example ids: {sorted(duplicates)[:5]}")
    current = collect_provenance(config, prompts)  # before anything is sampled: a missing template fails here
    keys = store_keys(config)
    with ResultsStore.for_run(run_dir) as store:
        done = store.done(**keys)  # type: ignore[arg-type]
        if done:
            stored = load_config(run_dir).provenance if (run_dir / "config.json").is_file() else None
            check_resumable(config.name, stored, current)
        config = config.model_copy(update={"provenance": current})
        save_config(run_dir, config)
        executor = executor or make_executor(config.executor, concurrency=config.concurrency,
                                             ray_address=config.ray_address)
        todo = [e for e in examples if e.example_id not in done]
        if done:
            logger.info("resuming %s: %d of %d examples already finished", config.name, len(done), len(examples))
        report = ExecutionReport()
        if todo:
            with progress(len(examples), f"{config.kind} {config.name}", completed=len(examples) - len(todo),
                          enabled=show_progress) as advance:

                def on_result(result: ExampleResult) -> None:
                    store.put(result, **keys)  # type: ignore[arg-type]
                    score = "unscored" if result.score is None else f"{result.score:.2f}"
                    advance(f"{result.example_id} {score}")

                report = await executor.run(config, todo, evaluate, on_result)
        wanted = set(ids)
        results = [r for r in store.results(**keys) if r.example_id in wanted]  # type: ignore[arg-type]
    for error in report.errors:
        logger.warning("failed: %s", error)
    summary = summarize(config, results, planned=len(examples), failed=report.failed)
    dump_json(run_dir / "summary.json", summary)
    if write_report:
        build_report(run_dir)
    return summary
