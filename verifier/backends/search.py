"""The search verifier: one short final answer scored against gold answers, with a tool budget.

Trajectory format (``assistant`` is the policy):

* a tool call is an assistant line ``SEARCH: <query>`` (Search-R1's ``<search>query</search>`` is
  accepted too); several lines in one turn are several calls. The results come back in the next
  ``tool`` turn (see ``verifier.search_index.format_hits``).
* the final answer is an ``ANSWER: <text>`` line (``FINAL ANSWER:`` too) or ``<answer>text</answer>``.
* a void turn is an assistant turn with neither a call nor an answer.

The reward is a reward for RL, so the answer is scored by rules a policy cannot beat by hedging
(each rule is stated with the exploit it closes; ``evaluation/audit_search.py`` runs them all):

1. **One final answer.** Every answer the policy gives, in any assistant turn and in either syntax,
   must be the same (after normalisation); two different answers score 0 whichever comes last.
2. **One candidate.** An answer that splits on a list separator (``,`` ``;`` ``/`` ``|``, a spaced
   `` & `` or `` + ``, a line break, or the words ``or`` ``and`` ``nor`` ``vs``/``versus``; a comma
   or slash between two digits, as in 20,000 or 140/90, does not split) scores 0 -- unless its words are exactly a gold alias's, as for
   "Geneva, Switzerland". Listing candidates, or every alias, earns nothing.
3. **Question words are neither credited nor counted.** Words of the question are dropped from the
   answer and from each gold alias before comparing (a gold alias made only of question words is
   kept whole). Echoing the question's "chromosome" for "chromosome 21" earns nothing; restating
   the question around a correct answer costs nothing.
4. **No partial credit for saying more than the gold.** Against a gold alias, an answer earns F1
   credit only if it has at most as many words as that alias; a longer answer (a passage, a
   sentence, a bag of candidates) earns only what an exact match would earn, which is 0.
5. **Precision-weighted F1.** Within that length the credit is ``precision x F1`` rather than
   SQuAD's F1. With one right word in ``n``, SQuAD's F1 gives ``2/(n+m)`` against an ``m``-word
   gold, which beats committing to one of the ``n`` words at random (``(1/n) x 2/(m+1)``) for
   every ``n > 1``; ``precision x F1 = 2/(n(n+m))`` never does. An answer with no wrong word
   (precision 1) keeps its F1, so a correct but shorter answer ("Fleming") is not penalised.

``scores["f1"]`` is that credit, best over the gold answer and its aliases; ``scores["exact_match"]``
is SQuAD's exact match under rules 1-2; ``scores["squad_f1"]`` is plain SQuAD F1 of the final answer
(lower case, no punctuation, no articles a/an/the, single spaces), kept for comparison with
published numbers -- it is never the reward. Reward = ``f1`` or ``exact_match`` (``options.reward``);
more tool calls than ``options.tool_budget`` score 0 when ``options.enforce_budget`` (the default).
The call count is always reported, as is whether a gold answer appeared in any tool result
(``retrieval_hit``).
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
_TAG_RE = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
# an answer on the line after a bare "ANSWER:" still counts, as before
_LINE_RE = re.compile(r"^[ \t]*(?:FINAL[ \t]+)?ANSWER[ \t]*:\s*([^\n]*?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
_SEPARATOR_RE = re.compile(
    r"[;|\n]|\s[&+]\s|(?<!\d)[,/]|[,/](?!\d)|\b(?:or|and|nor|vs|versus)\b", re.IGNORECASE
)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


# --------------------------------------------------------------------------- pure scoring (SQuAD)
def normalize_answer(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def _token_f1(pred: list[str], ref: list[str]) -> tuple[float, float]:
    """(precision, F1) of two token lists, SQuAD's bag-of-tokens overlap."""
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0, 0.0
    precision, recall = common / len(pred), common / len(ref)
    return precision, 2 * precision * recall / (precision + recall)


def f1_score(prediction: str, gold: str) -> float:
    """SQuAD's F1 (reported as ``squad_f1``; the reward uses :func:`answer_credit`)."""
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    return _token_f1(pred, ref)[1]


def best_scores(prediction: str, golds: list[str]) -> tuple[float, float]:
    """(best SQuAD F1, best exact match) over the gold answer and its aliases."""
    return max(f1_score(prediction, g) for g in golds), max(exact_match(prediction, g) for g in golds)


def candidates(answer: str) -> list[str]:
    """The answer split on list separators (rule 2); one item for an answer naming one thing."""
    return [part for part in (p.strip() for p in _SEPARATOR_RE.split(answer)) if normalize_answer(part)]


