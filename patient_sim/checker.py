"""The leak checker: a simulated patient's draft reply may state only what it was allowed to state.

Rules, each decidable without a model (the embedded model is too weak to police itself):

* never the diagnosis, its synonyms, its distinctive words or a differential term, unless the patient's
  own allowed facts contain it (a patient with asthma may say "asthma");
* no number that is not in the allowed facts (test values, doses, durations are never invented);
* no word from the hidden part of the case (unselected facts, examination, tests, diagnosis) that the
  allowed text does not contain;
* no role confusion ("as an AI", "Doctor:", "diagnosis", "You have ...") and a sane length, no loop;
* at most a few content words that are supported by nothing (a paraphrase may add some glue, not facts).
* when told what to keep (the reply the model restyles), every number and clinical term of it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel

from patient_sim import text as tx
from verifier.types import Case

# Words a patient may always use: glue, feelings, hedges and time words carry no case facts.
COMMON = frozenset(
    tx.stem(w)
    for w in """feel felt think know sure notic bit little lot quite really bad worse better good fine okay
    worry worried scared afraid anxious hope help today yesterday now lately recently time times day days
    week weeks month months year years hour hours sometimes often always never usually bit kind sort thing
    things mean maybe probably perhaps guess say said told tell remember recall honestly actually just
    like get got go going come came make made seem seems sorry doctor yes no not sir madam um uh hmm well
    nothing anything something much many more less very too also still again first last new old same
    other whole since ago back lot lots unwell ill sick poorly trouble problem problems worst terrible awful
    happen happened started start starting keep kept take taking took want need know find found look
    people person man woman life home work thank thanks try tried trying""".split()
)
_ROLE_RE = re.compile(
    r"\b(as an ai|language model|assistant|doctor\s*:|patient\s*:|user\s*:|system prompt|case file|"
    r"request test|diagnos\w*|my instructions|help you|here to help|assist you|how can i help|short sentences?|one sentence|first person|"
    r"role[- ]?play|these facts|you('re| are| have|'ve) (a patient|been told|told)|talking to a doctor|i'?m (a |not a )?(doctor|medic|nurse|physician)|i am (a |not a )?(doctor|medic))\b",
    re.IGNORECASE,
)
# The patient speaks of themselves in the first person: "You have no allergies" is the doctor's voice.
# A sentence may open with "You know," or ask "You can tell me?", not tell the patient's facts as "You smoke".
_SECOND_PERSON_RE = re.compile(
    r"(?:^|[.!?]\s+)(?:well,?\s+|so,?\s+)?you(?!\s+(?:know|see|tell|mean|can|could|should|will|would|might|must|"
    r"may|need|doctor)\b)\b", re.IGNORECASE)
_GENERIC_DX_WORDS = frozenset(
    tx.stem(w)
    for w in """acute chronic severe primary secondary left right upper lower disease disorder syndrome
    infection episode type with from the and of due to moderate mild moderately major minor tract
    uncomplicated complicated inflammation""".split()
)
LEAK_REASONS = frozenset({"diagnosis", "number", "hidden", "role", "contradiction", "invented"})
_HEDGES_RE = re.compile(
    r"\b(i'?m not (really |quite |too |completely |entirely |totally )?sure|not sure|i (do not|don'?t) (really )?(know|remember|recall)|"
    r"not that i (know|remember|recall)|i can'?t (really )?(say|remember|recall)|no idea|i'?m not certain)\b",
    re.IGNORECASE,
)
_NEGATION_RE = re.compile(
    r"\b(no|not|never|none|nothing|don'?t|doesn'?t|didn'?t|haven'?t|hasn'?t|isn'?t|wasn'?t|aren'?t|can'?t|"
    r"cannot|without|denies|deny|neither|nor)\b|n't\b",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(r"[.!?;]+|,\s*(?:but|though|although)\b")
# What a reply of each kind must contain to count as that kind of answer.
_KIND_RE = {
    "refusal": re.compile(r"\b(know\w*|sure|idea|tell|told|find out|follow)\b", re.IGNORECASE),
    "unsure": re.compile(r"\b(sure|notic\w*|know\w*|think|remember|recall|idea|can'?t say|couldn'?t say|"
                         r"certain\w*|aware|tell you|not that)\b", re.IGNORECASE),
    "consent": re.compile(r"\b(yes|yeah|sure|of course|okay|ok|fine|go ahead|all right|alright|certainly|by all means)\b",
                          re.IGNORECASE),
}


class CheckResult(BaseModel):
    ok: bool
    reason: str | None = None
    detail: str = ""


class LeakChecker:
    """Built once per case; ``check()`` is called per draft with the currently allowed text."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.banned_phrases = [
            p for p in [case.final_diagnosis, *case.diagnosis_synonyms, *case.differential] if p.strip()
        ]
        self.banned_words = {
            t for t in tx.tokens(case.final_diagnosis) if len(t) >= 5 and t not in _GENERIC_DX_WORDS
        }
        hidden_text = " ".join(
            [case.final_diagnosis, *case.diagnosis_synonyms, *case.differential,
             *case.physical_exam.keys(), *case.physical_exam.values(),
             *case.test_results.keys(), *case.test_results.values()]
        )
        self._hidden_base = set(tx.tokens(hidden_text))
        self.vocabulary = clinical_vocabulary(case)

    def check(
        self,
        reply: str,
        *,
        allowed: str,
        hidden_facts: str = "",
        question: str = "",
        selected: list[str] | None = None,
        kind: str = "facts",
        keep: list[str] | None = None,
    ) -> CheckResult:
        """``allowed`` = selected + already revealed facts; ``hidden_facts`` = the facts not selected;
        ``selected`` = the facts this reply must convey (for ``kind="facts"``); ``keep`` = sentences whose
        every number and clinical term (of this case or the lexicon) the reply must still contain — a
        restyled reply may change the words around a fact, never drop part of it."""
        words = reply.split()
        if not reply.strip():
            return CheckResult(ok=False, reason="empty")
        if len(words) > 70:
            return CheckResult(ok=False, reason="length", detail=f"{len(words)} words")
        if _looping(words):
            return CheckResult(ok=False, reason="repetitive", detail="a phrase said three times")
        for pattern in (_ROLE_RE, _SECOND_PERSON_RE):
            role = pattern.search(reply)
            if role and not pattern.search(allowed):
                return CheckResult(ok=False, reason="role", detail=role.group(0).strip())
        for phrase in self.banned_phrases:
            if tx.contains_phrase(reply, phrase) and not tx.contains_phrase(allowed, phrase):
                return CheckResult(ok=False, reason="diagnosis", detail=phrase)
        allowed_tokens = set(tx.tokens(allowed))
        reply_tokens = tx.tokens(reply)
        for token in reply_tokens:
            if token in self.banned_words and token not in allowed_tokens:
                return CheckResult(ok=False, reason="diagnosis", detail=token)
        # Numbers only from the facts selected for this turn ("20 cigarettes" must not become "20 years").
        extra_numbers = tx.numbers(reply) - tx.numbers("\n".join(selected or []))
        if extra_numbers:
            return CheckResult(ok=False, reason="number", detail=", ".join(sorted(extra_numbers)))
        # Question words are not exempt: echoing "did the scan show a clot?" would confirm a guess.
        hidden = (self._hidden_base | set(tx.tokens(hidden_facts))) - allowed_tokens - COMMON
        leaked = [t for t in reply_tokens if t in hidden]
        if leaked:
            return CheckResult(ok=False, reason="hidden", detail=", ".join(dict.fromkeys(leaked)))
        question_tokens = set(tx.tokens(question))
        invented = [t for t in reply_tokens if t in medical_lexicon() and t not in allowed_tokens]
        if invented:
            return CheckResult(ok=False, reason="invented", detail=", ".join(dict.fromkeys(invented)))
        unsupported = [
            t for t in reply_tokens
            if t not in allowed_tokens and t not in COMMON and t not in question_tokens and not t.isdigit()
        ]
        if len(unsupported) > 4 and len(unsupported) > 0.5 * max(1, len(reply_tokens)):
            return CheckResult(ok=False, reason="unsupported", detail=", ".join(dict.fromkeys(unsupported)))
        if kind in _KIND_RE and not _KIND_RE[kind].search(reply):
            return CheckResult(ok=False, reason="off_task", detail=f"not a {kind} reply")
        if kind == "facts" and selected:
            wanted = set(tx.tokens(" ".join(selected)))
            if wanted and not wanted & set(reply_tokens):
                return CheckResult(ok=False, reason="off_task", detail="states none of the selected facts")
            # Polarity: "I do not smoke" must not answer the fact "Smokes 20 a day" (and vice versa).
            # Only the clauses that tell a fact, or that the allowed text does not hold, count: "My father...
            # no, sorry, let me start again" or "It's not that bad, really" from the template is not a denial.
            facts_negative = [bool(_NEGATION_RE.search(f)) for f in selected]
            flat, unhedged = f" {tx.reply_key(allowed)} ", _HEDGES_RE.sub(" ", reply)
            content = (wanted - COMMON) or wanted
            clauses = [c for c in _CLAUSE_SPLIT.split(unhedged) if tx.reply_key(c)
                       and (content & set(tx.tokens(c)) or f" {tx.reply_key(c)} " not in flat)] or [unhedged]
            reply_negative = any(_NEGATION_RE.search(c) for c in clauses)
            if reply_negative and not any(facts_negative):
                return CheckResult(ok=False, reason="contradiction", detail="negates a positive fact")
            if not reply_negative and all(facts_negative):
                return CheckResult(ok=False, reason="contradiction", detail="affirms a negative fact")
        if keep:
            kept = " ".join(keep)
            dropped = sorted(tx.numbers(kept) - tx.numbers(reply))
            # a number keeps its unit: "for 35 years" must not become "for 35 days" or a bare "35"
            dropped += sorted(" ".join(pair) for pair in _quantities(kept) - _quantities(reply))
            present = set(reply_tokens)
            dropped += [t for t in dict.fromkeys(tx.tokens(kept)) if t in self.vocabulary and t not in present]
            if dropped:
                return CheckResult(ok=False, reason="dropped", detail=", ".join(dropped))
        return CheckResult(ok=True)


