"""Where a local model runs and in what precision: ``device`` and ``dtype`` as the user gives them.

``device``: ``"cpu"``, ``"cuda"`` (or ``"cuda:N"``), or ``"auto"`` (CUDA when torch sees a GPU, else
the CPU). ``dtype``: ``"float32"``, ``"bfloat16"``, ``"float16"`` (or the ``torch.dtype``), or
``"auto"`` (float32 on the CPU; bfloat16 on a GPU that supports it, else float16). ``None`` means the
caller's default: CPU float32 for ``load_model``, "where the model already is" for a client.

Both are checked before any weight moves, with errors that say what to do: CUDA asked for where torch
sees none, an unknown dtype, a dtype the device cannot run the model's operations in.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import torch

T = TypeVar("T")

DEVICES = ("cpu", "cuda", "cuda:N", "auto")
DTYPES = ("float32", "bfloat16", "float16", "auto")
_DEVICE_NAME = re.compile(r"cpu|auto|cuda(:\d+)?")


class DeviceError(ValueError):
    """A device or dtype that cannot be used here; the message says why and what to use."""


def check_device(value: str | None) -> str | None:
    """``value`` when it names a device the engine knows (None too), else a ``DeviceError``; no torch needed.

    Only the name is checked here (settings, specs and CLI options are checked before anything loads);
    ``resolve_device`` checks that torch can use it.
    """
    if value is not None and not _DEVICE_NAME.fullmatch(value):
        raise DeviceError(f"device {value!r}: use one of {', '.join(DEVICES)}")
    return value


def check_dtype(value: str | None) -> str | None:
    """``value`` when it names a dtype the engine knows (None too), else a ``DeviceError``; no torch needed."""
    if value is not None and value not in DTYPES:
        raise DeviceError(f"dtype {value!r}: use one of {', '.join(DTYPES)}")
    return value


def resolve_device(device: str | torch.device | None, *, default: str = "cpu") -> torch.device:
    """The ``torch.device`` for ``device`` (``None``: ``default``); CUDA must be there."""
    import torch

    name = str(default if device is None else device)
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        resolved = torch.device(name)
    except (RuntimeError, ValueError) as exc:
        raise DeviceError(f"unknown device {name!r}: use one of {', '.join(DEVICES)}") from exc
    if resolved.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError(
                f"torch sees no CUDA device: torch.cuda.is_available() is False for device {name!r} "
                f"(torch {torch.__version__}: a CPU build, or no GPU visible); use device='cpu' or 'auto'"
            )
        if resolved.index is not None and resolved.index >= torch.cuda.device_count():
            raise DeviceError(f"device {name!r}: torch sees {torch.cuda.device_count()} CUDA device(s)")
    elif resolved.type != "cpu":
        raise DeviceError(f"device {name!r}: the local engine runs on cpu or cuda")
    return resolved


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device, *, default: str = "float32") -> torch.dtype:
    """The ``torch.dtype`` for ``dtype`` on ``device`` (``None``: ``default``), checked to run there."""
    import torch

    if isinstance(dtype, torch.dtype):
        resolved = dtype
    else:
        name = default if dtype is None else str(dtype).removeprefix("torch.")
        if name == "auto":
            if device.type == "cpu":
                name = "float32"
            else:
                name = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
        if name not in DTYPES:
            raise DeviceError(f"unknown dtype {dtype!r}: use one of {', '.join(DTYPES)}")
        resolved = getattr(torch, name)
    if resolved not in (torch.float32, torch.bfloat16, torch.float16):
        raise DeviceError(f"dtype {resolved}: the local engine runs float32, bfloat16 or float16")
    # float32 runs every operation a model uses on every device; the other two are probed.
    problem = None if resolved is torch.float32 else on_own_thread(_unsupported, str(device), resolved)
    if problem:
        raise DeviceError(
            f"dtype {str(resolved).removeprefix('torch.')} is not supported on {device} by torch "
            f"{torch.__version__} for the operations a model uses ({problem}); use float32 or bfloat16"
        )
    return resolved


def on_own_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a thread of its own that ends when it returns (its exception re-raised here).

    Construction probes run torch operations; a thread that has run them keeps its OpenMP team while
    it lives, and with a second live team every pass of the engine's decoding thread is slower (a
    quarter to a half on 2 cores, measured: a 4-row decoding step of the embedded model took 160-176 ms
    instead of 99-110 ms after one forward on the main thread). A thread that has ended leaves none.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=run, name="torch-probe")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


@functools.cache
def _unsupported(device: str, dtype: torch.dtype) -> str | None:
    """What fails when the operations of a decoder layer run in ``dtype`` on ``device`` (None: all run)."""
    import torch

    try:
        x = torch.randn(2, 4, 8, device=device).to(dtype)
        linear = torch.nn.Linear(8, 8, device=device, dtype=dtype)
        with torch.inference_mode():
            h = torch.nn.functional.silu(linear(x)) * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
            q = h.view(2, 4, 2, 4).transpose(1, 2)
            mask = torch.ones(4, 4, dtype=torch.bool, device=device).tril()
            out = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)
            torch.log_softmax(out.float(), dim=-1).sum().item()
    except (RuntimeError, NotImplementedError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
