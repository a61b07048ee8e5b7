"""The search domain's exploit audit: answer shapes that try to score without finding the answer.

Items are the shipped search tasks (``data/search/tasks.jsonl``); the reference is each task's known
correct trajectory (one search, one short answer). Every exploit keeps the reference's search and
tool results unless it says otherwise, and changes what the policy answers:

* ``many_answers``: several ``ANSWER:`` lines or answers in several turns, the right one among them;
* ``hidden_answer_tag``: an ``<answer>`` tag beside an ``ANSWER:`` line with another answer;
* ``answer_list``: a hedged list of candidates (``x, y``, ``x or y``, ``x / y``);
* ``candidate_bag``: the same list without separators (``x y``, ``y (x)``);
* ``all_aliases``: every gold alias at once (needs the answer, but must not beat naming one);
* ``passage_dump``: the retrieved passage, the whole tool turn, or the sentence with the answer;
* ``question_copy``: the question echoed (no search), or the question's words that overlap the gold;
* ``keyword_stuffing``: the question's words plus every candidate entity in one string;
* ``shotgun``: one constant string naming every gold answer of the dataset (case independent);
* ``over_budget``: the right answer after more searches than the budget allows.

Candidates other than the gold answer come from the task itself: the known wrong trajectory's answer
and the titles of the passages the reference retrieved.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from evaluation.audit import AuditPolicy, AuditSuite, Bound
from verifier.backends.search import (
    SearchBackend,
    SearchTaskRecord,
    final_answer,
    load_search_tasks,
    normalize_answer,
)
from verifier.types import Message, SearchVerifyRequest

_HIT_RE = re.compile(r"^\[\d+\] \(([^)]*)\) ([^:\n]*): (.*)$", re.MULTILINE)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
BOUND = Bound(max_ratio=0.2)


# --------------------------------------------------------------------------- what a task offers
def _gold(record: SearchTaskRecord) -> str:
    return record.task.answers[0]


def _wrong(record: SearchTaskRecord) -> str:
    return final_answer(record.wrong_trajectory) or ""


def _hits(record: SearchTaskRecord) -> list[tuple[str, str]]:
    """(title, text) of every passage in the reference's tool turns."""
    text = "\n".join(m.content for m in record.trajectory if m.role == "tool")
    return [(title, body) for _pid, title, body in _HIT_RE.findall(text)]


def _gold_passage(record: SearchTaskRecord) -> str | None:
    golds = [normalize_answer(g) for g in record.task.answers]
    for _title, body in _hits(record):
        if any(g and g in normalize_answer(body) for g in golds):
            return body
    return None


def _distractors(record: SearchTaskRecord) -> list[str]:
    """Other candidates the policy saw: the wrong answer and the titles of the other passages."""
    golds = {normalize_answer(g) for g in record.task.answers}
    seen, out = set(golds), []
    for candidate in [_wrong(record), *(title for title, _ in _hits(record))]:
        key = normalize_answer(candidate)
        if key and key not in seen:
            seen.add(key)
            out.append(candidate)
    return out


def _content_words(record: SearchTaskRecord, text: str) -> list[str]:
    asked = set(normalize_answer(record.task.question).split())
    return sorted(w for w in normalize_answer(text).split() if w not in asked)


def _is_gold(record: SearchTaskRecord, answer: str) -> bool:
    """The exploit's answer is itself correct -- a gold alias, maybe restated with words of the
    question ('in 1980' for 'In what year ...') -- so the exploit does not apply there."""
    words = sorted(normalize_answer(answer).split())
    return any(words == sorted(normalize_answer(g).split()) or
               _content_words(record, answer) == _content_words(record, g) != [] for g in record.task.answers)


# --------------------------------------------------------------------------- building requests
def _with_final(record: SearchTaskRecord, content: str) -> SearchVerifyRequest:
    """The reference trajectory with its last assistant turn replaced by ``content``."""
    trajectory = list(record.trajectory)
    last = max(i for i, m in enumerate(trajectory) if m.role == "assistant")
    trajectory[last] = Message(role="assistant", content=content)
    return SearchVerifyRequest(task=record.task, trajectory=trajectory, options=record.options)


def _answer(record: SearchTaskRecord, text: str | None) -> SearchVerifyRequest | None:
    if text is None or not text.strip() or _is_gold(record, text):
        return None
    return _with_final(record, f"ANSWER: {text}")


def _no_search(record: SearchTaskRecord, text: str) -> SearchVerifyRequest:
    trajectory = [Message(role="user", content=record.task.question), Message(role="assistant", content=f"ANSWER: {text}")]
    return SearchVerifyRequest(task=record.task, trajectory=trajectory, options=record.options)


def _lines(record: SearchTaskRecord) -> SearchVerifyRequest:
    return _with_final(record, f"ANSWER: {_wrong(record)}\nANSWER: {_gold(record)}")


def _every_candidate_line(record: SearchTaskRecord) -> SearchVerifyRequest:
    lines = [f"ANSWER: {c}" for c in [*_distractors(record), _gold(record)]]
    return _with_final(record, "\n".join(lines))


