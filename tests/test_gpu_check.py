"""``bench/gpu_check.py``, the GPU machine's one prepared check: its step-time summary, and on a machine without
CUDA the one-line refusal it records for a step (the check goes on; nothing here needs a GPU)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "bench" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_step_times_average_the_steps_after_the_first(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    lines = [{"stage": "multiturn", "step": 1, "time/rollout_s": 20.0, "time/forward_backward_s": 90.0},
             {"stage": "multiturn", "step": 2, "time/rollout_s": 10.0, "time/forward_backward_s": 30.0},
             {"stage": "multiturn", "step": 3, "time/rollout_s": 14.0, "time/forward_backward_s": 34.0},
             {"stage": "multiturn", "val_reward": 0.5}]
    (run / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = _module()._step_times(run)
    assert summary == {"steps": 3, "time/forward_backward_s": 32.0, "time/rollout_s": 12.0}
    assert _module()._step_times(tmp_path / "missing") == {"metrics": "missing"}


def test_without_cuda_a_step_records_the_refusal_and_the_check_goes_on(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():  # on a GPU machine the step runs instead; the figures say so
        return
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu_check.py"), "--out", str(out), "--work",
                           str(tmp_path / "work"), "--only", "rule,vllm", "--limit", "120"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["cuda"] is False
    for step in ("train_rule_cuda", "train_vllm"):
        assert figures[step]["rc"] == 2, figures[step]
        assert "torch sees no CUDA device" in figures[step]["tail"][-1]
    assert json.loads((out / "results.json").read_text()) == figures
    assert (out / "train_rule_cuda.log").is_file() and not (tmp_path / "work" / "train_rule").exists()
