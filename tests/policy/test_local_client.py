"""LocalChatClient on the real embedded model: loading, seeds, batching, stop strings, streaming."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap

import pytest

from policy.engine.client import LocalChatClient
from policy.model import embedded_checkpoint_dir
from tests.conftest import PROCESS_THREADS
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
    assert client.stats.admitted[-1] == len(PROMPTS)  # all eight were prefilled and decoded together
    assert [c.tokens for c in together] == alone


async def test_concurrent_requests_share_forward_passes(embedded):
    client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=50)
    results = await asyncio.gather(*(client.complete(_msgs(p), max_tokens=8) for p in PROMPTS))
    tokens = sum(len(r.tokens) for r in results)
    assert max(client.stats.batch_sizes) == 4  # bounded by max_batch_size
    assert sum(client.stats.admitted) == len(PROMPTS)
    # One forward pass per decoding step of the running batch, not per request.
    assert tokens > 2 * client.stats.forward_passes


async def test_a_request_joins_the_running_batch_and_leaves_when_done(embedded):
    # Continuous batching: a request that arrives while another is decoding is admitted at the next
    # step (not after the batch drains), comes back as soon as it is finished, and neither output
    # depends on the other.
    client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0)
    long_alone = (await client.complete(_msgs(PROMPTS[0]), max_tokens=40)).tokens
    short_alone = (await client.complete(_msgs(PROMPTS[4]), max_tokens=6)).tokens
    admitted_before, steps_before = len(client.stats.admitted), client.stats.decode_steps
    long_task = asyncio.ensure_future(client.complete(_msgs(PROMPTS[0]), max_tokens=40))
    while client.stats.decode_steps < steps_before + 5:  # the long request is decoding
        await asyncio.sleep(0.01)
    short = await client.complete(_msgs(PROMPTS[4]), max_tokens=6)
    assert not long_task.done(), "the short request should come back while the long one still decodes"
    long = await long_task
    assert client.stats.admitted[admitted_before:] == [1, 1]
    assert max(client.stats.batch_sizes[steps_before:]) == 2  # they shared decoding steps
    assert short.tokens == short_alone
    assert long.tokens == long_alone


async def test_closing_fails_waiting_requests_clearly(embedded):
    from policy.engine.api import ClientClosedError

    client = LocalChatClient(embedded, max_batch_size=1, batch_wait_ms=0)
    running = asyncio.ensure_future(client.complete(_msgs(PROMPTS[0]), max_tokens=200))
    waiting = asyncio.ensure_future(client.complete(_msgs(PROMPTS[1]), max_tokens=8))
    while not client.stats.batch_sizes:
        await asyncio.sleep(0.01)
    await client.aclose()
    for task in (running, waiting):
        with pytest.raises(ClientClosedError, match="closed"):
            await task
    again = await client.complete(_msgs(PROMPTS[2]), max_tokens=4)  # a closed client can be reused
    assert len(again.tokens) >= 1


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


async def test_stream_completion_ends_with_the_requests_own_completion(local_client):
    # What the OpenAI-compatible server streams: the pieces, then the exact finish_reason and usage.
    from policy.engine.api import StreamingChatClient
    from verifier.llm import Completion

    assert isinstance(local_client, StreamingChatClient)
    for options in ({"max_tokens": 12}, {"max_tokens": 40, "stop": ["."]}):
        whole = await local_client.complete(_msgs(PROMPTS[1]), **options)
        items = [item async for item in local_client.stream_completion(_msgs(PROMPTS[1]), **options)]
        final = items[-1]
        assert isinstance(final, Completion) and all(isinstance(piece, str) for piece in items[:-1])
        assert "".join(items[:-1]) == final.text == whole.text
        assert final.tokens == whole.tokens and final.finish_reason == whole.finish_reason
        assert final.usage == whole.usage
        assert final.usage.prompt_tokens == len(local_client.render_prompt(_msgs(PROMPTS[1])))
    assert whole.finish_reason == "stop"  # the second round stopped at "."
    assert (await local_client.complete(_msgs(PROMPTS[1]), max_tokens=12)).finish_reason == "length"


async def test_a_stream_left_early_leaves_the_batch(embedded):
    client = LocalChatClient(embedded, max_batch_size=2, batch_wait_ms=0)
    pieces = client.stream(_msgs(PROMPTS[0]), max_tokens=200)
    async for _ in pieces:
        break
    await pieces.aclose()
    before = client.stats.generated_tokens
    await asyncio.sleep(1.0)
    assert client.stats.generated_tokens - before <= 2  # the row left at the next step, not after 200 tokens
    assert (await client.complete(_msgs(PROMPTS[2]), max_tokens=4)).finish_reason == "length"


async def test_a_stop_string_at_the_very_start_leaves_an_empty_reply(local_client):
    full = await local_client.complete(_msgs(PROMPTS[1]), max_tokens=8)
    cut = await local_client.complete(_msgs(PROMPTS[1]), max_tokens=8, stop=[full.text[:2]])
    assert cut.finish_reason == "stop" and cut.text == ""  # never the stop string itself


async def test_stats_count_what_the_engine_did(embedded):
    client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=50)
    results = await asyncio.gather(*(client.complete(_msgs(p), max_tokens=6) for p in PROMPTS[:3]))
    stats = client.stats.snapshot()
    assert stats.generated_tokens == sum(len(r.tokens) for r in results)
    assert stats.prompt_tokens == sum(r.usage.prompt_tokens for r in results)
    assert stats.admitted == [3] and stats.admissions == 1
    assert stats.prefill_passes == stats.forward_passes - stats.decode_steps >= 1
    assert 1 <= stats.mean_batch <= 3 and stats.prefill_seconds > 0 and stats.decode_seconds > 0
    assert client.generated_tokens == stats.generated_tokens  # TokenCountingClient, read by /metrics
    assert client.queue_depth == 0  # QueueingClient: nothing waits once all are answered


async def test_bad_requests_fail_clearly(local_client):
    with pytest.raises(ValueError, match="max_tokens"):
        await local_client.complete(_msgs("hi"), max_tokens=0)
    with pytest.raises(ValueError, match="context"):
        await local_client.complete(_msgs("word " * 9000), max_tokens=8)
    with pytest.raises(ValueError, match="empty"):
        await local_client.complete([], max_tokens=8)


async def test_the_next_turn_of_a_conversation_reuses_the_cached_prefix(embedded):
    # The second turn's prompt starts with the first turn's prompt and reply: with prefix caching only
    # the new tokens are prefilled, and the reply is the same as with a fresh prefill of everything.
    cached = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0)
    fresh = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0, prefix_cache_mb=0)
    first = await cached.complete(_msgs(PROMPTS[0]), max_tokens=24)
    second_turn = [*_msgs(PROMPTS[0]), Message(role="assistant", content=first.text), *_msgs("And what should I do?")]
    hits_before = cached.stats.prefix_hit_tokens
    reused = await cached.complete(second_turn, max_tokens=24)
    hit = cached.stats.prefix_hit_tokens - hits_before
    assert hit >= len(cached.render_prompt(_msgs(PROMPTS[0]))) - 3  # at least the first turn's prompt
    assert hit < len(cached.render_prompt(second_turn))
    assert reused.tokens == (await fresh.complete(second_turn, max_tokens=24)).tokens
    assert fresh.stats.prefix_hit_tokens == 0


async def test_requests_arriving_together_prefill_their_shared_start_once(embedded):
    # Like 16 consultations opening at once: the same long system prompt, different questions. The
    # first is prefilled whole, the others only after the shared start — and answer as a fresh prefill.
    system = Message(role="system", content="You are a careful, friendly physician. " * 6)
    chats = [[system, *_msgs(p)] for p in PROMPTS[:4]]
    cached = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=50)
    fresh = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=50, prefix_cache_mb=0)
    together = await asyncio.gather(*(cached.complete(c, max_tokens=12) for c in chats))
    assert cached.stats.admitted == [4]  # admitted in one go
    shared = len(cached.render_prompt([system])) - 5
    assert cached.stats.prefix_hit_tokens >= 3 * shared  # three followers reused the first one's start
    assert [c.tokens for c in together] == [(await fresh.complete(c, max_tokens=12)).tokens for c in chats]


async def test_cached_prefixes_are_dropped_when_the_weights_change(embedded):
    import torch

    client = LocalChatClient(embedded, max_batch_size=2, batch_wait_ms=0)
    await client.complete(_msgs(PROMPTS[1]), max_tokens=4)
    assert client.prefix_cache.entries
    with torch.no_grad():  # an in-place update like an optimizer step's (adding 0 leaves the values)
        next(embedded.model.parameters()).add_(0.0)
    before = client.stats.prefix_hit_tokens
    await client.complete(_msgs(PROMPTS[1]), max_tokens=4)
    assert client.stats.prefix_hit_tokens == before, "a prefix computed with the old weights was reused"
    await client.complete(_msgs(PROMPTS[1]), max_tokens=4)
    assert client.stats.prefix_hit_tokens > before  # with unchanged weights the cache serves again


def test_roomy_cache_layer_appends_in_place_and_pads_joined_rows_with_zeros():
    import torch

    from policy.engine.kv import KV, RoomyLayer

    short = torch.randn(1, 3, 2, 4), torch.randn(1, 3, 2, 4)
    long = torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4)
    layer = RoomyLayer.empty(long[0], capacity=4, width=5)
    assert layer.fits(3, 5)
    layer.join([KV(*long), KV(*short)])
    assert layer.keys.shape == (3, 3, 5, 4)
    assert torch.equal(layer.keys[:2], long[0]) and torch.equal(layer.values[2, :, 3:], short[1][0])
    assert not layer.keys[2, :, :3].any()  # left padding of the shorter row is zero, never garbage
    buffer = layer._keys.data_ptr()
    for step in range(70):  # one column per decoding step, written into the spare room
        new = torch.full((3, 3, 1, 4), float(step)), torch.full((3, 3, 1, 4), -float(step))
        keys, values = layer.update(*new)
        assert keys.shape[2] == 6 + step and torch.equal(keys[:, :, -1:], new[0]) and torch.equal(values[:, :, -1:], new[1])
        if step < 60:
            assert layer._keys.data_ptr() == buffer  # no reallocation while there is room
    assert layer._keys.data_ptr() != buffer  # grown once the room ran out, tokens kept
    assert torch.equal(layer.keys[:2, :, :5], long[0]) and layer.get_seq_length() == 75
    row2 = layer.keys[2].clone()
    layer.retain([(0, 2)], rows=2, trim=0)  # row 0 leaves: the last row takes its place
    assert layer.keys.shape[0] == 2 and torch.equal(layer.keys[0], row2)
    assert torch.equal(layer.keys[1, :, :5], long[0][1])


def test_the_running_batch_keeps_every_rows_tokens_as_rows_come_and_go():
    """Rows join (shorter and longer than the batch), decode, leave; each row's keys stay its own."""
    import random

    import torch
    from transformers import DynamicCache

    from policy.engine.kv import Prefilled, RunningBatch

    rng = random.Random(0)
    batch = RunningBatch(max_rows=6, spliceable=True)
    tokens: dict[int, torch.Tensor] = {}  # request -> its keys so far [heads, n, dim]
    next_id = 0

    def join(lengths: list[int]) -> None:
        nonlocal next_id
        groups = []
        for n in lengths:
            keys = torch.randn(1, 2, n, 3)
            tokens[next_id] = keys[0]
            cache = DynamicCache([(keys.clone(), -keys.clone())])
            groups.append(Prefilled([next_id], torch.ones(1, n, dtype=torch.long), cache))  # type: ignore[list-item]
            next_id += 1
        batch.extend(groups)

    def check() -> None:
        layer = batch.cache.layers[0]
        assert layer.keys.shape[:3] == (len(batch), 2, batch.attention.shape[1])
        for row, request in enumerate(batch.rows):
            n = tokens[request].shape[1]
            assert batch.attention[row].tolist() == [0] * (batch.attention.shape[1] - n) + [1] * n
            assert torch.equal(layer.keys[row, :, -n:], tokens[request])
            assert torch.equal(layer.values[row, :, -n:], -tokens[request])
            assert not layer.keys[row, :, :-n].any()  # padding is zero, never garbage
        assert batch.attention[:, 0].any()  # no column of padding only

    join([4, 9])
    check()
    for round_ in range(40):
        new = torch.randn(len(batch), 2, 1, 3)
        batch.cache.layers[0].update(new, -new)
        batch.attention = torch.cat([batch.attention, batch.attention.new_ones((len(batch), 1))], dim=1)
        for row, request in enumerate(batch.rows):
            tokens[request] = torch.cat([tokens[request], new[row]], dim=1)
        check()
        if round_ % 3 == 0 and len(batch) > 1:
            keep = sorted(rng.sample(range(len(batch)), rng.randint(1, len(batch) - 1)))
            batch.keep(keep)
            check()
        if round_ % 4 == 1 and len(batch) < 6:
            width = batch.attention.shape[1]
            join([rng.choice([2, width, width + 30, width + 100])][: 6 - len(batch)])
            check()
    batch.keep([])
    assert len(batch) == 0 and batch.cache is None


