"""Serving benchmark: 1 client vs N concurrent clients against a real uvicorn server (embedded model).

Starts ``medverifier serve`` in a subprocess on 127.0.0.1, then runs the same multi-turn chat workload
(each client: ``--turns`` turns on ``/v1/chat/completions``, the history growing each turn) first with
one client, then with ``--clients`` clients at once. Prints ONE JSON line: aggregate generated
tokens/s, p50/p95 request latency and errors for both runs, and the throughput ratio (target >= 3).

    python bench/serving.py                  # 1 vs 16 clients, 3 turns, 32 tokens
    python bench/serving.py --clients 8 --turns 2 --max-tokens 16   # a quicker, reduced run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

KEY = "bench-key"
QUESTIONS = [
    "I have had a headache for three days. What could it be?",
    "It gets worse in the morning. Should I worry?",
    "What should I do next?",
    "Which tests would help?",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, workdir: Path, max_batch_size: int, timeout_s: float) -> subprocess.Popen:
    command = [sys.executable, "-m", "serving.cli", "serve", "--port", str(port), "--api-key", KEY,
               "--db", str(workdir / "bench.sqlite"), "--max-batch-size", str(max_batch_size),
               "--queue-size", "256", "--timeout", str(timeout_s), "--log-level", "warning"]
    log = (workdir / "server.log").open("wb")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")})


def wait_ready(url: str, process: subprocess.Popen, workdir: Path, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited:\n{(workdir / 'server.log').read_text()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise SystemExit("server did not become ready")


async def one_client(http: httpx.AsyncClient, model: str, index: int, turns: int, max_tokens: int,
                     latencies: list[float], counts: dict[str, int]) -> None:
    history = [{"role": "system", "content": f"You are a helpful doctor. (client {index})"}]
    for turn in range(turns):
        history.append({"role": "user", "content": QUESTIONS[turn % len(QUESTIONS)]})
        body = {"model": model, "messages": history, "max_tokens": max_tokens, "temperature": 0.7,
                "seed": index * 100 + turn}
        started = time.perf_counter()
        try:
            response = await http.post("/v1/chat/completions", json=body)
        except httpx.HTTPError:
            counts["errors"] += 1
            continue
        latencies.append(time.perf_counter() - started)
        if response.status_code != 200:
            counts["errors"] += 1
            history.pop()
            continue
        data = response.json()
        counts["tokens"] += data["usage"]["completion_tokens"]
        counts["requests"] += 1
        history.append({"role": "assistant", "content": data["choices"][0]["message"]["content"]})


async def run(url: str, model: str, clients: int, turns: int, max_tokens: int) -> dict[str, float | int]:
    latencies: list[float] = []
    counts = {"tokens": 0, "requests": 0, "errors": 0}
    headers = {"Authorization": f"Bearer {KEY}"}
    limits = httpx.Limits(max_connections=clients + 4)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=600, limits=limits) as http:
        started = time.perf_counter()
        await asyncio.gather(*[one_client(http, model, i, turns, max_tokens, latencies, counts)
                               for i in range(clients)])
        wall = time.perf_counter() - started
    ordered = sorted(latencies) or [float("nan")]
    return {
        "clients": clients,
        "requests": counts["requests"],
        "errors": counts["errors"],
        "tokens": counts["tokens"],
        "wall_s": round(wall, 2),
        "tokens_per_s": round(counts["tokens"] / wall, 2),
        "p50_s": round(statistics.median(ordered), 3),
        "p95_s": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--max-batch-size", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=900.0, help="The server's per-request limit (s).")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="medverifier-bench-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # `timeout`/Ctrl-C send SIGTERM/SIGINT: exit through `finally` so the server is not left running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    process = start_server(port, workdir, args.max_batch_size, args.timeout)
    try:
        wait_ready(url, process, workdir)
        model = httpx.get(f"{url}/v1/models", headers={"Authorization": f"Bearer {KEY}"}).json()["data"][0]["id"]
        asyncio.run(run(url, model, 1, 1, 4))  # warm-up, not measured
        single = asyncio.run(run(url, model, 1, args.turns, args.max_tokens))
        many = asyncio.run(run(url, model, args.clients, args.turns, args.max_tokens))
    finally:
        process.kill()
        process.wait()
    print(json.dumps({
        "bench": "serving",
        "model": model,
        "turns": args.turns,
        "max_tokens": args.max_tokens,
        "single": single,
        "concurrent": many,
        "throughput_ratio": round(many["tokens_per_s"] / single["tokens_per_s"], 2) if single["tokens_per_s"] else None,
        "target_ratio": 3.0,
        "errors": single["errors"] + many["errors"],
        "load_average_1m": round(os.getloadavg()[0], 2),  # other work on the machine skews both runs
    }))


if __name__ == "__main__":
    main()
