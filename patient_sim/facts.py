"""The factual unit: a case split into atomic facts with topics, and lexical (bm25s) fact selection.

Only what the patient could know is turned into facts: the story, symptoms, history, medicines,
allergies, social and family history and review of systems. Examination findings and test results are
never facts; they come only from the measurement responder when the doctor orders them.
"""

from __future__ import annotations

import logging
import re
from typing import Literal

import bm25s
from pydantic import BaseModel

from patient_sim import text as tx
from verifier.types import Case

logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG

Topic = Literal[
    "complaint", "hpi", "symptoms", "history", "social", "family", "medications", "allergies", "ros",
    "demographics",
]

# Words added to a fact's index entry so that generic questions ("any medical problems?") find it.
_TOPIC_WORDS: dict[str, str] = {
    "complaint": "problem trouble bring wrong symptom",
    "hpi": "symptom happen feel",
    "symptoms": "symptom feel other",
    "history": "medical history condition illness problem health surgery operation hospital",
    "social": "lifestyle",
    "family": "family relative run inherit",
    "medications": "medication take regular",
    "allergies": "allergy reaction",
    "ros": "other symptom",
    "demographics": "age old work",
}
_OPEN_QUESTION_RE = re.compile(
    r"\b(what brings|what brought|how can i help|what can i do|tell me (more|about)|go on|anything else|"
    r"what (seems to be|is) the (problem|matter|trouble)|describe|what happened|how are you|explain)\b",
    re.IGNORECASE,
)
_STORY_TOPICS = ("hpi", "symptoms", "complaint")
# The story answers most questions; a review-of-systems line only when it is clearly what was asked.
_TOPIC_WEIGHT = {"hpi": 1.2, "ros": 0.8}


class Fact(BaseModel):
    id: str
    topic: Topic
    text: str


def case_facts(case: Case) -> list[Fact]:
    """The case as atomic facts, in the order a patient would tell them."""
    facts: list[Fact] = []

    def add(topic: Topic, items: list[str]) -> None:
        for item in items:
            item = item.strip().rstrip(".").strip()
            if item:
                facts.append(Fact(id=f"{topic}-{len(facts)}", topic=topic, text=item))

    add("complaint", [case.chief_complaint])
    add("hpi", _sentences(case.history_of_present_illness))
    seen = {f.text.lower() for f in facts}
    add("symptoms", [s for s in case.primary_symptoms + case.secondary_symptoms if s.lower() not in seen])
    add("history", case.past_medical_history)
    add("medications", case.medications)
    add("allergies", case.allergies)
    add("social", case.social_history)
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


class FactIndex:
    """bm25s over the facts (stemmed + synonym tokens, plus topic words); select() answers one question."""

    def __init__(self, facts: list[Fact], *, max_facts: int = 2, min_score: float = 0.3) -> None:
        if not facts:
            raise ValueError("a case needs at least one fact")
        self.facts = facts
        self.max_facts = max_facts
        self.min_score = min_score
        corpus = [tx.tokens(f.text) + tx.tokens(_TOPIC_WORDS[f.topic]) for f in facts]
        self._retriever = bm25s.BM25()
        self._retriever.index(corpus, show_progress=False)
        self._vocab = {t for doc in corpus for t in doc}

    def select(self, question: str, revealed: set[str] | None = None) -> list[Fact]:
        """The facts that answer ``question``; for an open question, the next untold part of the story."""
        revealed = revealed or set()
        query = [t for t in tx.tokens(question) if t in self._vocab]
        scored: list[tuple[float, int]] = []
        if query:
            scores = self._retriever.get_scores(query)
            for i, score in enumerate(scores):
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
