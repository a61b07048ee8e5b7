"""Executors: run an eval's examples and hand each result back the moment it is finished.

* ``LocalExecutor`` — asyncio in this process, at most ``concurrency`` examples in flight, so the
  local model batches their turns into shared forward passes.
* ``RayExecutor`` — async Ray actors (one per CPU by default), each rebuilding its clients from the
  run's specs inside its own process (models cannot be pickled). Examples are spread round-robin in
  example order, so the same seeds give the same results as the local executor.

Both run the eval's ``Evaluate`` function on each example; Ray sends it to the actors by reference (it
is a module-level function of the eval's module), so executors import no eval.

A failed example is logged and counted, not stored, so ``--resume`` retries it.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Sequence
from typing import Generic, Protocol

from pydantic import BaseModel

from evaluation.progress import effective_concurrency
from evaluation.records import Evaluate, ExampleResult, ExampleT, RunConfig

logger = logging.getLogger(__name__)

OnResult = Callable[[ExampleResult], None]


class ExecutionReport(BaseModel):
    finished: int = 0
    failed: int = 0
    errors: list[str] = []


class Executor(Protocol):
    name: str

    async def run(self, config: RunConfig, examples: Sequence[ExampleT], evaluate: Evaluate[ExampleT],
                  on_result: OnResult) -> ExecutionReport:
        ...


class LocalExecutor:
    name = "local"

    def __init__(self, concurrency: int = 8) -> None:
        self.concurrency = effective_concurrency(concurrency)

    async def run(self, config: RunConfig, examples: Sequence[ExampleT], evaluate: Evaluate[ExampleT],
                  on_result: OnResult) -> ExecutionReport:
        report = ExecutionReport()
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(example: ExampleT) -> None:
            async with semaphore:
                try:
                    result = await evaluate(config, example)
                except Exception as exc:  # one bad example must not sink the run
                    logger.exception("example %s failed", example.example_id)
                    report.failed += 1
                    report.errors.append(f"{example.example_id}: {type(exc).__name__}: {exc}")
                    return
            report.finished += 1
            on_result(result)

        await asyncio.gather(*(one(e) for e in examples))
        return report


class _EvalActor(Generic[ExampleT]):
    """A Ray actor body: runs ``evaluate``, which builds clients lazily from the specs in the config."""

    def __init__(self, threads: int, evaluate: Evaluate[ExampleT]) -> None:
        import os
        import sys

        # Each actor owns its share of the CPUs; torch reads this when a local model first imports it.
        os.environ["OMP_NUM_THREADS"] = str(max(1, threads))
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(max(1, threads))
        logging.basicConfig(level=logging.WARNING)
        self.evaluate = evaluate

    async def run(self, config_json: str, example: ExampleT) -> str:
        config = RunConfig.model_validate_json(config_json)
        result = await self.evaluate(config, example)
        return result.model_dump_json()


class RayExecutor:
    """Ray on a local cluster (``ray.init(num_cpus=2)``) by default, or an existing one at ``address``."""

    name = "ray"

    def __init__(self, concurrency: int = 8, *, address: str | None = None, num_cpus: int = 2,
                 actors: int | None = None) -> None:
        self.concurrency = effective_concurrency(concurrency)
        self.address = address
        self.num_cpus = num_cpus
        self.actors = actors or (1 if self.concurrency == 1 else max(1, num_cpus))

    async def run(self, config: RunConfig, examples: Sequence[ExampleT], evaluate: Evaluate[ExampleT],
                  on_result: OnResult) -> ExecutionReport:
        import ray

        started_here = False
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, logging_level=logging.WARNING, log_to_driver=False)
            else:
                ray.init(num_cpus=self.num_cpus, include_dashboard=False, logging_level=logging.WARNING,
                         log_to_driver=False)
            started_here = True
        report = ExecutionReport()
        try:
            per_actor = max(1, math.ceil(self.concurrency / self.actors))
            actor_cls = ray.remote(num_cpus=1)(_EvalActor)
            threads = max(1, self.num_cpus // self.actors)
            pool = [actor_cls.options(max_concurrency=per_actor).remote(threads, evaluate)
                    for _ in range(self.actors)]
            config_json = config.model_dump_json()
            refs = {
                pool[i % len(pool)].run.remote(config_json, example): example.example_id
                for i, example in enumerate(examples)
            }
            pending = list(refs)
            while pending:
                done, pending = await asyncio.to_thread(ray.wait, pending, num_returns=1)
                for ref in done:
                    try:
                        payload = ray.get(ref)
                    except Exception as exc:
                        logger.error("example %s failed on Ray: %s", refs[ref], exc)
                        report.failed += 1
                        report.errors.append(f"{refs[ref]}: {type(exc).__name__}: {exc}")
                        continue
                    report.finished += 1
                    on_result(ExampleResult.model_validate_json(payload))
            for actor in pool:
                ray.kill(actor)
        finally:
            if started_here:
                ray.shutdown()
        return report


def make_executor(name: str, *, concurrency: int = 8, ray_address: str | None = None) -> Executor:
    if name == "local":
        return LocalExecutor(concurrency)
    if name == "ray":
        return RayExecutor(concurrency, address=ray_address)
    raise ValueError(f"unknown executor {name!r} (known: local, ray)")
