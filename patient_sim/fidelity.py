"""Patient-fidelity measures: leaks, traceability, chart language, repeats, persona surface features and
the small classifier that tries to recover a persona from them (``bench/patient_fidelity.py`` runs them).

Everything here is pure: a reply's text and the case in, counts out, so that each figure can be checked
against numbers worked out by hand (``tests/patient_sim/test_fidelity.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from patient_sim import text as tx
from patient_sim.checker import clinical_vocabulary
from patient_sim.facts import MEDICINES, Fact, is_open_question, names_medicine
from verifier import clinical
from verifier.types import Case

# Phrases of a medical record, not of a person: they must never reach the patient's mouth.
CHART_PHRASES = (
    "provided", "noted", "significant medical history", "patient reports", "the patient", "denies",
    "unremarkable", "non-contributory", "presents with",
)
# ... and the record's verbs turned into the first person ("Patient denies" -> "I deny").
CHART_VERBS = ("deny", "denied", "report", "reported", "present", "presented", "cite", "cited", "note", "mention")
_CHART_RE = re.compile(
    r"\b(" + "|".join(re.escape(p) for p in CHART_PHRASES) + r"|i (?:" + "|".join(CHART_VERBS) + r")s?)\b",
    re.IGNORECASE,
)
# Words the template realizer puts around a fact of a topic ("I have an allergy to ..."): not facts.
TOPIC_GLUE = {
    "allergies": "allergy", "medications": "medication", "family": "family", "history": "history",
    "demographics": "age old work",
}
# The words a parent uses for the patient ("my son") where the record says "the patient".
SUBJECT_GLUE = "son daughter child"
HEDGES = ("maybe", "i think", "about", "around", "roughly", "or so", "not sure", "i guess", "probably",
          "if i remember", "something like", "a while", "i believe", "sort of", "kind of", "more or less")
HESITATIONS = ("um", "uh", "er", "hmm", "...", "wait", "i mean", "sorry", "where was i", "anyway")
EMOTION = ("feel", "feeling", "hard", "honestly", "upset", "down", "sad", "terrible", "awful", "getting to me",
           "love", "hate", "!")
WORRY = ("worried", "worry", "worrying", "scared", "afraid", "frightened", "nervous", "serious", "what if",
         "panic", "dread", "anxious")
MINIMIZING = ("probably nothing", "not that bad", "not too bad", "fine", "no big deal", "nothing much",
              "only a", "i'm sure it's", "it's nothing")
FEATURE_NAMES = (
    "words_per_sentence", "word_length", "long_word_share", "type_token_ratio", "words_per_reply",
    "sentences_per_reply", "hedge_rate", "hesitation_rate", "emotion_rate", "worry_rate", "minimizing_rate",
    "number_rate", "first_person_rate", "exclamation_rate",
)
# The features that count no word list: what is left of the persona when the lexicons (hedges, worry,
# minimizing, ...) that the affect layer itself writes are taken away.
STATISTICS_ONLY = ("words_per_sentence", "word_length", "long_word_share", "type_token_ratio", "words_per_reply",
                   "sentences_per_reply", "number_rate", "first_person_rate", "exclamation_rate")
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_WORDS = re.compile(r"[a-z0-9']+")


def chart_phrases(reply: str) -> list[str]:
    """The chart-language phrases in ``reply`` (lower case, in order)."""
    return [m.group(1).lower() for m in _CHART_RE.finditer(reply)]


def leaks(reply: str, case: Case, own_facts: str, ordered_keys: Iterable[str] = ()) -> list[str]:
    """Diagnosis names and unordered examination or test values in a patient reply, less what the
    patient's own told facts (``own_facts``) contain."""
    found = [
        p for p in [case.final_diagnosis, *case.diagnosis_synonyms]
        if p.strip() and tx.contains_phrase(reply, p) and not tx.contains_phrase(own_facts, p)
    ]
    ordered = set(ordered_keys)
    own_numbers = tx.numbers(own_facts)
    for key, value in {**case.physical_exam, **case.test_results}.items():
        if key in ordered:
            continue
        leaked = (tx.numbers(value) & tx.numbers(reply)) - own_numbers
        if leaked:
            found.append(f"{key}: {sorted(leaked)}")
        if len(value.split()) > 1 and tx.contains_phrase(reply, value) and not tx.contains_phrase(own_facts, value):
            found.append(f"{key}: {value}")
    return found


def clinical_terms(reply: str, case: Case) -> list[str]:
    """The reply's clinical tokens: words of the project's clinical lexicon or of this case's record."""
    vocabulary = clinical_vocabulary(case)
    return [t for t in tx.tokens(reply) if t in vocabulary]


