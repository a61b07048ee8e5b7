"""The factual unit: a case split into atomic facts with topics, and lexical (bm25s) fact selection.

Only what the patient could know is turned into facts: the story, symptoms, history, medicines,
allergies, social and family history and review of systems. Examination findings and test results are
never facts; they come only from the measurement responder when the doctor orders them. Facts are kept
in a person's words: chart language ("The patient reports", "denies", "No significant medical history
provided") is rewritten when the facts are made (``text.plain_speech``).
"""

from __future__ import annotations

import logging
import re
from typing import Literal

import bm25s
from pydantic import BaseModel

from patient_sim import text as tx
from patient_sim.checker import medical_lexicon
from verifier import clinical
from verifier.types import Case

logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG

Topic = Literal[
    "complaint", "hpi", "symptoms", "history", "social", "family", "medications", "allergies", "ros",
    "demographics",
]

# Words added to a fact's index entry so that generic questions ("any medical problems?") find it.
_TOPIC_WORDS: dict[str, str] = {
    "complaint": "bring wrong symptom",
    "hpi": "symptom happen feel",
    "symptoms": "symptom feel other",
    "history": "medical history condition illness problem health surgery operation hospital",
    "social": "lifestyle",
    "family": "family relative run inherit",
    "medications": "medication take regular",
    "allergies": "allergy reaction",
    "ros": "other symptom",
    "demographics": "",
}
# Words a fact's content earns: a fact that dates something answers "when did it start?"; the two
# demographic facts answer "how old are you?" and "what do you do?", not each other.
_ONSET_RE = re.compile(
    r"\b(yesterday|ago|since|overnight|this (morning|evening|afternoon)|last (night|week|month|year)|"
    r"(\d+|one|two|three|four|five|six|several|few|couple of)[- ](hours?|days?|weeks?|months?|years?)(?![- ]old)|"
    r"(for|over|past) (a|the past|several|many) (hours?|days?|weeks?|months?|years?))\b",
    re.IGNORECASE,
)
_CONTENT_WORDS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (_ONSET_RE, ("complaint", "hpi", "symptoms"), "start when"),
    (re.compile(r"\byears old\b"), ("demographics",), "age"),
    (re.compile(r"^I work as\b"), ("demographics",), "job occupation"),
)
_OPEN_QUESTION_RE = re.compile(
    r"\b(what brings|what brought|how can i help|what can i do|tell me (more|about)|go on|anything else|"
    r"what (seems to be|is) the (problem|matter|trouble)|describe|what happened|how are you|explain)\b",
    re.IGNORECASE,
)
_STORY_TOPICS = ("hpi", "symptoms", "complaint")
# The story answers most questions; a review-of-systems line only when it is clearly what was asked.
_TOPIC_WEIGHT = {"hpi": 1.2, "ros": 0.8}


# Words of a question that say how it is asked, not what about.
_QUERY_GLUE = frozenset(tx.stem(w) for w in ("notice", "noticed", "feel", "felt", "think", "remember"))
_GENERIC_QUERY = frozenset(tx.stem(w) for w in ("pain", "problem", "symptom", "medical", "history", "trouble"))
_GATES: dict[str, Topic] = {"family": "family", "allergy": "allergies", "medication": "medications"}


class Fact(BaseModel):
    id: str
    topic: Topic
    text: str


def case_facts(case: Case) -> list[Fact]:
    """The case as atomic facts, in the order a patient would tell them."""
    facts: list[Fact] = []

    def add(topic: Topic, items: list[str]) -> None:
        for item in items:
            item = tx.plain_speech(item.strip()).rstrip(".").strip()  # a record's words, not a person's
            if item:
                facts.append(Fact(id=f"{topic}-{len(facts)}", topic=topic, text=item))

    add("complaint", [case.chief_complaint])
    add("hpi", _sentences(case.history_of_present_illness))
    seen = {f.text.lower() for f in facts}
    add("symptoms", [s for s in case.primary_symptoms + case.secondary_symptoms if s.lower() not in seen])
    add("history", [s for item in case.past_medical_history for s in _sentences(item)])
    add("medications", case.medications)
    add("allergies", case.allergies)
    add("social", [s for item in case.social_history for s in _sentences(item)])
    add("family", case.family_history)
    add("ros", [s for item in case.review_of_systems for s in _sentences(item)])
    demo = case.demographics
    about = []
    if demo.age is not None and demo.age >= 12:
        about.append(f"I am {demo.age} years old")
    if demo.occupation and demo.age is not None and demo.age >= 18:
        about.append(f"I work as a {demo.occupation}")
    add("demographics", about)
    return facts


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip())
    return [p for p in parts if p.strip()]


