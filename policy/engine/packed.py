"""Decoding steps on prepacked weights: the linear layers of a CPU float32 model through oneDNN.

A decoding step multiplies a few rows (one per active request) by every weight matrix of the model.
``torch.nn.functional.linear`` hands that to MKL, which re-packs the weight matrix into its blocked
layout on every call with more than one row; for a 135M model that copy costs as much as the
arithmetic. oneDNN can pack each weight once and reuse it. Measured on the 2-core machine: a model
step of 8 rows costs about a quarter less; 16 concurrent requests decode 14% more tokens per second
(``bench/generation.py`` measures it side by side). A one-row step is slower through oneDNN than
through MKL's matrix-vector path, and from a few hundred rows on MKL's packing is paid off by the
arithmetic, so the local client packs passes of 2 to 256 token rows (``policy.engine.passes.PACKED_MAX_ROWS``).

``packed_linears(model).active()`` swaps the forward of every ``nn.Linear`` for the packed one while
the block runs (the local engine's passes, and TRL's generation in ``policy.grpo``); the
packed weights are kept once per model, however many clients share it. The packed path is taken
only without autograd (a training forward falls back to the plain layer) and repacks a weight
whenever it changed: when its version moved (an in-place update) or any optimizer stepped since it was
packed. The second is needed: the fused and foreach optimizers (``adamw_torch_fused`` is the Trainer's
default) update weights without bumping their version, and GRPO's rollouts then sampled from the
weights packed at its first step while it trained the others. Packed copies
take as much memory again as the linear weights, so by default packing is used only for models whose
linear weights fit in ``AUTO_MAX_BYTES``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import types
import weakref
from collections.abc import Iterator

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

logger = logging.getLogger(__name__)

# Packing doubles the memory of the linear weights; above this, auto mode leaves the model as it is.
AUTO_MAX_BYTES = 2 * 2**30


def packing_supported(model: torch.nn.Module) -> bool:
    """oneDNN packing applies to float32 weights on the CPU, in a torch built with oneDNN."""
    try:
        weight = next(model.parameters())
    except StopIteration:
        return False
    return (
        weight.device.type == "cpu"
        and weight.dtype == torch.float32
        and torch.backends.mkldnn.is_available()
        and hasattr(torch.ops.mkldnn, "_reorder_linear_weight")
        and hasattr(torch.ops.mkldnn, "_linear_pointwise")
    )


_optimizer_steps = 0  # optimizer steps taken in this process (any optimizer): a packed weight older than one is stale


def _count_optimizer_step(_optimizer: torch.optim.Optimizer, _args: object, _kwargs: object) -> None:
    global _optimizer_steps
    _optimizer_steps += 1


register_optimizer_step_post_hook(_count_optimizer_step)


class _Packed:
    """One linear layer's packed weight, with the version of the weight it was packed from."""

    __slots__ = ("tensor", "key")

    def __init__(self) -> None:
        self.tensor: torch.Tensor | None = None
        self.key: tuple[int, int, int] | None = None

    def get(self, weight: torch.Tensor) -> torch.Tensor:
        key = (weight.data_ptr(), weight._version, _optimizer_steps)
        if key != self.key:
            self.tensor = torch.ops.mkldnn._reorder_linear_weight(weight.detach(), None)
            self.key = key
        assert self.tensor is not None
        return self.tensor


def _packed_forward(module: torch.nn.Linear, packed: _Packed) -> types.MethodType:
    def forward(self: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
        # oneDNN's packed op has no backward, and takes float32 on the CPU only (a model moved since).
        if (torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad)) or not (
            x.is_cpu and x.dtype == self.weight.dtype == torch.float32
        ):
            return torch.nn.functional.linear(x, self.weight, self.bias)
        shape = x.shape
        out = torch.ops.mkldnn._linear_pointwise(
            x.reshape(-1, shape[-1]), packed.get(self.weight), self.bias, "none", [], ""
        )
        return out.reshape(*shape[:-1], out.shape[-1])

    return types.MethodType(forward, module)


class PackedLinears:
    """The linear layers of ``model``, run on packed weights inside ``active()``."""

    def __init__(self, model: torch.nn.Module) -> None:
        self._lock = threading.Lock()
        self._active = 0  # blocks inside active(), any thread: the forwards are swapped while > 0
        # Plain linears only: subclasses (LoRA layers, quantized ones) and layers whose forward someone
        # else already replaced (accelerate's offloading hooks) keep their own.
        self.linears = [m for m in model.modules() if type(m) is torch.nn.Linear and "forward" not in vars(m)]
        self.packs = [_Packed() for _ in self.linears]
        self._forwards = [_packed_forward(m, p) for m, p in zip(self.linears, self.packs, strict=True)]

    @classmethod
    def for_model(cls, model: torch.nn.Module, enabled: bool | None = None) -> PackedLinears | None:
        """``enabled=None`` (auto): pack when supported and the linear weights fit ``AUTO_MAX_BYTES``."""
        if enabled is False or not packing_supported(model):
            if enabled:
                logger.warning("weight packing needs float32 weights on a CPU and torch with oneDNN; not packing")
            return None
        packed = cls(model)
        size = sum(m.weight.numel() * m.weight.element_size() for m in packed.linears)
        if enabled is None and size > AUTO_MAX_BYTES:
            logger.info("not packing %.1f GB of linear weights (auto limit %.1f GB)", size / 2**30, AUTO_MAX_BYTES / 2**30)
            return None
        return packed if packed.linears else None

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        with self._lock:
            if self._active == 0:
                for module, forward in zip(self.linears, self._forwards, strict=True):
                    module.forward = forward
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    for module in self.linears:
                        del module.forward


_REGISTRY: weakref.WeakKeyDictionary[torch.nn.Module, PackedLinears | None] = weakref.WeakKeyDictionary()


def packed_linears(model: torch.nn.Module, enabled: bool | None = None) -> PackedLinears | None:
    """The model's packed linears (made once per model; ``None`` when packing is off or unsupported)."""
    if enabled is False:
        return None
    if _REGISTRY.get(model) is None and (model not in _REGISTRY or enabled):
        _REGISTRY[model] = PackedLinears.for_model(model, enabled)
    return _REGISTRY[model]