@dataclass(frozen=True)
class Trace:
    """How many clinical terms and numbers a reply has, and how many of them its sources hold."""

    total: int
    traced: int
    untraced: tuple[str, ...]


def trace(reply: str, case: Case, sources: Sequence[str], topics: Iterable[str] = ()) -> Trace:
    """Traceability of ``reply`` to ``sources`` (the facts it was built from); ``topics`` are those facts'
    topics, whose realizer glue words ("allergy", "history") count as traced."""
    glue = " ".join([SUBJECT_GLUE, *(TOPIC_GLUE.get(t, "") for t in topics)])
    source_tokens = set(tx.tokens(" ".join([*sources, glue])))
    terms = clinical_terms(reply, case)
    numbers = sorted(tx.numbers(reply))
    source_numbers = tx.numbers(" ".join(sources))
    untraced = [t for t in terms if t not in source_tokens] + [n for n in numbers if n not in source_numbers]
    return Trace(total=len(terms) + len(numbers), traced=len(terms) + len(numbers) - len(untraced),
                 untraced=tuple(untraced))


def normalised(reply: str) -> str:
    return " ".join(_WORDS.findall(reply.lower()))


def verbatim_repeats(replies: Sequence[str]) -> int:
    """Replies identical (case and punctuation aside) to an earlier reply of the same consultation."""
    seen: set[str] = set()
    count = 0
    for reply in replies:
        key = normalised(reply)
        count += key in seen
        seen.add(key)
    return count


# --------------------------------------------------------------------------- persona surface features
def _rate(text: str, words: int, phrases: Sequence[str]) -> float:
    padded = f" {text} "
    hits = sum(padded.count(p) if not p[0].isalpha() else len(re.findall(rf"\b{re.escape(p)}\b", text))
               for p in phrases)
    return hits / max(1, words)


def surface_features(replies: Sequence[str]) -> list[float]:
    """``FEATURE_NAMES`` over one consultation's patient replies: general surface statistics, never a
    test for a particular template string."""
    text = " ".join(r.lower() for r in replies)
    sentences = [s for r in replies for s in _SENTENCES.split(r.strip()) if s]
    words = _WORDS.findall(text)
    n = max(1, len(words))
    per_reply_ttr = [len(set(w)) / len(w) for w in (_WORDS.findall(r.lower()) for r in replies) if w]
    return [
        len(words) / max(1, len(sentences)),
        sum(len(w) for w in words) / n,
        sum(len(w) >= 7 for w in words) / n,
        float(np.mean(per_reply_ttr)) if per_reply_ttr else 0.0,
        len(words) / max(1, len(replies)),
        len(sentences) / max(1, len(replies)),
        _rate(text, n, HEDGES),
        _rate(text, n, HESITATIONS),
        _rate(text, n, EMOTION),
        _rate(text, n, WORRY),
        _rate(text, n, MINIMIZING),
        len(tx.NUMBER_RE.findall(text)) / n,
        sum(w in ("i", "i'm", "i've", "me", "my") for w in words) / n,
        text.count("!") / max(1, len(sentences)),
    ]


# --------------------------------------------------------------------------- the classifier
@dataclass(frozen=True)
class Classifier:
    """Multinomial logistic regression on standardised features."""

    classes: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (features + 1, classes)

    def predict(self, features: Sequence[Sequence[float]]) -> list[str]:
        x = _design((np.asarray(features, dtype=float) - self.mean) / self.scale)
        return [self.classes[i] for i in np.argmax(x @ self.weights, axis=1)]


def _design(x: np.ndarray) -> np.ndarray:
    return np.hstack([x, np.ones((x.shape[0], 1))])


def fit_classifier(features: Sequence[Sequence[float]], labels: Sequence[str], *, l2: float = 1e-2,
                   steps: int = 800, rate: float = 0.5) -> Classifier:
    """Fit by full-batch gradient descent; classes are weighted equally (balanced), whatever their counts."""
    if len(features) != len(labels) or not labels:
        raise ValueError(f"got {len(features)} feature rows for {len(labels)} labels")
    classes = tuple(sorted(set(labels)))
    raw = np.asarray(features, dtype=float)
    mean, scale = raw.mean(axis=0), raw.std(axis=0)
    scale[scale == 0] = 1.0
    x = _design((raw - mean) / scale)
    y = np.zeros((len(labels), len(classes)))
    y[np.arange(len(labels)), [classes.index(label) for label in labels]] = 1.0
    sample_weight = (1.0 / y.sum(axis=0))[np.argmax(y, axis=1)] / len(classes)
    w = np.zeros((x.shape[1], len(classes)))
    for _ in range(steps):
        logits = x @ w
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        w -= rate * (x.T @ ((p - y) * sample_weight[:, None]) + l2 * w)
    return Classifier(classes=classes, mean=mean, scale=scale, weights=w)


