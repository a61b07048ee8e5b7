"""The GPU paths, end to end, on a machine with CUDA: one JSON line of what ran, what it took and what failed.

Run from the repository root on a machine whose torch sees a GPU (nothing here needs one to import):

    python bench/gpu_check.py --out DIR      # each step's log and results.json in DIR (rewritten after every
                                             # step); the JSON line on stdout; runs and checkpoints in --work

Steps, each a subprocess with its own time limit (a failing step is reported, the next one still runs):

1. the CUDA test of the local engine (`tests/policy/test_device.py`: greedy decoding on the GPU matches the CPU);
2. `medverifier eval consult` with the embedded doctor and patient on `--device cuda` (consultations/min);
3. `medverifier train --stage rule` and `--stage multiturn` on `--device cuda` for a few steps (the step times
   from each run's `metrics.jsonl`);
4. the multi-turn run's `final` checkpoint served on the GPU (`medverifier serve --device cuda`, one chat
   completion) and evaluated (`medverifier eval consult --model RUN/final --device cuda`);
5. `--use-vllm`: where vLLM is not installed, the error it gives (it must name the missing package).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cli() -> list[str]:
    found = shutil.which("medverifier")
    return [found] if found else [sys.executable, "-c", "from serving.cli import app; app()"]


def _step(name: str, argv: list[str], out: Path, timeout: float, results: dict) -> subprocess.CompletedProcess | None:
    started = time.perf_counter()
    log = out / f"{name}.log"
    try:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        log.write_text(f"$ {' '.join(argv)}\n{exc.stdout or ''}\n{exc.stderr or ''}\nTIMEOUT after {timeout}s\n")
        results[name] = {"rc": None, "wall_s": round(time.perf_counter() - started, 1), "error": "timeout"}
        return None
    log.write_text(f"$ {' '.join(argv)}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}\n")
    entry = {"rc": done.returncode, "wall_s": round(time.perf_counter() - started, 1)}
    if done.returncode:
        entry["tail"] = (done.stderr or done.stdout).strip().splitlines()[-3:]
    results[name] = entry
    _save(out, results)
    return done


def _save(out: Path, results: dict) -> None:
    """The figures so far, so a check killed at its time limit still says how far it got."""
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")


def _step_times(run: Path) -> dict:
    """Mean seconds per GRPO step and its split, from a run's metrics.jsonl (after the first step)."""
    path = next(iter(sorted(run.rglob("metrics.jsonl"))), None)
    if path is None:
        return {"metrics": "missing"}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [row for row in rows if any(key.startswith("time/") for key in row)]
    keys = sorted({key for row in rows for key in row if key.startswith("time/")})
    later = rows[1:] or rows
    summary = {"steps": len(rows)}
    for key in keys:
        values = [row[key] for row in later if isinstance(row.get(key), int | float)]
        if values:
            summary[key] = round(sum(values) / len(values), 3)
    return summary


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve_check(model: str, out: Path, work: Path, results: dict) -> None:
    port, key = _free_port(), "gpu-check-key"
    argv = [*_cli(), "serve", "--model", model, "--device", "cuda", "--port", str(port), "--api-key", key,
            "--db", str(work / "serve.sqlite")]
    log = (out / "serve.log").open("w")
    started = time.perf_counter()
    server = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    entry: dict = {}
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(240):
            if server.poll() is not None:
                raise RuntimeError(f"the server exited with {server.returncode} (serve.log)")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        entry["ready_s"] = round(time.perf_counter() - started, 1)
        auth = {"Authorization": f"Bearer {key}"}
        with urllib.request.urlopen(urllib.request.Request(f"{base}/v1/models", headers=auth), timeout=30) as reply:
            served = json.loads(reply.read())["data"][0]["id"]
        body = json.dumps({"model": served, "max_tokens": 48,
                           "messages": [{"role": "user", "content": "I have had a cough for three days."}]})
        request = urllib.request.Request(f"{base}/v1/chat/completions", data=body.encode(), method="POST",
                                         headers={**auth, "Content-Type": "application/json"})
        asked = time.perf_counter()
        with urllib.request.urlopen(request, timeout=120) as reply:
            answer = json.loads(reply.read())
        entry.update(status=200, completion_s=round(time.perf_counter() - asked, 2),
                     reply=answer["choices"][0]["message"]["content"][:120])
    except Exception as exc:  # noqa: BLE001 - reported in the JSON line, the check goes on
        entry["error"] = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        log.close()
    results["serve_cuda"] = entry
    _save(out, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/gpu_check"), help="folder for the logs")
    parser.add_argument("--work", type=Path, default=None, help="folder for runs and checkpoints (default: a temp one)")
    parser.add_argument("--only", default="test,eval,rule,multiturn,serve,vllm",
                        help="steps to run (a multi-turn run already in --work is served as it is)")
    parser.add_argument("--limit", type=float, default=300, help="seconds each step may take")
    parser.add_argument("--consultations", type=int, default=16, help="eval consult's case sample")
    parser.add_argument("--steps", type=int, default=3, help="GRPO steps per stage")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    work = args.work or Path(tempfile.mkdtemp(prefix="gpu_check-"))
    limit = args.limit
    import torch

    results: dict = {"python": platform.python_version(), "torch": torch.__version__,
                     "cuda": torch.cuda.is_available(),
                     "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    py = sys.executable
    only = set(args.only.split(","))
    if "test" in only:
        _step("test_device", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/policy/test_device.py"],
              out, limit, results)
    consult = [*_cli(), "eval", "consult", "--device", "cuda", "--grading", "rule", "--seed", "0",
               "--runs-dir", str(work / "eval")]
    started = time.perf_counter()
    done = "eval" in only and _step("eval_cuda", [*consult, "--limit", str(args.consultations), "--run-name", "embedded"], out, limit, results)
    if done and done.returncode == 0:
        results["eval_cuda"]["consultations_per_min"] = round(
            args.consultations / ((time.perf_counter() - started) / 60), 2)
    for stage in [stage for stage in ("rule", "multiturn") if stage in only]:
        run = work / f"train_{stage}"
        shutil.rmtree(run, ignore_errors=True)
        argv = [*_cli(), "train", "--stage", stage, "--device", "cuda", "--max-steps", str(args.steps),
                "--output-dir", str(run), "--set", f"save_steps={args.steps}"]
        done = _step(f"train_{stage}_cuda", argv, out, limit, results)
        if done is not None and done.returncode == 0:
            results[f"train_{stage}_cuda"].update(_step_times(run))
            _save(out, results)
    final = work / "train_multiturn" / "final"
    if final.is_dir() and "serve" in only:
        _serve_check(str(final), out, work, results)
        _step("eval_trained_cuda", [*consult, "--model", str(final), "--limit", "4", "--run-name", "trained"],
              out, limit, results)
    vllm = [*_cli(), "train", "--stage", "rule", "--device", "cuda", "--use-vllm", "--vllm-mode", "colocate",
            "--max-steps", "1", "--output-dir", str(work / "train_vllm")]
    done = "vllm" in only and _step("train_vllm", vllm, out, limit, results)
    if done:
        results["train_vllm"]["says"] = (done.stderr or done.stdout).strip().splitlines()[-1:] if done.returncode else []
    _save(out, results)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