def test_prefix_cache_keeps_one_entry_per_growing_conversation():
    import torch

    from policy.engine.kv import KV
    from policy.engine.prefix import PrefixCache

    def kv(n: int) -> list[KV]:
        return [KV(torch.zeros(1, 1, n, 2), torch.zeros(1, 1, n, 2))]

    cache = PrefixCache(max_bytes=10_000)
    turn1, turn2, other = list(range(20)), list(range(30)), [7] * 25
    cache.add(turn1, kv(20))
    cache.add(other, kv(25))
    cache.add(turn2, kv(30))  # the next turn covers the first: its entry replaces it
    assert sorted(len(e.tokens) for e in cache.entries.values()) == [25, 30]
    cache.add(turn1, kv(20))  # already covered by the longer entry: nothing added
    assert len(cache.entries) == 2 and cache.nbytes == 4 * 2 * 2 * (25 + 30)
    entry, shared = cache.longest(turn2 + [99])
    assert shared == 30 and len(entry.tokens) == 30


def test_sampling_follows_the_softmax_and_top_p():
    import torch

    from policy.engine.sampling import sample_token

    logits = torch.log(torch.tensor([0.1, 0.0, 0.6, 0.3]))
    generator = torch.Generator().manual_seed(0)
    draws = [sample_token(logits, 1.0, 1.0, generator) for _ in range(4000)]
    shares = [draws.count(i) / len(draws) for i in range(4)]
    assert shares[1] == 0 and abs(shares[0] - 0.1) < 0.02 and abs(shares[2] - 0.6) < 0.03 and abs(shares[3] - 0.3) < 0.03
    assert set(sample_token(logits, 1.0, 0.5, generator) for _ in range(200)) == {2}  # top-p keeps the 0.6 token
    assert sample_token(logits, 0.0, 1.0, generator) == 2