def balanced_accuracy(truth: Sequence[str], predicted: Sequence[str]) -> float:
    """The mean over the true classes of the share of that class predicted correctly."""
    if len(truth) != len(predicted) or not truth:
        raise ValueError(f"got {len(truth)} labels and {len(predicted)} predictions")
    recalls = []
    for label in sorted(set(truth)):
        rows = [p for t, p in zip(truth, predicted, strict=True) if t == label]
        recalls.append(sum(p == label for p in rows) / len(rows))
    return sum(recalls) / len(recalls)


# --------------------------------------------------------------------------- natural questions
def history_questions(turns: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The history-taking turns of a doctor's consultation, each with its question sentences
    (``verifier.rule_grader.questions``): the turns before the ``DIAGNOSIS:`` turn, order turns
    (``REQUEST TEST:`` / ``REQUEST EXAM:``) left out. A turn without a question sentence keeps an empty list."""
    from verifier.markers import parse_diagnosis, parse_test_requests
    from verifier.rule_grader import questions

    out = []
    for turn in turns:
        if parse_diagnosis(turn) is not None:
            break
        if parse_test_requests(turn):
            continue
        out.append((turn, questions(turn)))
    return out


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def points(rate: float | None, reference: float | None) -> float | None:
    """``rate - reference`` in percentage points (one decimal), None when either is unknown."""
    if rate is None or reference is None:
        return None
    return round(100 * (rate - reference), 1)


# --------------------------------------------------------------------------- what the record is silent on
# The fact topics a case records in a field of its own, by the clinical-language concepts that ask about them
# (every medicine class asks about medicines). An imported case may leave such a field empty (AgentClinic
# records never list allergies): a fact of the topic, not only one that names it, answers such a question.
RECORD_TOPICS: dict[str, str] = {"allergies": "allergies", "family_history": "family",
                                 **{concept: "medications" for concept in MEDICINES}}


def _content_words(text: str) -> set[str]:
    """Stemmed words of ``text``, stop words and generic words ("pain", "problem") aside."""
    def generic(word: str) -> bool:
        keys = clinical.concepts(word)
        return bool(keys) and all(clinical.is_generic(k) for k in keys)

    return {word for word in tx.tokens(text) if not generic(word)}


def record_silent(question: str, facts: Sequence[Fact]) -> bool:
    """Whether the case holds no fact for ``question``: no fact names anything it asks about (each group of
    clinical-language keys, ``clinical.topics``; intents, generic words and other words aside). A record
    topic (``RECORD_TOPICS``) is also answered by any fact of its topic, and medicines by a medicine named
    anywhere in the story. A pertinent negative the record never mentions ("Any headaches?" on a case
    that says nothing of headaches) is silent: "don't know" is the grounded reply, and inventing a "no"
    would be an invented fact. A question about nothing the layer knows counts as answerable. It reads the
    question and the case only, never the patient's reply, through the same layer as the patient's fact
    selection: a fact in words the layer does not know is missed by both, so the bench also reports the
    rate over every question (``fact_rate_all``)."""
    groups = [{k for k in g if clinical.is_key(k) and not clinical.is_generic(k)}
              for g in clinical.topics(question) if not g[0].startswith(clinical.INTENT)]
    groups = [g for g in groups if g]
    answered = {i for fact in facts for i in clinical.answers(fact.text)}
    if not groups:
        # only how it asks ("How long has this been going on?", "Night pain?"): silent when no fact answers that;
        # an open question ("Anything else?") asks for the story, which the record always holds
        asks = clinical.intents(question)
        return bool(asks) and not asks & answered and not is_open_question(question)
    if clinical.intents(question) & answered:
        return False  # "Any previous stones?" is answered by "No previous illnesses"
    # a word of the question in a fact the layer reads otherwise ("walk a few steps"); not for a question about a
    # record topic only, which its topic's facts answer ("drug" of "Drug allergies?" in "no drug use" answers nothing)
    topical = all(any(k in RECORD_TOPICS for k in group) for group in groups)
    if not topical and _content_words(question) & {w for fact in facts for w in _content_words(fact.text)}:
        return False
    named = [set(clinical.terms(fact.text)) for fact in facts]
    for group in groups:
        asked = {RECORD_TOPICS[k] for k in group if k in RECORD_TOPICS}
        if any(group & keys for keys in named) or any(fact.topic in asked for fact in facts):
            return False
        if "medications" in asked and any(names_medicine(fact) for fact in facts):
            return False
    return True
