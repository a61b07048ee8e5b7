"""Decoding on prepacked weights: same numbers as the plain layers, fresh after a weight update,
plain again for autograd and after the block."""

from __future__ import annotations

import asyncio

import torch

from policy.engine import packed as packed_mod
from policy.engine.packed import PackedLinears, packing_supported


def _mlp() -> torch.nn.Sequential:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8, bias=False))


def test_packing_is_available_on_this_torch() -> None:
    # The CPU machines run a torch built with oneDNN; if this fails, decoding silently loses the speed-up.
    assert packing_supported(_mlp())


def test_packed_layers_compute_what_the_plain_ones_do() -> None:
    model, x = _mlp(), torch.randn(3, 5, 16)
    packed = PackedLinears(model)
    with torch.inference_mode():
        plain = model(x)
        with packed.active():
            assert all("forward" in vars(m) for m in packed.linears)
            fast = model(x)
    assert all(p.key is not None for p in packed.packs)  # each layer ran on its packed weight
    assert fast.shape == plain.shape == (3, 5, 8)
    torch.testing.assert_close(fast, plain, rtol=1e-5, atol=1e-5)
    assert not any("forward" in vars(m) for m in packed.linears)  # the plain forward is back


def test_a_weight_updated_in_place_is_packed_again() -> None:
    model, x = _mlp(), torch.randn(4, 16)
    packed = PackedLinears(model)
    with torch.no_grad():
        with packed.active():
            before = model(x)
        model[0].weight.mul_(-2.0)  # what an optimizer step does: an in-place update
        with packed.active():
            after = model(x)
        expected = model(x)
    assert not torch.allclose(before, after)
    torch.testing.assert_close(after, expected, rtol=1e-5, atol=1e-5)


def test_weights_a_fused_optimizer_updates_are_packed_again() -> None:
    # The Trainer's default optimizer (adamw_torch_fused) updates weights without bumping their version;
    # before this was caught, every GRPO rollout sampled from the weights packed at its first step.
    from transformers import TrainingArguments
    from transformers.trainer import Trainer

    args = TrainingArguments(output_dir="unused", learning_rate=0.05, report_to=[])
    optimizer_cls, optimizer_kwargs = Trainer.get_optimizer_cls_and_kwargs(args)
    model, x = _mlp(), torch.randn(4, 16)
    packed = PackedLinears(model)
    optimizer = optimizer_cls(model.parameters(), **optimizer_kwargs)
    with torch.no_grad(), packed.active():
        before = model(x)
    model(x).square().sum().backward()
    optimizer.step()
    with torch.no_grad():
        with packed.active():
            after = model(x)
        expected = model(x)
    assert not torch.allclose(before, expected)
    torch.testing.assert_close(after, expected, rtol=1e-5, atol=1e-5)


def test_training_forwards_inside_the_block_keep_autograd() -> None:
    model, x = _mlp(), torch.randn(4, 16)
    with PackedLinears(model).active():
        model(x).sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())


def test_layers_with_their_own_forward_and_other_dtypes_are_left_alone(monkeypatch) -> None:
    model = _mlp()
    own = model[2].forward
    model[2].forward = own  # as accelerate's hooks do
    assert PackedLinears(model).linears == [model[0]]
    assert PackedLinears.for_model(_mlp().to(torch.bfloat16)) is None
    assert PackedLinears.for_model(_mlp(), enabled=False) is None
    monkeypatch.setattr(packed_mod, "AUTO_MAX_BYTES", 100)
    assert PackedLinears.for_model(_mlp()) is None  # auto mode skips a model over the memory limit
    assert PackedLinears.for_model(_mlp(), enabled=True) is not None


async def test_the_embedded_model_decodes_the_same_tokens_packed_or_not(embedded, monkeypatch) -> None:
    from policy.engine.client import LocalChatClient
    from verifier.types import Message

    prompts = ["What are the warning signs of a stroke?", "Name three fruits.", "What is diabetes?"]
    runs = {}
    passes: list[int] = []
    for pack in (True, False):
        client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=50, pack_weights=pack, prefix_cache_mb=0)
        assert (client.packed is not None) is pack
        if pack:  # count the passes that ran on packed weights
            real_active = client.packed.active
            monkeypatch.setattr(client.packed, "active", lambda real=real_active: passes.append(1) or real())
        outs = await asyncio.gather(*(client.complete([Message(role="user", content=p)], max_tokens=24) for p in prompts))
        await client.aclose()
        runs[pack] = [o.tokens for o in outs]
    assert passes, "no pass ran on packed weights"  # the 3-row prefill and steps while 2+ rows run
    assert runs[True] == runs[False]


def test_a_model_cast_after_packing_runs_the_plain_layers() -> None:
    model, x = _mlp(), torch.randn(2, 16)
    packed = PackedLinears(model)
    model.to(torch.bfloat16)
    with torch.no_grad(), packed.active():
        out = model(x.to(torch.bfloat16))
    assert out.dtype == torch.bfloat16
    with torch.no_grad():
        torch.testing.assert_close(out, model(x.to(torch.bfloat16)))

