"""The local generation engine: continuous batching, prefix caching and ragged passes on one model.

Modules, in the order a request meets them:

- ``client``: ``LocalChatClient``, the ``ChatClient`` (and ``StreamingChatClient``) over a local model;
- ``api``: ``StreamingChatClient`` (exact streamed completions) and ``ClientClosedError``;
- ``device``: ``device`` / ``dtype`` as the user gives them, checked;
- ``request``: a request's sampling settings, result and output so far;
- ``scheduler``: the inbox, and the typed plan of each turn (``Admission``, ``StepPlan``);
- ``engine``: the decoding thread that carries the plans out;
- ``passes``: the model's forward passes, and what the engine learnt about the model (``ModelTraits``);
- ``kv``: the running batch and its roomy KV cache; ``prefix``: the prefix cache;
- ``sampling``: batched, per-row seeded sampling; ``text``: stop strings, detokenising, streaming;
- ``packed``: oneDNN-prepacked linear weights; ``ragged``: the ragged attention;
- ``stats``: ``EngineStats``.

Names are imported lazily (``from policy.engine import LocalChatClient``), so ``policy.model`` can use
``policy.engine.device`` without loading the engine.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "LocalChatClient": "policy.engine.client",
    "ClientClosedError": "policy.engine.api",
    "StreamingChatClient": "policy.engine.api",
    "EngineStats": "policy.engine.stats",
    "DeviceError": "policy.engine.device",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'policy.engine' has no attribute {name!r}")
