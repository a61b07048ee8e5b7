"""Device and dtype of the local engine: chosen at construction, checked with clear errors, and a real
generation on CUDA where torch sees a GPU."""

from __future__ import annotations

import asyncio

import pytest
import torch

from policy.engine import device as device_mod
from policy.engine.client import LocalChatClient
from policy.engine.device import DeviceError, resolve_device, resolve_dtype
from verifier.types import Message

PROMPTS = ["What are the warning signs of a stroke?", "Name three fruits.", "What is diabetes?"]


def _msgs(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


def test_names_resolve_and_bad_ones_fail_clearly(monkeypatch):
    assert resolve_device(None) == torch.device("cpu") == resolve_device("cpu")
    assert resolve_dtype(None, torch.device("cpu")) == torch.float32
    assert resolve_dtype("auto", torch.device("cpu")) == torch.float32
    assert resolve_dtype("bfloat16", torch.device("cpu")) == torch.bfloat16 == resolve_dtype(torch.bfloat16, torch.device("cpu"))
    with pytest.raises(DeviceError, match="unknown dtype 'half-ish'.*float32, bfloat16, float16"):
        resolve_dtype("half-ish", torch.device("cpu"))
    with pytest.raises(DeviceError, match="runs float32, bfloat16 or float16"):
        resolve_dtype(torch.float64, torch.device("cpu"))
    with pytest.raises(DeviceError, match="unknown device"):
        resolve_device("gpu0")
    with pytest.raises(DeviceError, match="runs on cpu or cuda"):
        resolve_device("meta")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    with pytest.raises(DeviceError, match="torch sees no CUDA device: torch.cuda.is_available.. is False"):
        resolve_device("cuda")
    with pytest.raises(DeviceError, match="torch sees no CUDA device"):
        resolve_device("cuda:1")


def test_a_dtype_the_device_cannot_run_is_refused(monkeypatch):
    # float16 runs on this torch's CPU; where a build cannot, the error names the failing operation.
    assert resolve_dtype("float16", torch.device("cpu")) == torch.float16
    monkeypatch.setattr(device_mod, "_unsupported", lambda device, dtype: "RuntimeError: addmm not implemented for 'Half'")
    with pytest.raises(DeviceError, match="float16 is not supported on cpu .*addmm.*use float32 or bfloat16"):
        resolve_dtype("float16", torch.device("cpu"))


async def test_a_client_in_bfloat16_generates_and_does_not_pack():
    client = LocalChatClient.from_spec("embedded", dtype="bfloat16", max_batch_size=4, batch_wait_ms=50)
    assert client.dtype == torch.bfloat16 and client.device.type == "cpu"
    assert client.packed is None  # oneDNN prepacking is CPU float32 only
    vocab = client.loaded.model.config.vocab_size
    outs = await asyncio.gather(*(client.complete(_msgs(p), max_tokens=6) for p in PROMPTS))
    assert all(len(o.tokens) >= 1 and all(0 <= t < vocab for t in o.tokens) for o in outs)
    assert max(client.stats.batch_sizes) >= 2
    await client.aclose()


def test_a_client_keeps_the_model_where_it_is_unless_told(embedded):
    client = LocalChatClient(embedded)
    assert client.device == embedded.device and client.dtype == embedded.dtype == torch.float32
    assert client.packed is not None


async def _greedy(client: LocalChatClient) -> tuple[list[list[int]], list[int]]:
    together = await asyncio.gather(*(client.complete(_msgs(p), max_tokens=16) for p in PROMPTS))
    first = together[0]
    second_turn = [*_msgs(PROMPTS[0]), Message(role="assistant", content=first.text), *_msgs("And what should I do?")]
    follow_up = await client.complete(second_turn, max_tokens=16)  # served from the prefix cache
    return [c.tokens for c in together], follow_up.tokens


async def test_generation_on_cuda_matches_the_cpu(embedded):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: torch.cuda.is_available() is False")
    cuda = LocalChatClient.from_spec("embedded", device="cuda", max_batch_size=4, batch_wait_ms=50)
    assert cuda.device.type == "cuda" and cuda.dtype == torch.float32 and cuda.packed is None
    cpu = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=50)
    (on_cuda, follow_cuda), (on_cpu, follow_cpu) = await _greedy(cuda), await _greedy(cpu)
    vocab = embedded.model.config.vocab_size
    for a, b in zip([*on_cuda, follow_cuda], [*on_cpu, follow_cpu], strict=True):
        assert all(0 <= t < vocab for t in a)
        assert a[:8] == b[:8]  # float32 on both: greedy agrees (a late near-tie may differ)
    assert cuda.stats.prefix_hit_tokens > 0
    half = LocalChatClient.from_spec("embedded", device="cuda", dtype="auto")
    assert half.dtype in (torch.bfloat16, torch.float16)
    reply = await half.complete(_msgs(PROMPTS[1]), max_tokens=8)
    assert reply.tokens and all(0 <= t < vocab for t in reply.tokens)
    await asyncio.gather(cuda.aclose(), half.aclose(), cpu.aclose())


def test_a_command_asked_for_a_gpu_that_is_not_there_stops_before_any_case(tmp_path, monkeypatch) -> None:
    """Not a warning per case and exit 0: one error naming the option, exit 2, no run folder."""
    from typer.testing import CliRunner

    from serving.cli import app

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    result = CliRunner().invoke(app, ["eval", "consult", "--device", "cuda", "--limit", "2",
                                      "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2, result.output
    assert "error: --device cuda: torch sees no CUDA device" in result.stderr
    assert not (tmp_path / "runs").exists()
