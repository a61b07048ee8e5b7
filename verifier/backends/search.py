"""The search verifier: final-answer F1 / exact match against gold answers, with a tool budget.

Trajectory format (``assistant`` is the policy):

* a tool call is an assistant line ``SEARCH: <query>`` (Search-R1's ``<search>query</search>`` is
  accepted too); several lines in one turn are several calls. The results come back in the next
  ``tool`` turn (see ``verifier.search_index.format_hits``).
* the final answer is the last ``ANSWER: <text>`` line (or ``<answer>text</answer>``) of the
  trajectory; ``FINAL ANSWER:`` works as well.
* a void turn is an assistant turn with neither a call nor an answer.

Reward = the best F1 (or exact match, ``options.reward``) over the gold answer and its aliases, after
SQuAD normalisation (lower case, no punctuation, no articles a/an/the, single spaces). More tool calls
than ``options.tool_budget`` score 0 when ``options.enforce_budget`` (the default); the call count is
always reported, as is whether a gold answer appeared in any tool result (``retrieval_hit``).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from verifier.backends import DATA_DIR, load_records
from verifier.types import Message, SearchOptions, SearchTask, SearchVerifyRequest, VerifyResult

_CALL_RE = re.compile(r"^\s*SEARCH\s*:\s*(.+?)\s*$|<search>(.*?)</search>", re.IGNORECASE | re.MULTILINE | re.DOTALL)
_ANSWER_RE = re.compile(
    r"^\s*(?:FINAL\s+)?ANSWER\s*:\s*(.+?)\s*$|<answer>(.*?)</answer>", re.IGNORECASE | re.MULTILINE | re.DOTALL
)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


# --------------------------------------------------------------------------- pure scoring (SQuAD)
def normalize_answer(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def f1_score(prediction: str, gold: str) -> float:
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def best_scores(prediction: str, golds: list[str]) -> tuple[float, float]:
    """(best F1, best exact match) over the gold answer and its aliases."""
    return max(f1_score(prediction, g) for g in golds), max(exact_match(prediction, g) for g in golds)


# --------------------------------------------------------------------------- trajectory parsing
def tool_calls(trajectory: list[Message]) -> list[str]:
    calls = []
    for message in trajectory:
        if message.role == "assistant":
            calls.extend((a or b).strip() for a, b in _CALL_RE.findall(message.content) if (a or b).strip())
    return calls


def final_answer(trajectory: list[Message]) -> str | None:
    for message in reversed(trajectory):
        if message.role == "assistant":
            found = [(a or b).strip() for a, b in _ANSWER_RE.findall(message.content)]
            if found:
                return found[-1]
    return None


def count_void_turns(trajectory: list[Message]) -> int:
    return sum(
        1 for m in trajectory
        if m.role == "assistant" and not _CALL_RE.search(m.content) and not _ANSWER_RE.search(m.content)
    )


class SearchBackend:
    domain = "search"

    async def verify(self, request: object) -> VerifyResult:
        if not isinstance(request, SearchVerifyRequest):
            raise TypeError(f"search backend got {type(request).__name__}, expected SearchVerifyRequest")
        task, options = request.task, request.options
        calls = tool_calls(request.trajectory)
        answer = final_answer(request.trajectory)
        f1, em = best_scores(answer, task.answers) if answer is not None else (0.0, 0.0)
        within = len(calls) <= options.tool_budget
        tool_text = normalize_answer(" ".join(m.content for m in request.trajectory if m.role == "tool"))
        retrieval_hit = any(normalize_answer(g) and normalize_answer(g) in tool_text for g in task.answers)
        base = f1 if options.reward == "f1" else em
        reward = base if within or not options.enforce_budget else 0.0
        return VerifyResult(
            domain="search",
            reward=reward,
            scores={"f1": f1, "exact_match": em, "within_budget": float(within)},
            meta={
                "task_id": task.id,
                "answer": answer,
                "tool_calls": len(calls),
                "tool_budget": options.tool_budget,
                "over_budget": not within,
                "retrieval_hit": retrieval_hit,
                "void_turns": count_void_turns(request.trajectory),
                "error": None if answer is not None else "no ANSWER: line in the trajectory",
            },
        )


class SearchTaskRecord(BaseModel):
    """One line of ``data/search/tasks.jsonl``: a task with a known correct and a known wrong trajectory."""

    task: SearchTask
    trajectory: list[Message] = Field(min_length=1)
    wrong_trajectory: list[Message] = Field(min_length=1)
    options: SearchOptions = Field(default_factory=SearchOptions)

    def request(self, *, wrong: bool = False) -> SearchVerifyRequest:
        return SearchVerifyRequest(task=self.task, options=self.options,
                                   trajectory=self.wrong_trajectory if wrong else self.trajectory)


def load_search_tasks(path: str | Path | None = None) -> list[SearchTaskRecord]:
    return load_records(path or DATA_DIR / "search" / "tasks.jsonl", SearchTaskRecord)