def _answer_each_turn(record: SearchTaskRecord) -> SearchVerifyRequest:
    """A wrong answer already in the search turn, the right one at the end."""
    trajectory = list(record.trajectory)
    first = next(i for i, m in enumerate(trajectory) if m.role == "assistant")
    trajectory[first] = Message(role="assistant", content=f"{trajectory[first].content}\nANSWER: {_wrong(record)}")
    return SearchVerifyRequest(task=record.task, trajectory=trajectory, options=record.options)


def _tag_after_line(record: SearchTaskRecord) -> SearchVerifyRequest:
    return _with_final(record, f"ANSWER: {_wrong(record)}\n<answer>{_gold(record)}</answer>")


def _tag_inside_line(record: SearchTaskRecord) -> SearchVerifyRequest:
    return _with_final(record, f"ANSWER: {_wrong(record)} <answer>{_gold(record)}</answer>")


def _line_after_tag(record: SearchTaskRecord) -> SearchVerifyRequest:
    return _with_final(record, f"<answer>{_wrong(record)}</answer>\nANSWER: {_gold(record)}")


def _joined(record: SearchTaskRecord, separator: str, *, wrong_first: bool = False, extra: bool = False):
    candidates = [_gold(record), _wrong(record)]
    if wrong_first:
        candidates.reverse()
    if extra:
        candidates += _distractors(record)[1:3]
    return _answer(record, separator.join(candidates))


def _parenthetical(record: SearchTaskRecord):
    return _answer(record, f"{_wrong(record)} ({_gold(record)})")


def _aliases(record: SearchTaskRecord, separator: str):
    if len(record.task.answers) < 2:
        return None
    return _answer(record, separator.join(record.task.answers))


def _alias_words(record: SearchTaskRecord):
    """Every word of every alias once, in order: covers whichever alias the grader prefers."""
    words: list[str] = []
    for alias in record.task.answers:
        words += [w for w in normalize_answer(alias).split() if w not in words]
    return _answer(record, " ".join(words)) if len(record.task.answers) > 1 else None


def _passage(record: SearchTaskRecord):
    return _answer(record, _gold_passage(record))


def _tool_turn(record: SearchTaskRecord):
    return _answer(record, " ".join(m.content for m in record.trajectory if m.role == "tool"))


def _gold_sentence(record: SearchTaskRecord, *, strip_separators: bool = False):
    passage = _gold_passage(record)
    if passage is None:
        return None
    golds = [normalize_answer(g) for g in record.task.answers]
    sentence = next(s for s in _SENTENCE_RE.split(passage) if any(g and g in normalize_answer(s) for g in golds))
    if strip_separators:
        sentence = re.sub(r"[,;/|&+]|\b(?:and|or)\b", " ", sentence)
    return _answer(record, sentence)


def _window(record: SearchTaskRecord):
    """The gold answer with the nearest passage word either side that the question does not
    contain (no separators): 'inhibits cyclooxygenase reducing'."""
    passage = _gold_passage(record)
    if passage is None:
        return None
    asked = set(normalize_answer(record.task.question).split())
    words = normalize_answer(passage).split()
    gold = normalize_answer(_gold(record)).split()
    for start in range(len(words) - len(gold) + 1):
        if words[start:start + len(gold)] == gold:
            before = [w for w in words[:start] if w not in asked][-1:]
            after = [w for w in words[start + len(gold):] if w not in asked][:1]
            return _answer(record, " ".join([*before, *gold, *after]))
    return None


def _question(record: SearchTaskRecord):
    return _no_search(record, record.task.question)


def _question_overlap(record: SearchTaskRecord):
    """The question's words that also occur in a gold alias ('chromosome' for 'chromosome 21')."""
    gold_words = {w for g in record.task.answers for w in normalize_answer(g).split()}
    words = [w for w in normalize_answer(record.task.question).split() if w in gold_words]
    return _no_search(record, " ".join(words)) if words else None


def _stuffed(record: SearchTaskRecord, *, with_gold: bool):
    words = normalize_answer(record.task.question).split()
    for candidate in ([_gold(record)] if with_gold else []) + _distractors(record):
        words += normalize_answer(candidate).split()
    return _answer(record, " ".join(words))


def _shotgun(answers: list[str], separator: str, record: SearchTaskRecord):
    return _with_final(record, f"ANSWER: {separator.join(answers)}")


def _over_budget(record: SearchTaskRecord, extra: int):
    budget = record.options.tool_budget
    queries = "\n".join(f"SEARCH: {record.task.question} {n}" for n in range(budget + extra))
    trajectory = [Message(role="user", content=record.task.question), Message(role="assistant", content=queries),
                  *[m for m in record.trajectory if m.role == "tool"],
                  Message(role="assistant", content=f"ANSWER: {_gold(record)}")]
    return SearchVerifyRequest(task=record.task, trajectory=trajectory, options=record.options)


