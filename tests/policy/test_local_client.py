"""LocalChatClient on the real embedded model: loading, seeds, batching, stop strings, streaming."""

from __future__ import annotations

import asyncio

import pytest

from policy.local import LocalChatClient
from policy.model import embedded_checkpoint_dir
from verifier.types import Message

PROMPTS = [
    "What are the warning signs of a stroke?",
    "Name three fruits.",
    "What is the capital of France?",
    "How should I treat a mild fever at home?",
    "What is diabetes?",
    "Tell me a short fact about the heart.",
    "Why is sleep important?",
    "What does a pharmacist do?",
]


def _msgs(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


def test_embedded_loads_from_converted_float32_checkpoint(embedded):
    import torch

    assert embedded.path == embedded_checkpoint_dir()
    assert (embedded.path / "model.safetensors").is_file()
    assert next(embedded.model.parameters()).dtype == torch.float32
    assert not getattr(embedded.model, "is_quantized", False)
    assert getattr(embedded.model.config, "quantization_config", None) is None
    assert embedded.tokenizer.chat_template


async def test_seeded_sampling_is_reproducible(local_client):
    first = await local_client.complete(_msgs(PROMPTS[0]), max_tokens=24, temperature=1.0, seed=1234)
    again = await local_client.complete(_msgs(PROMPTS[0]), max_tokens=24, temperature=1.0, seed=1234)
    assert first.tokens == again.tokens
    others = [
        (await local_client.complete(_msgs(PROMPTS[0]), max_tokens=24, temperature=1.0, seed=s)).tokens
        for s in (1, 2)
    ]
    assert any(tokens != first.tokens for tokens in others), "different seeds should sample differently"


async def test_greedy_alone_equals_greedy_inside_a_padded_batch(embedded):
    # Prompts of different lengths force left padding inside the batch. Greedy decoding of a row must
    # not depend on its batch-mates: padding is masked and positions come from the attention mask.
    # float32 reductions over a different batch shape may in principle flip a near-tie late in a
    # sequence; with these prompts and 24 tokens the outputs are identical, which is what we assert.
    client = LocalChatClient(embedded, max_batch_size=8, batch_wait_ms=50)
    alone = [(await client.complete(_msgs(p), max_tokens=24)).tokens for p in PROMPTS]
    together = await asyncio.gather(*(client.complete(_msgs(p), max_tokens=24) for p in PROMPTS))
    assert client.batch_sizes[-1] == len(PROMPTS)
    assert [c.tokens for c in together] == alone


async def test_concurrent_requests_share_forward_passes(embedded):
    client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=50)
    results = await asyncio.gather(*(client.complete(_msgs(p), max_tokens=8) for p in PROMPTS))
    tokens = sum(len(r.tokens) for r in results)
    assert client.batch_sizes == [4, 4]  # bounded by max_batch_size
    # One forward pass per decoding step of a batch, not per request.
    assert client.forward_passes <= 2 * 8
    assert tokens > client.forward_passes


async def test_stop_strings_and_finish_reasons(local_client):
    full = await local_client.complete(_msgs(PROMPTS[0]), max_tokens=40)
    assert full.finish_reason == "length" and len(full.tokens) == 40
    words = full.text.split()
    stop = words[3]
    cut = await local_client.complete(_msgs(PROMPTS[0]), max_tokens=40, stop=[stop])
    assert cut.finish_reason == "stop"
    assert stop not in cut.text
    assert full.text.startswith(cut.text)
    assert cut.usage.completion_tokens == len(cut.tokens) < 40
    assert len(cut.logprobs) == len(cut.tokens) and all(lp <= 0 for lp in cut.logprobs)


async def test_stream_yields_the_same_text_as_complete(local_client):
    whole = await local_client.complete(_msgs(PROMPTS[3]), max_tokens=24, seed=7, temperature=0.7)
    pieces = [p async for p in local_client.stream(_msgs(PROMPTS[3]), max_tokens=24, seed=7, temperature=0.7)]
    assert len(pieces) > 1
    assert "".join(pieces) == whole.text


async def test_bad_requests_fail_clearly(local_client):
    with pytest.raises(ValueError, match="max_tokens"):
        await local_client.complete(_msgs("hi"), max_tokens=0)
    with pytest.raises(ValueError, match="context"):
        await local_client.complete(_msgs("word " * 9000), max_tokens=8)
    with pytest.raises(ValueError, match="empty"):
        await local_client.complete([], max_tokens=8)