def _same_words(a: str, b: str) -> bool:
    return sorted(normalize_answer(a).split()) == sorted(normalize_answer(b).split())


def answer_credit(prediction: str, gold: str, question: str = "") -> float:
    """The credit for one answer against one gold alias: rules 2-5 of the module docstring."""
    if _same_words(prediction, gold):
        return 1.0
    if len(candidates(prediction)) > 1:
        return 0.0
    asked = set(normalize_answer(question).split())
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if any(t not in asked for t in ref):  # a gold made only of question words is compared whole
        pred, ref = [t for t in pred if t not in asked], [t for t in ref if t not in asked]
    if not pred or not ref or len(pred) > len(ref):
        return 0.0
    precision, f1 = _token_f1(pred, ref)
    return precision * f1


def score_answer(answer: str, golds: list[str], question: str = "") -> tuple[float, float]:
    """(credit, exact match) of one final answer, best over the gold answer and its aliases."""
    credit = max(answer_credit(answer, g, question) for g in golds)
    single = len(candidates(answer)) <= 1 or any(_same_words(answer, g) for g in golds)
    em = max(exact_match(answer, g) for g in golds) if single else 0.0
    return credit, em


# --------------------------------------------------------------------------- trajectory parsing
def tool_calls(trajectory: list[Message]) -> list[str]:
    calls = []
    for message in trajectory:
        if message.role == "assistant":
            calls.extend((a or b).strip() for a, b in _CALL_RE.findall(message.content) if (a or b).strip())
    return calls


def _answers_in(text: str) -> list[str]:
    """Every answer in one turn, in order: ``<answer>`` tags, and ``ANSWER:`` lines of the text with
    the tags blanked out (so a line cannot swallow a tag, nor a tag hide inside a line)."""
    found = [(m.start(), m.group(1)) for m in _TAG_RE.finditer(text)]
    blanked = _TAG_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    found += [(m.start(), m.group(1)) for m in _LINE_RE.finditer(blanked)]
    return [a.strip() for _, a in sorted(found) if a.strip()]


def all_answers(trajectory: list[Message]) -> list[str]:
    """Every answer the policy gave, in every assistant turn, in order of turns."""
    return [a for m in trajectory if m.role == "assistant" for a in _answers_in(m.content)]


def final_answer(trajectory: list[Message]) -> str | None:
    """The answer of the last assistant turn that gives one (its last answer)."""
    for message in reversed(trajectory):
        if message.role == "assistant":
            found = _answers_in(message.content)
            if found:
                return found[-1]
    return None


def count_void_turns(trajectory: list[Message]) -> int:
    return sum(
        1 for m in trajectory
        if m.role == "assistant" and not _CALL_RE.search(m.content) and not _answers_in(m.content)
    )


class SearchBackend:
    domain = "search"

    async def verify(self, request: object) -> VerifyResult:
        if not isinstance(request, SearchVerifyRequest):
            raise TypeError(f"search backend got {type(request).__name__}, expected SearchVerifyRequest")
        task, options = request.task, request.options
        calls = tool_calls(request.trajectory)
        answers = all_answers(request.trajectory)
        answer = final_answer(request.trajectory)
        distinct = {normalize_answer(a) for a in answers}
        error = None
        if answer is None:
            error = "no ANSWER: line in the trajectory"
        elif len(distinct) > 1:
            error = f"{len(distinct)} different answers in the trajectory; exactly one final answer is scored"
        elif len(candidates(answer)) > 1 and not any(_same_words(answer, g) for g in task.answers):
            error = f"the answer lists {len(candidates(answer))} candidates; one answer is required"
        f1, em = (0.0, 0.0) if answer is None or len(distinct) > 1 else score_answer(answer, task.answers, task.question)
        squad_f1 = best_scores(answer, task.answers)[0] if answer is not None else 0.0
        within = len(calls) <= options.tool_budget
        tool_text = normalize_answer(" ".join(m.content for m in request.trajectory if m.role == "tool"))
        retrieval_hit = any(normalize_answer(g) and normalize_answer(g) in tool_text for g in task.answers)
        base = f1 if options.reward == "f1" else em
        reward = base if within or not options.enforce_budget else 0.0
        return VerifyResult(
            domain="search",
            reward=reward,
            scores={"f1": f1, "exact_match": em, "squad_f1": squad_f1, "within_budget": float(within)},
            meta={
                "task_id": task.id,
                "answer": answer,
                "answers_given": len(answers),
                "tool_calls": len(calls),
                "tool_budget": options.tool_budget,
                "over_budget": not within,
                "retrieval_hit": retrieval_hit,
                "void_turns": count_void_turns(request.trajectory),
                "error": error,
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
