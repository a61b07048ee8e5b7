"""The LLM-judge grader: HealthBench's grading rules, one item per call or many items per call.

A judge that does not give a usable verdict after the bounded retries leaves the item *unscored*
(``met=None``: excluded from both sums, counted and logged), never "not met" — a protocol deviation
is not evidence about the response. Replies are parsed tolerantly (fences, prose around the JSON,
single quotes, trailing commas, Python literals, truncation).
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
import re
from dataclasses import dataclass

from pydantic import BaseModel

from verifier.grader_prompts import (
    BATCH_GRADER_TEMPLATE,
    GRADER_PROMPT_VERSION,
    GRADER_TEMPLATE,
    MEDVERIFIER_BATCH,
    GraderPrompt,
    format_conversation,
    format_item,
    format_items,
    grader_prompt,
)
from verifier.judge_cache import JudgeCache
from verifier.llm import ChatClient
from verifier.types import Case, CriterionResult, Message, RubricItem

logger = logging.getLogger(__name__)

__all__ = [
    "BATCH_GRADER_TEMPLATE",
    "GRADER_PROMPT_VERSION",
    "GRADER_TEMPLATE",
    "JudgeGrader",
    "JudgeStats",
    "Verdict",
    "format_conversation",
    "format_item",
    "json_candidates",
    "parse_verdict",
    "parse_verdicts",
]

# --------------------------------------------------------------------------- tolerant parsing
class Verdict(BaseModel):
    criteria_met: bool
    explanation: str = ""


_FENCE_RE = re.compile(r"```[a-zA-Z]*\s*(.*?)(?:```|$)", re.DOTALL)
_MET_RE = re.compile(r"""criteria[_\s]?met["']?\s*[:=]\s*["']?(true|false|yes|no)\b""", re.IGNORECASE)
_EXPLANATION_RE = re.compile(r"""explanation["']?\s*[:=]\s*["']((?:[^"'\\]|\\.)*)""", re.IGNORECASE | re.DOTALL)
_OBJECT_RE = re.compile(r"\{[^{}]*\}", re.DOTALL)
_TRUTHY = {"true": True, "yes": True, "false": False, "no": False}


def _close_truncated(text: str) -> str:
    """Close an unterminated string and any open brackets (a reply cut off by max_tokens)."""
    stack: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack:
            stack.pop()
    closed = text + ('"' if in_string else "")
    closed = re.sub(r"[,:]\s*$", "", closed.rstrip())
    return closed + "".join(reversed(stack))


def _loads(text: str) -> object | None:
    text = text.strip()
    if not text:
        return None
    attempts = [text]
    repaired = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", text)))
    if '"' not in repaired:
        repaired = repaired.replace("'", '"')
    repaired = re.sub(r",\s*([}\]])", r"\1", repaired)
    attempts += [repaired, re.sub(r",\s*([}\]])", r"\1", _close_truncated(repaired))]
    for attempt in attempts:
        try:
            return json.loads(attempt)
        except (json.JSONDecodeError, ValueError):
            pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


def json_candidates(text: str) -> list[object]:
    """Parsed JSON values found in ``text``: fenced blocks first, then the outermost bracketed span."""
    found: list[object] = []
    sources = [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]
    for source in sources:
        for opener in "[{":
            start = source.find(opener)
            if start < 0:
                continue
            closer = "]" if opener == "[" else "}"
            end = source.rfind(closer)
            span = source[start : end + 1] if end > start else source[start:]
            value = _loads(span)
            if value is not None:
                found.append(value)
    return found


def _coerce(obj: object) -> Verdict | None:
    if not isinstance(obj, dict):
        return None
    met = obj.get("criteria_met", obj.get("met"))
    if isinstance(met, str):
        met = _TRUTHY.get(met.strip().lower())
    if not isinstance(met, bool):
        return None
    explanation = obj.get("explanation", "")
    return Verdict(criteria_met=met, explanation=explanation if isinstance(explanation, str) else str(explanation))


def parse_verdict(text: str) -> Verdict | None:
    """One ``{"explanation", "criteria_met"}`` verdict, or None when the reply has no usable one."""
    for value in json_candidates(text):
        items = value if isinstance(value, list) else [value]
        for item in items:
            verdict = _coerce(item)
            if verdict is not None:
                return verdict
    match = _MET_RE.search(text)
    if match is None:
        return None
    explanation = _EXPLANATION_RE.search(text)
    return Verdict(
        criteria_met=_TRUTHY[match.group(1).lower()],
        explanation=explanation.group(1) if explanation else "",
    )


def _item_id(obj: dict, default: int) -> int:
    for key in ("id", "item", "index", "number"):
        value = obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().isdigit():
            return int(value.strip())
    return default


def parse_verdicts(text: str, n: int) -> list[Verdict | None]:
    """Verdicts for items 1..n from a batched reply; items without a usable verdict are None."""
    out: list[Verdict | None] = [None] * n

    def place(objects: list[object]) -> None:
        for position, obj in enumerate(objects, start=1):
            if not isinstance(obj, dict):
                continue
            verdict = _coerce(obj)
            index = _item_id(obj, position) - 1
            if verdict is not None and 0 <= index < n and out[index] is None:
                out[index] = verdict

    for value in json_candidates(text):
        if isinstance(value, dict):
            nested = [v for v in value.values() if isinstance(v, list)]
            if nested:
                value = nested[0]
            elif all(str(k).strip().isdigit() and isinstance(v, dict) for k, v in value.items()) and value:
                value = [dict(v, id=int(k)) for k, v in value.items()]
            else:
                value = [value]
        if isinstance(value, list):
            place(value)
        if all(v is not None for v in out):
            return out
    # Last resort: every complete flat object in the text (what survives of a truncated list).
    place([_loads(m.group(0)) for m in _OBJECT_RE.finditer(text)])
    return out


@dataclass
class JudgeStats:
    """Counters for benchmarks, logs and tests."""

    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_chars: int = 0
    cache_hits: int = 0
    items: int = 0
    unscored: int = 0


class JudgeGrader:
    """Grades items with an LLM judge through any ``ChatClient``.

    ``prompt`` is the single-item prompt, a ``GraderPrompt`` or a name (verifier/grader_prompts.py):
    ``medverifier`` (the default: the hardened prompt of /v1/verify and training) or ``healthbench``
    (HealthBench's own, for comparable numbers). Batched grading always uses ``medverifier-batch``.
    """

    def __init__(
        self,
        client: ChatClient,
        *,
        prompt: GraderPrompt | str = "medverifier",
        batched: bool = False,
        max_retries: int = 2,
        cache: JudgeCache | None = None,
        max_tokens: int = 256,
        max_concurrency: int = 8,
        batch_size: int = 16,
        max_batch_tokens: int = 2048,
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.client = client
        # Loaded now (failing fast when HealthBench's template is unavailable) unless batched mode never uses it.
        self._prompt = grader_prompt(prompt) if isinstance(prompt, str) and not batched else prompt
        self.batched = batched
        self.max_retries = max_retries
        self.cache = cache
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.max_concurrency = max_concurrency
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self.stats = JudgeStats()

    @property
    def name(self) -> str:
        return f"judge:{self.client.model}"

    @property
    def prompt(self) -> GraderPrompt:
        """The single-item prompt (a named one is loaded, and for HealthBench's verified, on first use)."""
        if isinstance(self._prompt, str):
            self._prompt = grader_prompt(self._prompt)
        return self._prompt

    @property
    def active_prompt(self) -> GraderPrompt:
        """The prompt this grader's mode actually sends: what provenance records."""
        return MEDVERIFIER_BATCH if self.batched else self.prompt

    def with_batched(self, batched: bool) -> JudgeGrader:
        """The same judge (client, cache, semaphore, counters) in the other grading mode."""
        if batched == self.batched:
            return self
        twin = JudgeGrader.__new__(JudgeGrader)
        twin.__dict__.update(self.__dict__)
        twin.batched = batched
        return twin

    async def grade(
        self, conversation: list[Message], items: list[RubricItem], *, case: Case | None = None
    ) -> list[CriterionResult]:
        if not items:
            return []
        text = format_conversation(conversation)
        if self.batched:
            chunks = [items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]
            parts = await asyncio.gather(*(self._grade_batch(text, chunk) for chunk in chunks))
            results = [r for part in parts for r in part]
        else:
            results = list(await asyncio.gather(*(self._grade_one(text, item) for item in items)))
        unscored = sum(1 for r in results if r.met is None)
        self.stats.items += len(results)
        self.stats.unscored += unscored
        if unscored:
            logger.warning("%s: %d of %d items unscored (no usable verdict)", self.name, unscored, len(results))
        return results

    # ------------------------------------------------------------------ internals
    async def _call(self, template: GraderPrompt, prompt: str, attempt: int, max_tokens: int) -> tuple[str, bool]:
        """The judge's reply to ``prompt`` (rendered from ``template``) and whether it came from the cache."""
        messages = template.messages(prompt)
        if attempt == 0 and self.cache is not None:
            cached = self.cache.get(self.client.model, prompt, template=self._cache_template(template))
            if cached is not None:
                self.stats.cache_hits += 1
                return cached, True
        async with self._semaphore:
            self.stats.calls += 1
            self.stats.prompt_chars += len(prompt)
            try:
                completion = await self.client.complete(
                    messages,
                    max_tokens=max_tokens,
                    # A retry at temperature 0 would repeat the same unusable reply.
                    temperature=0.0 if attempt == 0 else 0.7,
                    seed=attempt,
                )
            except Exception:
                self.stats.failed_calls += 1
                raise
        self.stats.prompt_tokens += completion.usage.prompt_tokens
        self.stats.completion_tokens += completion.usage.completion_tokens
        return completion.text, False

    @staticmethod
    def _cache_template(template: GraderPrompt) -> str:
        return f"{template.identity}:{template.system or ''}"

    def _result(self, item: RubricItem, verdict: Verdict | None, note: str) -> CriterionResult:
        return CriterionResult(
            criterion=item.criterion,
            points=item.points,
            tags=list(item.tags),
            met=verdict.criteria_met if verdict else None,
            explanation=verdict.explanation if verdict else note,
            grader=self.name,
        )

    async def _grade_one(self, conversation_text: str, item: RubricItem) -> CriterionResult:
        template = self.prompt
        prompt = template.render(conversation_text, format_item(item))
        problem = "no reply"
        for attempt in range(self.max_retries + 1):
            try:
                reply, cached = await self._call(template, prompt, attempt, self.max_tokens)
            except Exception as exc:  # an unreachable or failing judge leaves the item unscored
                problem = f"judge call failed: {exc}"
                logger.info("%s: attempt %d: %s", self.name, attempt + 1, problem)
                continue
            verdict = parse_verdict(reply)
            if verdict is not None:
                if self.cache is not None and not cached:
                    self.cache.put(self.client.model, prompt, reply, template=self._cache_template(template))
                return self._result(item, verdict, "")
            problem = f"unparseable judge reply: {reply[:120]!r}"
            logger.info("%s: attempt %d: %s", self.name, attempt + 1, problem)
        return self._result(item, None, f"unscored after {self.max_retries + 1} attempts ({problem})")

    async def _grade_batch(self, conversation_text: str, items: list[RubricItem]) -> list[CriterionResult]:
        verdicts: list[Verdict | None] = [None] * len(items)
        pending = list(range(len(items)))
        problem = "no reply"
        for attempt in range(self.max_retries + 1):
            batch = [items[i] for i in pending]
            prompt = MEDVERIFIER_BATCH.render(conversation_text, format_items(batch))
            max_tokens = min(self.max_tokens * len(batch), self.max_batch_tokens)
            try:
                reply, cached = await self._call(MEDVERIFIER_BATCH, prompt, attempt, max_tokens)
            except Exception as exc:
                problem = f"judge call failed: {exc}"
                logger.info("%s: batch attempt %d: %s", self.name, attempt + 1, problem)
                continue
            parsed = parse_verdicts(reply, len(batch))
            for index, verdict in zip(pending, parsed, strict=True):
                verdicts[index] = verdict
            still = [i for i, v in zip(pending, parsed, strict=True) if v is None]
            if not still and self.cache is not None and not cached:
                self.cache.put(self.client.model, prompt, reply, template=self._cache_template(MEDVERIFIER_BATCH))
            if not still:
                break
            problem = f"no verdict for {len(still)} of {len(batch)} items in {reply[:120]!r}"
            logger.info("%s: batch attempt %d: %s", self.name, attempt + 1, problem)
            pending = still
        note = f"unscored after {self.max_retries + 1} attempts ({problem})"
        return [self._result(item, verdict, note) for item, verdict in zip(items, verdicts, strict=True)]
