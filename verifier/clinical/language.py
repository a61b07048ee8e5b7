"""What a question asks about: its terms, intents and topics; the signs it names and what finds them."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from verifier.clinical.data import (
    EXAM,
    INTENT,
    METHOD,
    SITE,
    STOPWORDS,
    TEST,
    _layer,
    _terms,
    folded,
    stem,
)
from verifier.clinical.orders import read_order
from verifier.diagnosis import spoken

if TYPE_CHECKING:
    from verifier.types import Case


def terms(text: str, *, nested: bool = True) -> list[str]:
    """What ``text`` talks about: concept, test, method and site keys (with ``nested``, also those of
    phrases inside longer ones), then the stems of other words."""
    keys, rest, inner = _terms(text)
    return [*keys, *(inner if nested else ()), *rest]


@lru_cache(maxsize=16384)
def topics(text: str, *, item: bool = False) -> tuple[tuple[str, ...], ...]:
    """What ``text`` (a key question, a symptom, a red flag) asks about, one group per thing: each intent;
    the keys of each phrase, with those of the phrases inside it ("speech" is the speech concept and the
    nervous system); each other word's stem. Read as a rubric ``item``, a concept asked about only as a whole
    (``whole``) is that concept alone; read as a question, "very dark pee?" still asks about the waterworks."""
    layer = _layer()
    tokens = folded(text)
    groups: list[tuple[str, ...]] = [(key,) for key in sorted(intents(text, implied=not item))]
    said = {w for key, asks, _ in layer.intents if key in intents(text, implied=not item)  # the words that say the intent
            for match in asks.finditer(text) for w in folded(match.group(0))}
    matches = layer.phrases.matches(tokens)
    covered = [False] * len(tokens)
    spans: dict[tuple[int, int], list[str]] = {}
    for begin, end, key in layer.phrases.spans(tokens):
        spans.setdefault((begin, end), []).append(key)
        covered[begin:end] = [True] * (end - begin)
    for (begin, end), keys in spans.items():
        # an item about a concept asked about only as a whole is that concept alone: not the phrases inside it
        # ("Other joints?" is not about a prosthetic joint) nor the concepts it is within ("Any operations?")
        if item and set(keys) & layer.whole:
            groups.append(tuple(dict.fromkeys(k for k in keys if k in layer.whole)))
            continue
        # a phrase inside a generic one is not what it talks about: "relative to meals" names no relatives
        inner = [] if all(k in layer.generic for k in keys) else [
            k for b, e, k in matches if begin <= b and e <= end and k not in keys]
        groups.append(tuple(dict.fromkeys([*keys, *inner])))
    for token, used in zip(tokens, covered, strict=True):
        if not used and token not in STOPWORDS and token not in said:
            stemmed = stem(token)
            groups.append((layer.stems.get(stemmed, stemmed),))
    return tuple(dict.fromkeys(groups))


def concepts(text: str) -> list[str]:
    """Only the keys of ``text`` (no leftover stems)."""
    return list(_terms(text)[0])


@lru_cache(maxsize=16384)
def intents(sentence: str, *, implied: bool = True) -> frozenset[str]:
    """What a question asks, whatever it asks it about (``intent:onset``, ``intent:site``, ...), and with ``implied``
    what asking it asks too (where the pain goes is where it is felt; an item about the spread still wants the
    spread asked, not only where it began)."""
    layer = _layer()
    sentence = spoken(sentence)  # "what's goin' on?" asks what "what's going on?" asks (round 84)
    found = frozenset(key for key, asks, _ in layer.intents if asks.search(sentence))
    return found.union(*(layer.implied.get(key, frozenset()) for key in found)) if implied else found


def answers(fact: str) -> list[str]:
    """The intents a fact sentence answers ("it started yesterday" answers ``intent:onset``)."""
    return [key for key, _, answer in _layer().intents if answer is not None and answer.search(fact)]


@lru_cache(maxsize=16384)
def asked(question: str) -> frozenset[str]:
    """Everything a question sentence asks about: its terms and its intents, and what a concept named alone, as a
    question, asks too (a terse "Eating?" asks about the appetite; a heading "Now, food." asks nothing of its own)."""
    named = terms(question, nested=False) if question.rstrip().endswith("?") else ()
    extra = _layer().alone.get(named[0], frozenset()) if len(named) == 1 else frozenset()
    return frozenset(terms(question)) | intents(question) | extra


@lru_cache(maxsize=16384)
def compose(keys: frozenset[str]) -> frozenset[str]:
    """``keys`` (what a question asks) with the concepts it names by their parts: "Cough, blood?" asks about
    haemoptysis, "Have your stools been black?" about melaena."""
    # one step: "Black stools?" (melaena) asks about blood in the stool; "Have your stools changed colour?" asks
    # about melaena, not on through it about blood in the stool
    made = {concept for concept, alternatives in _layer().made_of if any(parts <= keys for parts in alternatives)}
    return keys | made if made else keys


@lru_cache(maxsize=16384)
def term_keys(term: str) -> frozenset[str]:
    """A rubric term as keys: a namespaced key or a concept id stands for itself ("erectile_function"); a word or
    phrase is read as text."""
    if term.startswith((INTENT, TEST, METHOD, SITE)) or term in _layer().whole:
        return frozenset({term})
    # a generic concept inside the term ("pain" in "pain_control") never stands for it
    read = frozenset(k for k in terms(term) if k == term or not is_generic(k)) or frozenset({term.lower()})
    if term in _layer().names:
        # a concept stands for itself, not for its body system: "social withdrawal" is not asked by any question
        # about the mind ("thoughts inserted?")
        return frozenset(k for k in read if not k.startswith(SITE)) | {term}
    return read


def is_generic(key: str) -> bool:
    """A key too broad to tell one question from another ("pain", "problem")."""
    return key in _layer().generic


def is_condition(key: str) -> bool:
    """A long-standing illness asked about in the past history ("Any diabetes?", "Heart trouble?")."""
    return key in _layer().conditions


def system_symptoms(key: str) -> frozenset[str]:
    """The symptoms a blanket negative about body system ``key`` answers (``site:chest``: breathlessness, cough,
    ...); empty for any other key."""
    return _layer().systems.get(key, frozenset())


def told_as(key: str) -> frozenset[str]:
    """The lay symptoms a fact stating finding ``key`` answers, for the patient only (``respiratory_distress``:
    breathlessness); empty for any other key."""
    return _layer().told_as.get(key, frozenset())


def is_sign_key(key: str) -> bool:
    """Whether concept ``key`` is a sign, looked for on examination (``petechiae``, ``guarding``)."""
    return key in _layer().signs


def is_sign(text: str) -> bool:
    """Whether ``text`` (a red flag) names a sign that is looked for rather than asked about, or a
    measurement ("pH under 7.1", "raised lactate")."""
    layer = _layer()
    order = read_order(text)
    return any(key in layer.signs for key in concepts(text)) or bool(order.tests) or EXAM in order.methods


def found_by(text: str) -> tuple[list[str], list[str]]:
    """(tests, sites) whose measurement or examination finds the signs ``text`` names: a low blood pressure
    is found by measuring the blood pressure, a rigid abdomen by examining the abdomen."""
    layer = _layer()
    keys = [*concepts(text), *_terms(text)[2]]
    found = [k for key in keys for k in layer.found_by.get(key, ())]
    tests = list(dict.fromkeys([*(k for k in keys if k.startswith(TEST)), *(k for k in found if k.startswith(TEST))]))
    sites = list(dict.fromkeys([*read_order(text).sites, *(k for k in found if k.startswith(SITE))]))
    return tests, sites


def is_key(key: str) -> bool:
    """Whether ``key`` is a key of the layer's data (a concept, test, method or site), not a stem."""
    return key in _layer().names or key.startswith(INTENT)




