"""The local asyncio executor and the Ray executor give the same results for the same seeds.

Scripted clients (rebuilt inside each Ray actor from the run's spec) keep this about orchestration:
spreading examples over processes, returning each result, rebuilding clients from specs.
"""

from __future__ import annotations

from pathlib import Path

from evaluation.executors import LocalExecutor, RayExecutor
from evaluation.healthbench_eval import HealthBenchEval, evaluate_example
from evaluation.runner import execute_run
from evaluation.store import ResultsStore
from policy.clients import ClientSpec
from policy.graders import GraderSpec

DATA = Path(__file__).parent / "data" / "tiny_healthbench.jsonl"


def _comparable(run_dir: Path) -> list[dict]:
    with ResultsStore.for_run(run_dir) as store:
        return [r.model_dump(exclude={"seconds"}) for r in store.results()]


async def test_ray_and_local_executors_agree(tmp_path: Path, isolated_home: Path) -> None:
    summaries = {}
    for name, executor in (("local", LocalExecutor(concurrency=4)), ("ray", RayExecutor(concurrency=4, num_cpus=2))):
        evaluation = HealthBenchEval.create(
            DATA, policy=ClientSpec(model="py:tests.evaluation.fakes:policy"),
            grader=GraderSpec(kind="hybrid", judge=ClientSpec(model="py:tests.evaluation.fakes:judge")),
            seed=7, runs_dir=tmp_path, run_name=name,
        )
        summary = await execute_run(evaluation.run_dir, evaluation.config, evaluation.examples(),
                                    evaluate=evaluate_example, executor=executor, show_progress=False,
                                    write_report=False)
        summaries[name] = summary.model_dump(exclude={"run"})
    import ray

    assert not ray.is_initialized()  # the executor shut down the local cluster it started
    assert summaries["ray"] == summaries["local"]
    assert summaries["local"]["finished"] == 3
    assert _comparable(tmp_path / "ray") == _comparable(tmp_path / "local")
