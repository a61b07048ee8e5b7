"""Generation throughput of LocalChatClient on the embedded model (2 threads), one JSON line.

Side by side in one run: raw ``model.generate`` at batch 1, the client for one stream, and the
client serving 16 concurrent ``complete()`` calls (64 new tokens each, sampling), and the same two
client figures with the weights not prepacked for decoding (``pack_weights=False``, see policy/engine/packed.py).
Targets: concurrent/single >= 3.5x; single-stream client >= 85% of raw generate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import torch

from policy.engine.client import LocalChatClient
from policy.model import load_model
from verifier.types import Message

PROMPTS = [
    "What are the warning signs of a stroke?",
    "How should I treat a mild fever at home?",
    "What is type 2 diabetes?",
    "Explain what blood pressure numbers mean.",
    "When should chest pain be treated as an emergency?",
    "What are common side effects of ibuprofen?",
    "How much water should an adult drink each day?",
    "What is the difference between a virus and a bacterium?",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--concurrent", type=int, default=16)
    parser.add_argument("--max-batch-size", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(2)
    loaded = load_model("embedded")
    client = LocalChatClient(loaded, max_batch_size=args.max_batch_size, batch_wait_ms=20)
    unpacked = LocalChatClient(loaded, max_batch_size=args.max_batch_size, batch_wait_ms=20, pack_weights=False)
    messages = [Message(role="user", content=PROMPTS[0])]
    prompt = torch.tensor([client.render_prompt(messages)])

    def raw_generate() -> float:
        started = time.perf_counter()
        with torch.inference_mode():
            out = loaded.model.generate(
                prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=args.tokens,
                min_new_tokens=args.tokens, do_sample=True, temperature=0.8, top_p=1.0, top_k=0,
                pad_token_id=loaded.tokenizer.pad_token_id,
            )
        return (out.shape[1] - prompt.shape[1]) / (time.perf_counter() - started)

    async def single(client: LocalChatClient = client) -> float:
        started = time.perf_counter()
        result = await client.complete(messages, max_tokens=args.tokens, temperature=0.8, seed=1)
        return len(result.tokens) / (time.perf_counter() - started)

    async def concurrent(client: LocalChatClient = client) -> float:
        started = time.perf_counter()
        results = await asyncio.gather(
            *(
                client.complete(
                    [Message(role="user", content=PROMPTS[i % len(PROMPTS)])],
                    max_tokens=args.tokens, temperature=0.8, seed=i,
                )
                for i in range(args.concurrent)
            )
        )
        return sum(len(r.tokens) for r in results) / (time.perf_counter() - started)

    raw_generate()  # warm-up
    asyncio.run(single())
    asyncio.run(single(unpacked))
    raw, one, many, one_unpacked, many_unpacked = [], [], [], [], []
    for _ in range(args.repeats):  # interleaved so drift affects all alike
        raw.append(raw_generate())
        one.append(asyncio.run(single()))
        many.append(asyncio.run(concurrent()))
        one_unpacked.append(asyncio.run(single(unpacked)))
        many_unpacked.append(asyncio.run(concurrent(unpacked)))
    figures = {
        "bench": "generation",
        "model": loaded.name,
        "threads": torch.get_num_threads(),
        "new_tokens": args.tokens,
        "concurrent_requests": args.concurrent,
        "max_batch_size": args.max_batch_size,
        "raw_generate_tok_s": round(max(raw), 2),
        "client_single_tok_s": round(max(one), 2),
        "client_concurrent_tok_s": round(max(many), 2),
        "concurrent_over_single": round(max(many) / max(one), 2),
        "single_over_raw": round(max(one) / max(raw), 3),
        "unpacked_single_tok_s": round(max(one_unpacked), 2),
        "unpacked_concurrent_tok_s": round(max(many_unpacked), 2),
        "packing_speedup_single": round(max(one) / max(one_unpacked), 2),
        "packing_speedup_concurrent": round(max(many) / max(many_unpacked), 2),
        "batch_sizes_seen": sorted(set(client.stats.batch_sizes)),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
