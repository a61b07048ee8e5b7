"""Picklable descriptions of the models and graders an eval uses, and their builders.

An eval passes *specs*, never clients: a Ray worker (or a resumed run) rebuilds the clients from the
spec inside its own process, because a loaded model cannot be pickled. Built clients are cached per
process, so a doctor, a patient and a judge on the same local model share one copy and one batch queue.

A model is one of

* ``embedded`` or the folder of a Hugging Face checkpoint (a ``LocalChatClient``);
* any name with ``base_url`` set (an OpenAI-compatible server: vLLM, llama.cpp, OpenAI);
* ``py:package.module:factory`` — a zero-argument callable returning a ``ChatClient`` (a plug-in hook
  for clients this project does not know about; the tests use it for scripted clients).
"""

from __future__ import annotations

import importlib
import logging
import os
from typing import Literal

from pydantic import BaseModel, ConfigDict

from verifier.grader_prompts import MEDVERIFIER_BATCH, GraderPrompt, GraderPromptName, grader_prompt
from verifier.llm import ChatClient, OpenAIChatClient
from verifier.protocols import Grader

logger = logging.getLogger(__name__)

_clients: dict[str, ChatClient] = {}


class ClientSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    model: str = "embedded"
    base_url: str | None = None
    max_batch_size: int = 8

    @property
    def label(self) -> str:
        return f"{self.model}@{self.base_url}" if self.base_url else self.model

    def cache_key(self) -> str:
        return f"{self.label}#{self.max_batch_size}"


class GraderSpec(BaseModel):
    """``rule``: checks only; ``judge``: an LLM judge for every item; ``hybrid``: checks, then the judge.

    ``prompt`` names the judge's single-item prompt (verifier/grader_prompts.py): ``healthbench`` or
    ``medverifier``; None is the project's (``medverifier``) unless the eval fills in its own default
    (``HealthBenchEval`` fills in ``healthbench``). Batched grading always uses ``medverifier-batch``.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["rule", "judge", "hybrid"] = "hybrid"
    judge: ClientSpec | None = None
    batched: bool = False
    judge_cache: bool = True  # reuse parsed judge replies from $MEDVERIFIER_HOME/judge_cache.sqlite
    prompt: GraderPromptName | None = None

    @property
    def label(self) -> str:
        if self.judge is None:
            return "rule" if self.kind != "judge" else "judge:none"
        if self.batched:
            return f"{self.kind}:{self.judge.label}:batched"
        # No suffix for None: the labels (results-store keys) of runs made before prompts were named.
        return f"{self.kind}:{self.judge.label}" + (f":{self.prompt}" if self.prompt else "")

    @property
    def uses_judge(self) -> bool:
        return self.judge is not None and self.kind != "rule"

    def judge_prompt(self) -> GraderPrompt | None:
        """The prompt the judge is sent (None without a judge); loads and verifies HealthBench's."""
        if not self.uses_judge:
            return None
        return MEDVERIFIER_BATCH if self.batched else grader_prompt(self.prompt or "medverifier")


def register_client(spec: ClientSpec, client: ChatClient) -> None:
    """Use an already built client for ``spec`` in this process (e.g. a model a test already loaded)."""
    _clients[spec.cache_key()] = client


def build_chat_client(spec: ClientSpec) -> ChatClient:
    key = spec.cache_key()
    if key in _clients:
        return _clients[key]
    if spec.model.startswith("py:"):
        client = _import_factory(spec.model)()
    elif spec.base_url:
        api_key = os.environ.get("OPENAI_API_KEY") or os.environ.get("MEDVERIFIER_API_KEY")
        client = OpenAIChatClient(spec.base_url, spec.model, api_key=api_key)
    else:
        from policy.local import LocalChatClient

        client = LocalChatClient.from_spec(spec.model, max_batch_size=spec.max_batch_size)
    _clients[key] = client
    return client


def build_grader(spec: GraderSpec) -> Grader:
    from verifier.graders import HybridGrader, JudgeCache, JudgeGrader, RuleGrader

    client = build_chat_client(spec.judge) if spec.judge is not None else None
    if spec.kind == "rule":
        return RuleGrader()
    if client is None:
        if spec.kind == "judge":
            raise ValueError("grader 'judge' needs a judge model (--judge)")
        return HybridGrader(judge=None)
    judge = JudgeGrader(client, prompt=spec.prompt or "medverifier", batched=spec.batched,
                        cache=JudgeCache() if spec.judge_cache else None)
    return judge if spec.kind == "judge" else HybridGrader(judge=judge)


def _import_factory(model: str):  # noqa: ANN202 - returns whatever the plug-in factory is
    target = model.removeprefix("py:")
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ValueError(f"model {model!r}: a plug-in client is written py:package.module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"model {model!r}: cannot import {module_name!r}: {exc}") from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ValueError(f"model {model!r}: {module_name}.{attr} is not a callable factory")
    return factory