def _layer_keys(text: str) -> list[str]:
    """The clinical-language layer's keys of ``text``, generic ones ("pain") left to the stems."""
    return [k for k in clinical.concepts(text) if not clinical.is_generic(k)]


def _content_words(fact: Fact) -> list[str]:
    return [t for pattern, topics, words in _CONTENT_WORDS if fact.topic in topics and pattern.search(fact.text)
            for t in tx.tokens(words)]


class FactIndex:
    """bm25s over the facts (stemmed + synonym tokens, plus topic words); select() answers one question."""

    def __init__(self, facts: list[Fact], *, max_facts: int = 2, min_score: float = 0.3) -> None:
        if not facts:
            raise ValueError("a case needs at least one fact")
        self.facts = facts
        self.max_facts = max_facts
        self.min_score = min_score
        # The clinical-language layer's keys ("urinary" for "no urinary symptoms"; ``intent:onset`` for a fact
        # that dates something) let a question in other words find the fact: "any burning when you pee?".
        corpus = [tx.tokens(f.text) + tx.tokens(_TOPIC_WORDS[f.topic]) + _content_words(f) + _layer_keys(f.text)
                  + clinical.answers(f.text) for f in facts]
        self._retriever = bm25s.BM25()
        self._retriever.index(corpus, show_progress=False)
        self._vocab = {t for doc in corpus for t in doc}
        self._own = [set(tx.tokens(f.text)) | set(_layer_keys(f.text)) for f in facts]
        topics = {f.topic for f in facts}
        self._gates = {token: topic for token, topic in _GATES.items() if topic in topics}

    def select(self, question: str, revealed: set[str] | None = None) -> list[Fact]:
        """The facts that answer ``question``; for an open question, the next untold part of the story."""
        revealed = revealed or set()
        asked = [t for t in tx.tokens(question) if t not in _QUERY_GLUE]
        asked += [k for k in [*_layer_keys(question), *sorted(clinical.intents(question))] if k not in asked]
        query = [t for t in asked if t in self._vocab]
        # The question names something clinical that no fact mentions ("any chest pain?" with no chest in the
        # case): a fact that shares only a generic word with it ("pain") does not answer it.
        absent = any(t not in self._vocab and t in medical_lexicon() for t in asked)
        specific = {t for t in query if t not in _GENERIC_QUERY}
        # A question about the family, allergies or medicines is answered from that topic when it has facts.
        gate = next((self._gates[t] for t in query if t in self._gates), None)
        scored: list[tuple[float, int]] = []
        if query:
            scores = self._retriever.get_scores(query)
            for i, score in enumerate(scores):
                if gate is not None and self.facts[i].topic != gate:
                    continue
                if absent and gate is None and not specific & self._own[i]:
                    continue
                # Prefer what has not been said yet, so follow-up questions move the story on.
                weight = 0.8 if self.facts[i].text in revealed else 1.0
                weight *= _TOPIC_WEIGHT.get(self.facts[i].topic, 1.0)
                scored.append((float(score) * weight, i))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        if scored and scored[0][0] >= self.min_score:
            best = scored[0][0]
            chosen = [i for score, i in scored[: self.max_facts] if score >= max(self.min_score, 0.6 * best)]
            return [self.facts[i] for i in sorted(chosen)]
        if _OPEN_QUESTION_RE.search(question):
            untold = [f for f in self.facts if f.topic in _STORY_TOPICS and f.text not in revealed]
            return untold[: self.max_facts]
        return []


def is_open_question(question: str) -> bool:
    return bool(_OPEN_QUESTION_RE.search(question))
