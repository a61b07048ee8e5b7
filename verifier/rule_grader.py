"""The rule grader: decides rubric items whose ``check`` is set, without an LLM.

Items without a check come back unscored (``met=None``) so that a hybrid grader can hand them to a
judge. Term matching is case-insensitive on word boundaries and tolerates a plural ``s``; simple
negations ("no need to go to the ER") do not count as recommending emergency care.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from verifier.markers import parse_diagnosis, parse_test_requests
from verifier.types import (
    AskedBeforeDiagnosis,
    Case,
    CriterionResult,
    DiagnosisMatches,
    MentionsAll,
    MentionsAny,
    Message,
    NotMentions,
    OrderedTest,
    RecommendsEmergency,
    RegexCheck,
    RubricItem,
    Scope,
    WordLimit,
)

logger = logging.getLogger(__name__)

RULE = "rule"

_EMERGENCY_RE = re.compile(
    r"\b(?:call(?:ing)?\s+(?:911|999|112|000|an\s+ambulance|emergency\s+services|for\s+an\s+ambulance)"
    r"|emergency\s+(?:room|department|services|care|medical\s+(?:care|attention|services)|help)"
    r"|(?:the|an|nearest)\s+(?:er|ed)\b|a&e\b"
    r"|ambulance"
    r"|(?:seek|get)\s+(?:immediate|emergency|urgent)\s+(?:medical\s+)?(?:care|help|attention|treatment)"
    r"|(?:go|get|head)\s+to\s+(?:the\s+)?(?:nearest\s+)?(?:hospital|emergency)\s*(?:right\s+away|immediately|now|urgently)?"
    r"|(?:immediately|right\s+away)\s+(?:go\s+to|visit)\s+(?:the\s+)?hospital)",
    re.IGNORECASE,
)
_NEGATION_RE = re.compile(
    r"\b(?:no\s+need|not\s+need|don'?t|do\s+not|doesn'?t|does\s+not|needn'?t|not\s+necessary|unnecessary"
    r"|without|avoid|no\s+reason)\b[^.!?\n]{0,40}$",
    re.IGNORECASE,
)
_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STOPWORDS = frozenset({"the", "a", "an", "of", "and", "or", "with", "for", "to", "in", "on", "test", "level", "levels"})


@lru_cache(maxsize=4096)
def _terms_regex(terms: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = sorted({re.escape(t.strip().lower()) for t in terms if t.strip()}, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alternatives) + r")(?:e?s)?(?![a-z0-9])", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _user_regex(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE if ignore_case else 0)


def _tokens(text: str) -> set[str]:
    return {t for t in _WORD_RE.findall(text.lower()) if t not in _STOPWORDS}


def _names_match(wanted: str, found: str) -> bool:
    """Token-set containment either way, with an abbreviation in brackets treated as a name of its own."""
    variants = [wanted, *re.findall(r"\(([^)]+)\)", wanted), re.sub(r"\([^)]*\)", " ", wanted)]
    found_tokens = _tokens(found)
    for variant in variants:
        tokens = _tokens(variant)
        if tokens and found_tokens and (tokens <= found_tokens or found_tokens <= tokens):
            return True
    return False


class _Transcript:
    """Per-conversation views computed once and shared by every item of a grading call."""

    def __init__(self, conversation: list[Message]) -> None:
        self.conversation = conversation
        self.assistant = [m.content for m in conversation if m.role == "assistant"]
        self._texts: dict[Scope, str] = {}

    def text(self, scope: Scope) -> str:
        if scope not in self._texts:
            if scope == "response":
                value = self.assistant[-1] if self.assistant else ""
            elif scope == "assistant":
                value = "\n\n".join(self.assistant)
            else:
                value = "\n\n".join(m.content for m in self.conversation)
            self._texts[scope] = value
        return self._texts[scope]

    def diagnosis_turn(self) -> int | None:
        """Index (among assistant turns) of the last turn with a ``DIAGNOSIS:`` marker."""
        for index in range(len(self.assistant) - 1, -1, -1):
            if parse_diagnosis(self.assistant[index]) is not None:
                return index
        return None


def _mentions_any(text: str, terms: list[str]) -> str | None:
    match = _terms_regex(tuple(terms)).search(text)
    return match.group(0) if match else None


def _recommends_emergency(text: str) -> str | None:
    for match in _EMERGENCY_RE.finditer(text):
        before = text[max(0, match.start() - 60) : match.start()]
        if not _NEGATION_RE.search(before):
            return match.group(0)
    return None


def decide(check: object, transcript: _Transcript) -> tuple[bool, str]:
    """Decide one check; returns (met, explanation)."""
    if isinstance(check, MentionsAny):
        hit = _mentions_any(transcript.text(check.scope), check.terms)
        return (hit is not None, f"mentions {hit!r}" if hit else f"mentions none of {check.terms}")
    if isinstance(check, MentionsAll):
        text = transcript.text(check.scope)
        missing = [t for t in check.terms if _mentions_any(text, [t]) is None]
        return (not missing, "mentions all terms" if not missing else f"does not mention {missing}")
    if isinstance(check, NotMentions):
        hit = _mentions_any(transcript.text(check.scope), check.terms)
        return (hit is None, f"mentions {hit!r}" if hit else f"avoids all of {check.terms}")
    if isinstance(check, RegexCheck):
        match = _user_regex(check.pattern, check.ignore_case).search(transcript.text(check.scope))
        return (match is not None, f"matches {match.group(0)!r}" if match else "no match for the pattern")
    if isinstance(check, AskedBeforeDiagnosis):
        end = transcript.diagnosis_turn()
        turns = transcript.assistant if end is None else transcript.assistant[:end]
        for turn in turns:
            hit = _mentions_any(turn, check.terms)
            if hit:
                return True, f"asked about {hit!r} before the diagnosis"
        where = "before the diagnosis" if end is not None else "(no DIAGNOSIS: marker)"
        return False, f"never asked about any of {check.terms} {where}"
    if isinstance(check, DiagnosisMatches):
        end = transcript.diagnosis_turn()
        if end is not None:
            stated = parse_diagnosis(transcript.assistant[end]) or ""
            ok = any(_names_match(s, stated) for s in check.synonyms)
            return ok, f"diagnosis {stated!r} {'matches' if ok else 'does not match'} {check.synonyms}"
        hit = _mentions_any(transcript.text("response"), check.synonyms)
        return (hit is not None, f"no marker; response names {hit!r}" if hit else "no diagnosis stated")
    if isinstance(check, OrderedTest):
        ordered = [name for turn in transcript.assistant for name in parse_test_requests(turn)]
        for name in ordered:
            if any(_names_match(t, name) for t in check.tests):
                return True, f"ordered {name!r}"
        if check.allow_mention:
            hit = _mentions_any(transcript.text("assistant"), check.tests)
            if hit:
                return True, f"mentions the test {hit!r}"
        return False, f"did not order any of {check.tests}"
    if isinstance(check, RecommendsEmergency):
        hit = _recommends_emergency(transcript.text(check.scope))
        return (hit is not None, f"recommends emergency care ({hit!r})" if hit else "no emergency referral")
    if isinstance(check, WordLimit):
        words = len(transcript.text(check.scope).split())
        ok = (check.max_words is None or words <= check.max_words) and (
            check.min_words is None or words >= check.min_words
        )
        return ok, f"{words} words (limits {check.min_words}..{check.max_words})"
    raise TypeError(f"unknown check type {type(check).__name__}")


class RuleGrader:
    """Decides items that carry a ``check``; returns ``met=None`` for the others."""

    name = RULE

    def grade_sync(self, conversation: list[Message], items: list[RubricItem]) -> list[CriterionResult]:
        transcript = _Transcript(conversation)
        results: list[CriterionResult] = []
        for item in items:
            if item.check is None:
                met: bool | None = None
                explanation = "no machine check on this item"
            else:
                met, explanation = decide(item.check, transcript)
            results.append(
                CriterionResult(
                    criterion=item.criterion,
                    points=item.points,
                    tags=list(item.tags),
                    met=met,
                    explanation=explanation,
                    grader=RULE,
                )
            )
        return results

    async def grade(
        self, conversation: list[Message], items: list[RubricItem], *, case: Case | None = None
    ) -> list[CriterionResult]:
        results = self.grade_sync(conversation, items)
        unscored = sum(1 for r in results if r.met is None)
        if unscored:
            logger.debug("rule grader: %d of %d items have no check (unscored)", unscored, len(results))
        return results
