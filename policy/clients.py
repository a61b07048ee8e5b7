"""The one ``ChatClient`` builder: picklable ``ClientSpec`` in, client out, cached per process.

Everyone builds clients here — the CLI, the FastAPI app, the evaluations (and each Ray actor, from the
specs in its run's config), the trainer and the benchmarks — because a spec can cross a process
boundary or be stored in a run's ``config.json`` and a loaded model cannot. A model is one of

* ``embedded`` or the folder of a Hugging Face checkpoint: a ``policy.engine.client.LocalChatClient`` on
  ``device`` in ``dtype`` (None: the engine's default, CPU float32);
* any name with ``base_url`` set: an ``OpenAIChatClient`` (vLLM, llama.cpp, OpenAI), with the key from
  ``api_key``, the environment variable ``api_key_env``, or else ``OPENAI_API_KEY`` /
  ``MEDVERIFIER_API_KEY``;
* ``py:package.module:factory``: a zero-argument callable returning a ``ChatClient`` (a plug-in hook for
  clients this project does not know about; the tests use it for scripted clients).

Built clients are cached per process by spec, so a doctor, a patient and a judge on the same local
model share one copy of the weights and one batch queue.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from policy.engine.device import check_device, check_dtype
from verifier.llm import ChatClient, OpenAIChatClient

logger = logging.getLogger(__name__)

DEFAULT_API_KEY_ENVS = ("OPENAI_API_KEY", "MEDVERIFIER_API_KEY")
_clients: dict[str, ChatClient] = {}


class ClientSpec(BaseModel):
    """Which model a client talks to, and how; ``device``/``dtype``/``max_batch_size`` are for local models."""

    model_config = ConfigDict(frozen=True)

    model: str = "embedded"
    base_url: str | None = None
    api_key_env: str | None = Field(
        None, description="The environment variable holding the key for base_url (None: OPENAI_API_KEY, then "
        "MEDVERIFIER_API_KEY). Named, not copied, so that stored run configs hold no secret.")
    # A key given in code or settings; never serialized (a Ray actor or a resumed run reads api_key_env).
    api_key: SecretStr | None = Field(None, exclude=True, repr=False)
    device: str | None = Field(None, description="cpu, cuda, cuda:N or auto (None: the CPU).")
    dtype: str | None = Field(None, description="float32, bfloat16, float16 or auto (None: float32).")
    max_batch_size: int = Field(8, ge=1)
    timeout_s: float = Field(120.0, gt=0, description="Per-call limit of a served model.")

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str | None) -> str | None:
        return check_device(value)

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str | None) -> str | None:
        return check_dtype(value)

    @property
    def kind(self) -> Literal["local", "remote", "plugin"]:
        if self.model.startswith("py:"):
            return "plugin"
        return "remote" if self.base_url else "local"

    @property
    def label(self) -> str:
        """The model's name in results and reports (results-store keys: unchanged by device and dtype)."""
        return f"{self.model}@{self.base_url}" if self.base_url else self.model

    def cache_key(self) -> str:
        """What makes two specs one client: for a local model the weights, where and how they run and
        the batch queue; for a served one the server, the key and the timeout."""
        if self.kind == "plugin":
            return self.model
        if self.kind == "local":
            return f"{self.model}#{self.max_batch_size}#{self.device or 'cpu'}#{self.dtype or 'float32'}"
        secret = self.api_key.get_secret_value() if self.api_key is not None else f"${self.api_key_env or ''}"
        return f"{self.label}#{hashlib.sha256(secret.encode()).hexdigest()[:12]}#{self.timeout_s:g}"

    def resolved_api_key(self) -> str | None:
        """The key for ``base_url``: ``api_key``, else ``$api_key_env`` (which must be set), else the defaults."""
        if self.api_key is not None:
            return self.api_key.get_secret_value()
        if self.api_key_env:
            if self.api_key_env not in os.environ:
                raise ValueError(f"model {self.label}: the environment variable {self.api_key_env} (its API key) "
                                 "is not set")
            return os.environ[self.api_key_env]
        return next((os.environ[name] for name in DEFAULT_API_KEY_ENVS if os.environ.get(name)), None)


def build_client(spec: ClientSpec) -> ChatClient:
    """The client for ``spec``: the one this process already built for an equal spec, or a new one."""
    key = spec.cache_key()
    if key not in _clients:
        _clients[key] = _new_client(spec)
    return _clients[key]


async def release_clients() -> int:
    """Close and forget every client this process built (a local model's weights, packed copy and prefix
    cache go with it): for a long process that evaluates one model after another. The number released."""
    released = list(_clients.values())
    _clients.clear()
    for client in released:
        close = getattr(client, "aclose", None)
        if close is not None:
            await close()
    return len(released)


def register_client(spec: ClientSpec, client: ChatClient) -> None:
    """Use an already built client for ``spec`` in this process (e.g. a model a test already loaded)."""
    _clients[spec.cache_key()] = client


def _new_client(spec: ClientSpec) -> ChatClient:
    if spec.kind == "plugin":
        return _import_factory(spec.model)()
    if spec.kind == "remote":
        assert spec.base_url is not None
        return OpenAIChatClient(spec.base_url, spec.model, api_key=spec.resolved_api_key(), timeout_s=spec.timeout_s)
    from policy.engine.client import LocalChatClient

    # Passed only when set, so the engine's own default (CPU float32) stays the default.
    placement = {name: value for name, value in (("device", spec.device), ("dtype", spec.dtype)) if value is not None}
    logger.info("loading %s (max batch %d%s)", spec.model, spec.max_batch_size,
                "".join(f", {k} {v}" for k, v in placement.items()))
    return LocalChatClient.from_spec(spec.model, max_batch_size=spec.max_batch_size, **placement)  # type: ignore[arg-type]


def _import_factory(model: str) -> Callable[[], ChatClient]:
    target = model.removeprefix("py:")
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ValueError(f"model {model!r}: a plug-in client is written py:package.module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"model {model!r}: cannot import {module_name!r}: {exc}") from exc
    factory = vars(module).get(attr)
    if not callable(factory):
        raise ValueError(f"model {model!r}: {module_name}.{attr} is not a callable factory")
    return factory