_NEGATED_RE = re.compile(r"^\s*(?:no|denies|denied|without|absence of|absent|not|negative for|never|unaware of"
                         r"|no known|not aware of)\s+(?:any\s+)?",
                         re.IGNORECASE)


def topic(finding: str) -> str:
    """A recorded finding as the thing to ask about: "No fever" -> "fever" (asking about a negated
    finding asks about the finding)."""
    return _NEGATED_RE.sub("", finding.strip()).strip() or finding.strip()


MAX_CASE_QUESTIONS = 6  # the key questions a case's rubric asks for
ONSET_QUESTION = "Ask when the symptoms started"


def case_questions(case: Case) -> list[str]:
    """The key questions of ``case``: its own, or for an imported case questions about its recorded symptoms
    and when they started (a negated finding asked about as the finding), less what the clinicians' review
    left out (``case.rubric_leaves_out``), but never nothing: a consultation takes some history, so the onset
    question stays where it is all that is left. The rubric asks these and the audit's reference doctor asks
    them."""
    if case.key_questions:
        return case.key_questions[:MAX_CASE_QUESTIONS]
    left_out = set(case.rubric_leaves_out)
    symptoms = [f"Ask about {topic(s).lower()}" for s in case.secondary_symptoms[: MAX_CASE_QUESTIONS - 1]
                if s not in left_out]
    return [*symptoms, ONSET_QUESTION] if "onset" not in left_out or not symptoms else symptoms