_QUANTITY_RE = re.compile(r"(\d+(?:[.,]\d+)?)\s*-?\s*([A-Za-z]+)")


def _quantities(text: str) -> set[tuple[str, str]]:
    """(number, the word after it) pairs, the word stemmed; glue words after a number are not units."""
    pairs = set()
    for number, word in _QUANTITY_RE.findall(text):
        if word.lower() not in tx.STOPWORDS:
            pairs.add((number.replace(",", "."), tx.stem(word.lower())))
    return pairs


def _looping(words: list[str]) -> bool:
    """A draft stuck in a loop ("I'm not sure, I'm not sure, I'm not sure"): a three-word phrase thrice."""
    plain = [w.strip(",.;:!?").lower() for w in words]
    counts: dict[tuple[str, ...], int] = {}
    for i in range(len(plain) - 2):
        key = tuple(plain[i : i + 3])
        counts[key] = counts.get(key, 0) + 1
        if counts[key] >= 3:
            return True
    return False


def clinical_vocabulary(case: Case) -> frozenset[str]:
    """The clinical lexicon and every content word of ``case``'s record (less glue words): a word outside
    it carries no clinical fact of this case."""
    return _clinical_vocabulary(case.model_dump_json())


@lru_cache(maxsize=512)
def _clinical_vocabulary(case_json: str) -> frozenset[str]:
    own = tx.tokens(_record_text(Case.model_validate_json(case_json)))
    words = medical_lexicon() | {t for t in own if not t.isdigit() and len(t) > 2}
    return frozenset(t for t in words if "'" not in t) - COMMON


def _record_text(case: Case) -> str:
    return " ".join(
        [case.chief_complaint, case.history_of_present_illness, case.final_diagnosis,
         *case.primary_symptoms, *case.secondary_symptoms, *case.past_medical_history,
         *case.social_history, *case.family_history, *case.medications, *case.allergies,
         *case.review_of_systems, *case.physical_exam, *case.physical_exam.values(),
         *case.test_results, *case.test_results.values(), *case.diagnosis_synonyms, *case.differential]
    )


@lru_cache(maxsize=1)
def medical_lexicon() -> frozenset[str]:
    """Clinical vocabulary (every word of the project's cases, less glue words): a reply may use such a
    word only when its allowed facts do, so a weak model cannot invent a symptom, drug or body part."""
    from patient_sim.cases import project_cases

    words: set[str] = set()
    for case in project_cases():
        words.update(t for t in tx.tokens(_record_text(case)) if not t.isdigit() and len(t) > 2)
    return frozenset(words - COMMON)