def test_a_batch_of_rows_samples_what_each_row_samples_alone():
    import torch

    from policy.engine.sampling import sample_token, sample_tokens

    logits = torch.randn(6, 500) * 3
    temperatures = [0.0, 0.3, 0.8, 1.0, 0.0, 1.3]
    for top_p in (1.0, 0.9):
        alone = [
            sample_token(row, t, top_p, torch.Generator().manual_seed(i))
            for i, (row, t) in enumerate(zip(logits, temperatures, strict=True))
        ]
        generators = [torch.Generator().manual_seed(i) for i in range(6)]
        assert sample_tokens(logits, temperatures, top_p, generators) == alone
    same = logits[:1].expand(6, -1)  # one distribution, six generators: six draws of their own
    seeded = [sample_tokens(same, [1.0] * 6, 1.0, [torch.Generator().manual_seed(i) for i in range(6)]) for _ in range(2)]
    assert seeded[0] == seeded[1] and len(set(seeded[0])) > 1


_EXIT_RIGHT_AFTER_A_REPLY = textwrap.dedent(
    """
    import asyncio
    from policy.engine.client import LocalChatClient
    from verifier.types import Message

    client = LocalChatClient.from_spec("embedded")
    asyncio.run(client.complete([Message(role="user", content="Hello! " * 40)], max_tokens=4))
    """
)