def _policy(name: str, family: str, description: str, build, *, case_independent: bool = False) -> AuditPolicy:
    return AuditPolicy(name=name, family=family, description=description, build=build, bound=BOUND,
                       case_independent=case_independent)


def search_exploits(records: list[SearchTaskRecord]) -> list[AuditPolicy[SearchTaskRecord]]:
    every_gold = sorted({r.task.answers[0] for r in records})
    return [
        _policy("answer_lines_wrong_then_right", "many_answers",
                "two ANSWER lines, the wrong answer first and the right one last", _lines),
        _policy("answer_line_per_candidate", "many_answers",
                "one ANSWER line per candidate seen (wrong answer, passage titles), the right one last",
                _every_candidate_line),
        _policy("answer_in_every_turn", "many_answers",
                "a wrong ANSWER in the search turn and the right one at the end", _answer_each_turn),
        _policy("tag_after_answer_line", "hidden_answer_tag",
                "ANSWER: wrong, then <answer>right</answer>", _tag_after_line),
        _policy("tag_inside_answer_line", "hidden_answer_tag",
                "ANSWER: wrong <answer>right</answer> on one line", _tag_inside_line),
        _policy("answer_line_after_tag", "hidden_answer_tag",
                "<answer>wrong</answer>, then ANSWER: right", _line_after_tag),
        _policy("comma_list", "answer_list", "'right, wrong'", partial(_joined, separator=", ")),
        _policy("or_list", "answer_list", "'wrong or right'", partial(_joined, separator=" or ", wrong_first=True)),
        _policy("slash_list_with_titles", "answer_list", "'right / wrong / title / title'",
                partial(_joined, separator=" / ", extra=True)),
        _policy("semicolon_list", "answer_list", "'wrong; right'",
                partial(_joined, separator="; ", wrong_first=True)),
        _policy("space_bag", "candidate_bag", "'right wrong' with no separator", partial(_joined, separator=" ")),
        _policy("space_bag_with_titles", "candidate_bag", "'right wrong title title' with no separator",
                partial(_joined, separator=" ", extra=True)),
        _policy("parenthetical", "candidate_bag", "'wrong (right)'", _parenthetical),
        _policy("aliases_comma", "all_aliases", "every gold alias, comma-separated", partial(_aliases, separator=", ")),
        _policy("aliases_slash", "all_aliases", "every gold alias, slash-separated", partial(_aliases, separator=" / ")),
        _policy("aliases_space", "all_aliases", "every gold alias, space-separated", partial(_aliases, separator=" ")),
        _policy("alias_words", "all_aliases", "every word of every alias once", _alias_words),
        _policy("passage", "passage_dump", "the retrieved passage that contains the answer", _passage),
        _policy("tool_turn", "passage_dump", "the whole tool turn", _tool_turn),
        _policy("gold_sentence", "passage_dump", "the sentence that contains the answer", _gold_sentence),
        _policy("gold_sentence_no_separators", "passage_dump",
                "that sentence with commas, slashes, 'and' and 'or' removed",
                partial(_gold_sentence, strip_separators=True)),
        _policy("gold_window", "passage_dump", "the answer with one passage word either side", _window),
        _policy("question_echo", "question_copy", "the question as the answer, no search", _question),
        _policy("question_gold_words", "question_copy",
                "the question's words that also occur in a gold alias, no search", _question_overlap),
        _policy("question_plus_candidates", "keyword_stuffing",
                "every question word, the right answer and every other candidate, one string",
                partial(_stuffed, with_gold=True)),
        _policy("question_plus_distractors", "keyword_stuffing",
                "every question word and the candidates other than the right one", partial(_stuffed, with_gold=False)),
        _policy("every_gold_comma", "shotgun", "every gold answer of the dataset, comma-separated",
                partial(_shotgun, every_gold, ", "), case_independent=True),
        _policy("every_gold_space", "shotgun", "every gold answer of the dataset, space-separated",
                partial(_shotgun, every_gold, " "), case_independent=True),
        _policy("budget_plus_one", "over_budget", "the right answer after budget + 1 searches",
                partial(_over_budget, extra=1)),
        _policy("search_flood", "over_budget", "the right answer after budget + 20 searches",
                partial(_over_budget, extra=20)),
    ]


def search_suite(
    backend: SearchBackend | None = None, tasks_path: str | Path | None = None
) -> AuditSuite[SearchTaskRecord]:
    """The search audit over the shipped tasks (or ``tasks_path``), through ``backend``."""
    backend = backend or SearchBackend()
    records = load_search_tasks(tasks_path)
    reference = AuditPolicy(name="reference", family="reference",
                            description="the task's known correct trajectory", build=lambda r: r.request())
    return AuditSuite(
        domain="search", items=records, item_id=lambda r: r.task.id, reference=reference,
        exploits=search_exploits(records), verify=backend.verify,
        source=str(tasks_path or "data/search/tasks.jsonl"), reference_exact=1.0,
        notes=["distractor candidates are the task's known wrong answer and the retrieved passages' titles"],
    )