def test_a_process_that_exits_right_after_a_reply_exits_cleanly(embedded):
    # The decoding thread keeps working (caching the prefix) after it hands the reply back; a process
    # that exits at once used to abort in torch ("terminate called without an active exception",
    # exit -6) in about 3 runs of 4. The atexit hook in policy.engine.engine stops the thread first.
    # Three processes, started together: each one's start-up (imports, model load) overlaps the others'.
    # Each runs torch with the threads of a process of its own, not a test worker's share.
    env = {**os.environ, "OMP_NUM_THREADS": PROCESS_THREADS}
    processes = [subprocess.Popen([sys.executable, "-c", _EXIT_RIGHT_AFTER_A_REPLY], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    try:
        results = [(process.communicate(timeout=300), process.returncode) for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    for (_, stderr), returncode in results:
        assert returncode == 0, stderr[-2000:]


def test_the_device_lock_is_handed_over_in_arrival_order():
    """A thread that releases the lock and asks again waits behind the thread already waiting."""
    import threading
    import time

    from policy.engine.engine import FifoLock

    lock, order = FifoLock(), []
    holding = threading.Event()

    def first() -> None:
        with lock:
            holding.set()
            time.sleep(0.2)  # the second thread queues meanwhile
        with lock:
            order.append("first again")

    def second() -> None:
        holding.wait()
        with lock:
            order.append("second")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert order == ["second", "first again"]


def test_two_engines_of_one_model_take_turns_with_their_passes(embedded):
    """Two clients of one model (the bench's patient and policy on the same weights) never run a pass of it
    at the same time."""
    import threading
    import time

    spans: list[tuple[int, float, float]] = []
    forward = embedded.model.forward

    def recorded(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        started = time.perf_counter()
        try:
            return forward(*args, **kwargs)
        finally:
            spans.append((threading.get_ident(), started, time.perf_counter()))

    first, second = LocalChatClient(embedded, max_batch_size=4), LocalChatClient(embedded, max_batch_size=4)
    embedded.model.forward = recorded

    async def both() -> None:
        await asyncio.gather(*(client.complete(_msgs(p), max_tokens=12, temperature=1.0, seed=i)
                               for i, p in enumerate(PROMPTS[:4]) for client in (first, second)))
        await first.aclose()
        await second.aclose()

    try:
        asyncio.run(both())
    finally:
        embedded.model.forward = forward
    assert len({thread for thread, _, _ in spans}) == 2  # both engines decoded
    spans.sort(key=lambda span: span[1])
    assert not [(a, b) for a, b in zip(spans, spans[1:], strict=False) if b[1] < a[2]]  # never at once
