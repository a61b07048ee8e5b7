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
from functools import cache
from typing import Literal

import bm25s
from pydantic import BaseModel

from patient_sim import text as tx
from patient_sim.checker import medical_lexicon
from verifier import clinical
from verifier.diagnosis import spoken
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
    r"\b(what brings|what brought|what(?:'s| has) brought|how can (?:i|we) help|what can (?:i|we) do|"
    # the Irish "What has you in today?", "What has you bringing him in?"; "Who's this wee man?" opens the story
    r"what(?:'s| has) (?:you|him|her|them) (?:in|bringing|coming|here)|who(?:'s| is) this|"
    r"tell me (more|about|a bit|a little|a wee bit|what)|go on|"
    r"anything else|what(?:'s| seems to be| is) the (problem|matter|trouble|issue)|what(?:'s| is) wrong|what(?:'s| is) up|"
    r"describe|what happened|how are you|explain|whit like|"  # round 40: the Shetland "Whit like, lass?"
    r"^\W*fit like\b|"  # round 73: the Doric "Fit like?" (how are you?)
    # rounds 41, 44 and 70: "Hey, how're you doin'?", "How's it gaun?", "Hey, how's it goin'?"
    r"how're you|how(?:'s| is) it (?:going|gaun|goin(?:'|\b))|"
    # round 87: the Newfoundland "How's she goin', my son?" and the Jamaican "Wha gwaan?" (what's going on?)
    r"how(?:'s| is) she going\b(?!\s+to\b)|wh?a+h? gwaan|"
    r"^\W*ow am (?:ya|yer|you)\b|"  # round 93: the Black Country "Ow am ya, bab?" (how are you?)
    # round 95: the Krio "Aw di bodi?" and its gloss "How is the body?" (how are you?), not a part of it ("How is the body
    # of the pancreas?")
    r"^\W*aw di bodi\b|^\W*how(?:'s| is) the body(?:\s+today)?(?=\W*$)|"
    # round 96: the Essex "You alright, babe?" and the South Wales "Alright, butt?" (how are you?)
    r"^\W*(?:(?:you|ya|are you) )?(?:alright|all right)(?:,? (?:babe|butt|love|mate|pet|hun|hon|bab|duck|darling|chick|bud))?(?=\W*$)|"
    # round 80: the Bahamian "How you feelin', darlin'?", "How ya doin'?", "how ya keepin'?"
    r"how (?:you|ya)(?: been)? (?:doin|feelin|keepin|doing|feeling|keeping)(?:'|g?\b)|"
    r"what(?:'s| is| has)(?: been)? (?:going on|happening|bothering you|troubling you)|walk me through|in your own words|"
    r"let me hear (?:about it|more|what)|"  # round 102: "Oh, let me hear about it, ya?"
    # the patient's own idea of it (round 56): "What do you think is behind it?", "What do you guys think is going on?"
    r"what do (?:you|you guys|you all|y'all) think(?:'s| is| has| might| could| caused| set| happened| it is| it's))\b",
    re.IGNORECASE,
)
_PAINLESS_RE = re.compile(r"\b(?:painless|pain-free|pain free|no pain|not painful|non-?tender|without pain)\b", re.IGNORECASE)
_STORY_TOPICS = ("hpi", "symptoms", "complaint")
_SYMPTOM_TOPICS = (*_STORY_TOPICS, "ros")
# The layer's intents that ask about a symptom's features (when, where, what like, ...): the story answers
# them, about a symptom the question names. Any other intent (could you be pregnant?) is answered by the
# facts its own answer patterns find, wherever they are.
_FEATURES = frozenset(f"intent:{i}" for i in ("onset", "site", "radiation", "character", "severity", "timing",
                                              "triggers", "relief", "previous", "progression", "associated",
                                              "impact"))
# The story answers most questions; a review-of-systems line only when it is clearly what was asked.
_TOPIC_WEIGHT = {"hpi": 1.2, "ros": 0.8}


# Words of a question that say how it is asked, not what about.
# "Which areas are affected?", "Any other joints involved?": how a question asks, not a thing it asks about
_QUERY_GLUE = frozenset(tx.stem(w) for w in ("notice", "noticed", "feel", "felt", "think", "remember", "affected",
                                             "involved"))
_GENERIC_QUERY = frozenset(tx.stem(w) for w in ("pain", "problem", "symptom", "medical", "history", "trouble"))
_GATES: dict[str, Topic] = {"family": "family", "allergy": "allergies", "medication": "medications"}
# The clinical-language layer's medicine concepts (verifier/clinical/language.yaml): a fact that names one
# ("currently taking haloperidol", "managed with enalapril") tells a medicine wherever the record put it, and a
# question that names one asks about medicines.
MEDICINES = frozenset({
    "medications", "painkillers", "blood_thinners", "antibiotics", "steroids", "hormone_therapy", "inhaler",
    "reliever_inhaler", "preventer_inhaler", "adrenaline_pen", "antihypertensives", "beta_blockers", "diuretics",
    "statins", "diabetes_medicines", "thyroid_medicines", "antipsychotics", "antidepressants", "mood_stabilisers",
    "antiepileptics", "acid_suppressants", "antihistamines", "contraceptive_pill", "antifungals", "antivirals",
    "immunosuppressant_medicines", "retinoids", "heart_medicines", "gout_medicines", "stomach_medicines",
})
# Record topics a question is answered from when it names their concept: the topic's own facts, and every
# other fact that names the same thing (a medicine in the story, an allergy in the history).
_RECORD_CONCEPTS: dict[str, Topic] = {"allergies": "allergies", **{c: "medications" for c in MEDICINES}}
# A question about past illnesses ("have you had kidney stones before?", "any heart trouble or diabetes?") that
# names one the case never mentions is answered by the history's blanket negative ("No previous illnesses"), or by
# its "otherwise healthy" with the one thing it lists ("The patient is otherwise healthy with only eczema").
_NEGATIVE_RE = re.compile(r"^\s*(?:no|not|none|nothing|never|denies|otherwise healthy|previously (?:fit|healthy))\b",
                          re.IGNORECASE)
_HEALTHY_RE = re.compile(r"^\s*(?:(?:the patient|he|she|they) (?:is|are|was|were|has been|have been) )?"
                         r"(?:otherwise|previously) (?:healthy|fit|well)\b", re.IGNORECASE)
_PAST_KEYS = frozenset({"past_history", "intent:previous"})
# past illnesses of the mind too: "Psych history?" is answered by "No significant past medical history"
_PAST_CONCEPTS = frozenset({"past_history", "mental_health_history"})
# A blanket negative about a body system: "Denies ... any respiratory, gastrointestinal or urinary symptoms".
_DENIES_SYSTEM_RE = re.compile(r"\b(?:denies|no|not|without|negative for)\b[^.;]*\b(?:symptoms?|problems?|complaints?|deficits?|diseases?)\b",
                               re.IGNORECASE)
# "No change in bowel habits or urination": a blanket negative about what the bowels and the bladder do, not about the
# whole gut ("Diarrhoea or constipation?" and "Wet nappies?" are answered; "Any vomiting?" is not)
_NO_CHANGE_RE = re.compile(r"\bno (?:\w+ )?(?:changes? (?:in|to)|change of) (?:\w+ )?(?:bowel habits?|bowels?|urination|"
                           r"waterworks|stools?)\b", re.IGNORECASE)
# "Other symptoms: weight loss, fatigue?" where the record says only "No other physical complaints or symptoms": the
# blanket negative about anything else answers what is asked as other symptoms (round 66); "Fatigue?" alone it does not
_NO_OTHER_RE = re.compile(r"\b(?:no|denies(?: any)?|without(?: any)?|not report(?:ing)? any|negative for(?: any)?)\s+other\b"
                          r"[^.;]*\b(?:symptoms?|complaints?|problems?)\b", re.IGNORECASE)
# "Does your jaw ache when you chew?" where the record names no jaw: its "no pain elsewhere in the body" answers it.
_NO_PAIN_ELSEWHERE_RE = re.compile(r"\bno (?:other )?(?:pains?|aches?)(?: or \w+)? (?:elsewhere|anywhere else)\b"
                                   r"|\bno other (?:pains?|aches)\b", re.IGNORECASE)
# "Allergic to any antibiotics?": the medicine named is what the allergy is to, not a medicine taken.
_ALLERGIC_TO_RE = re.compile(r"\ballerg\w*\s+(?:to|with|from)\b[^,;.?!]*?(?=,|;|\band\b|\bor\b|[.?!]|$)",
                             re.IGNORECASE)
# What a reaction to a medicine looks like: told with the medicine, it answers "any allergies?"
_REACTIONS = frozenset({"rash", "swelling", "anaphylaxis", "itch"})
_TOPIC_CONCEPT: dict[str, Topic] = {"allergies": "allergies", "family_history": "family", "past_history": "history"}


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
    # the birth or the pregnancy a record gives with the age: "Newborn, born after the 32nd gestational week"
    about += [part.strip()[:1].upper() + part.strip()[1:] for part in (demo.description or "").split(",")
              if _GESTATION_RE.search(part)]
    add("demographics", about)
    return facts


_GESTATION_RE = re.compile(r"\b(?:born|gestation\w*)\b", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip())
    return [p for p in parts if p.strip()]


def _layer_keys(text: str) -> list[str]:
    """The clinical-language layer's keys of ``text``, generic ones ("pain") left to the stems."""
    return [k for k in clinical.concepts(text) if not clinical.is_generic(k)]


def is_body_part(key: str) -> bool:
    """A body-part concept: one whose id is also a body site of the layer ("back", "chest", "abdomen")."""
    return ":" not in key and clinical.is_key(clinical.SITE + key)


def _about_pain_only(fact: str, complaint: set[str]) -> bool:
    """A fact about pain and nothing else ("No pain", "Painless"), or one that denies pain in what the complaint names
    ("Lesions are painless" where the complaint is the lesions)."""
    concepts = set(clinical.concepts(fact))
    if "pain" not in concepts:
        return False
    rest = {k for k in concepts if not clinical.is_generic(k)}
    return not rest or bool(_PAINLESS_RE.search(fact)) and all(k.startswith(clinical.SITE) or k in complaint for k in rest)


def _place(group: tuple[str, ...]) -> bool:
    """A group of a question's keys that only names a place on the body ("to your back")."""
    return all(k.startswith(clinical.SITE) or is_body_part(k) for k in group)


def _topic_concepts(fact: Fact) -> set[str]:
    """The record concepts a fact is about by its topic or its medicines: ``medications`` for a medicine
    anywhere; ``allergies``, ``family_history`` and ``past_history`` for those topics' facts, and ``allergies``
    for a reaction to a medicine told anywhere."""
    concepts = {concept for concept, topic in _TOPIC_CONCEPT.items() if fact.topic == topic}
    if names_medicine(fact):
        concepts.add("medications")
    if reacted_to_medicine(fact):  # a rash on amoxicillin is the allergy history
        concepts.add("allergies")
    return concepts


def reacted_to_medicine(fact: Fact) -> bool:
    """A fact that tells a reaction to a medicine ("treated with amoxicillin, during which she developed a rash"):
    the allergy history a patient gives when asked about allergies."""
    return fact.topic != "allergies" and names_medicine(fact) and bool(_REACTIONS & set(_layer_keys(fact.text)))


def names_medicine(fact: Fact) -> bool:
    """Whether ``fact`` tells a medicine the patient takes or took: a fact of the medicines topic, or one that
    names a medicine of any class (an allergy to one is an allergy, not a medicine taken)."""
    return fact.topic == "medications" or (fact.topic != "allergies" and bool(set(_layer_keys(fact.text)) & MEDICINES))


def fact_answers(fact: Fact) -> list[str]:
    """The intents a fact answers (``clinical.answers``). A symptom's features (when, where, what like, how
    bad, what brings it on, ...) are told by the story and the review of systems, never by the history, the
    medicines or the social history ("found last year" does not date the complaint); any fact may say
    whether something happened before. A symptom told with its body part ("severe abdominal pain") answers
    where it is."""
    answered = [k for k in clinical.answers(fact.text)
                if fact.topic in _SYMPTOM_TOPICS or k == "intent:previous" or k not in _FEATURES]
    if fact.topic in _SYMPTOM_TOPICS and "intent:site" not in answered and not _NEGATIVE_RE.match(fact.text) \
            and any(is_body_part(k) for k in _layer_keys(fact.text)):
        answered.append("intent:site")
    return answered


def _fact_keys(fact: Fact) -> list[str]:
    """What a fact adds to its index entry from the layer: its concepts, ``medications`` where it names a
    medicine of any class, and the intents it answers (``fact_answers``)."""
    keys = _layer_keys(fact.text)
    if names_medicine(fact) and "medications" not in keys:
        keys.append("medications")
    if reacted_to_medicine(fact) and "allergies" not in keys:
        keys.append("allergies")
    return keys + fact_answers(fact)


@cache
def _lexicon_stems() -> frozenset[str]:
    return frozenset(clinical.stem(w) for w in medical_lexicon())


# The keys that make a question one about a record topic: allergies, medicines, the family.
_ABOUT_RECORD = frozenset({*_RECORD_CONCEPTS, "family_history", "allergy", "medication", "family"})


def _things(question: str) -> list[tuple[str, ...]]:
    """What ``question`` asks about, one group per thing (``clinical.topics``: a concept with the phrases
    inside it, or another clinical word); intents, generic words and glue words aside."""
    return [group for group in clinical.topics(question)
            if not group[0].startswith(clinical.INTENT) and not _generic(group) and group[0] not in _QUERY_GLUE
            and (any(clinical.is_key(k) for k in group) or group[0] in _lexicon_stems())]


def _specific(group: tuple[str, ...]) -> set[str]:
    """The keys a group is about: its concepts, generic ones aside; a test or site it may also name only
    where it names no concept ("chest" is the chest, not whatever names the chest as a site)."""
    specific = {k for k in group if not clinical.is_generic(k)}
    concepts = {k for k in specific if not k.startswith((clinical.SITE, clinical.TEST, clinical.METHOD))}
    return concepts or specific


def _site_parts(group: tuple[str, ...]) -> set[str]:
    """The parts of the composite sites a group names (the joints: the hip, the knee, ...)."""
    return {p for k in group if k.startswith(clinical.SITE) for p in clinical.parts_of(k)}


def _generic(group: tuple[str, ...]) -> bool:
    """A group that names nothing specific: generic words only ("pain"), or a generic word whose other keys
    are only the test or site the same word may name ("sore": pain, or a lesion)."""
    specific = [k for k in group if not clinical.is_generic(k)]
    return not specific or (len(specific) < len(group)
                            and all(k.startswith((clinical.SITE, clinical.TEST, clinical.METHOD)) for k in specific))


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
        # a symptom at a body part the complaint does not name tells where else it is ("Any other sites?" of blisters on
        # the forearm: "Ulcers on the buccal and vulvar mucosa", round 63)
        parts = [{k for k in _layer_keys(f.text) if is_body_part(k)} for f in facts]
        complaint_parts = set().union(*(p for p, f in zip(parts, facts, strict=True) if f.topic == "complaint"))
        elsewhere = [["intent:elsewhere"] if complaint_parts and f.topic in ("hpi", "symptoms") and p - complaint_parts
                     and not _NEGATIVE_RE.match(f.text) else [] for p, f in zip(parts, facts, strict=True)]
        corpus = [tx.tokens(f.text) + tx.tokens(_TOPIC_WORDS[f.topic]) + _content_words(f) + _fact_keys(f) + extra
                  for f, extra in zip(facts, elsewhere, strict=True)]
        self._retriever = bm25s.BM25()
        self._retriever.index(corpus, show_progress=False)
        self._vocab = {t for doc in corpus for t in doc}
        self._own = [set(tx.tokens(f.text)) | set(_layer_keys(f.text)) | _topic_concepts(f) for f in facts]
        # every key and stem a fact names, nested ones too, and the record concept of its topic
        self._terms = [set(clinical.terms(f.text)) | _topic_concepts(f) for f in facts]
        self._named = set().union(*self._terms)
        complaint = {k for f in facts if f.topic == "complaint" for k in clinical.concepts(f.text)}
        self._pain_only = [_about_pain_only(f.text, complaint) for f in facts]
        self._answers = [set(fact_answers(f)) | set(extra) for f, extra in zip(facts, elsewhere, strict=True)]
        topics = {f.topic for f in facts}
        self._gates = {token: topic for token, topic in _GATES.items() if topic in topics}
        self._context = ""  # the last question that named something: what "How much?" is about

    def _allowed(self, question: str, query: list[str], keys: list[str]) -> set[int] | None:
        """The facts a question only about the family, allergies or medicines is answered from (None: any
        fact). The family: that topic's facts, when it has some. Allergies and medicines: that topic's facts
        and every other fact that names the same kind of thing ("currently taking haloperidol" in the story
        answers "any meds?"), none when there is none: the record is silent and the answer "don't know". A
        question that also asks about something else ("fever? meds?") is not held to the topic."""
        topics = {self._gates[t] for t in query if t in self._gates}
        record = {_RECORD_CONCEPTS[k] for k in keys if k in _RECORD_CONCEPTS}
        # the family's allergies are its history, not the patient's allergy list: "Family history of eczema, psoriasis
        # or allergies?" is answered by the father's psoriasis (round 51)
        if "family_history" in keys:
            record.discard("allergies")
        # "Allergic to penicillin?" asks about an allergy: the medicine is what it is to, not one taken.
        rest = _ALLERGIC_TO_RE.sub(" ", question)
        if rest != question and "medications" not in topics and not MEDICINES & set(_layer_keys(rest)):
            record.discard("medications")
        if not topics and not record:
            return None
        if any(not set(group) & _ABOUT_RECORD for group in _things(question) if any(map(clinical.is_key, group))):
            return None
        topics |= record
        # the family is answered from its own topic only ("lives with both parents" is no family history)
        named = {concept for concept in ("allergies", "medications") if concept in topics}
        return {i for i, f in enumerate(self.facts) if f.topic in topics or named & self._terms[i]}

    def _missing(self, question: str) -> list[tuple[str, ...]]:
        """What ``question`` asks about that no fact names (a composite site is named by its parts: "which
        joints?" by the hips and knees of the story)."""
        return [group for group in _things(question) if not (_specific(group) | _site_parts(group)) & self._named]

    def _answers_anyway(self, i: int, intents: set[str], missing: list[tuple[str, ...]], pain: bool = False,
                        other: bool = False) -> bool:
        """Whether fact ``i`` answers a question that names something no fact mentions: a question about a
        feature of the complaint at a place the case does not name ("tearing, through to your back?") is
        answered by the story's own site, spread or character ("crushing, spreading to the left arm"); one
        about a past illness the case does not name, by the history's blanket negative; one about pain at a place the
        case does not name, by its "no pain elsewhere"; one about pain and something else ("painful or itchy?"), by a
        fact about pain alone ("No pain"); one about a symptom of a body system, by a blanket negative about that
        system ("Denies any respiratory symptoms"); one that asks about other symptoms (``other``), by a blanket
        negative about anything else ("No other physical complaints"); one about a lay symptom, by a finding the layer
        tells as it (``told_as``: "No respiratory distress" answers "Out of breath?")."""
        fact = self.facts[i]
        if other and missing and _NO_OTHER_RE.search(fact.text) and not any(map(_place, missing)):
            return True
        if pain and _NO_PAIN_ELSEWHERE_RE.search(fact.text) and all(any(_place((k,)) for k in g) for g in missing):
            return True
        # "Is it painful or itchy?" where the record says only "No pain": the part it answers
        if pain and self._pain_only[i] and not any(_place((k,)) for g in missing for k in g):  # pain somewhere else
            return True
        # "Denies any respiratory symptoms" answers "Breathless?"; "no change in bowel habits" answers what the bowels
        # do, not the whole gut its site stands for
        denies = _DENIES_SYSTEM_RE.search(fact.text)
        if missing and (denies or _NO_CHANGE_RE.search(fact.text)):
            systems = self._terms[i] if denies else {k for k in self._terms[i] if not k.startswith(clinical.SITE)}
            covered = frozenset().union(*map(clinical.system_symptoms, systems))
            if covered and any(set(group) & covered for group in missing):  # the part it answers
                return True
        # "Out of breath?" where the record states only "No respiratory distress": a sign answers the lay symptom it is
        # told as (the patient's relation; the grader does not read it)
        told = frozenset().union(*map(clinical.told_as, self._terms[i]))
        if told and any(set(group) & told for group in missing):
            return True
        if (intents - _FEATURES) & self._answers[i]:  # an intent that names its own subject ("pregnant?")
            return True
        if (intents - {"intent:previous", "intent:associated"}) & self._answers[i] and fact.topic in _STORY_TOPICS \
                and all(_place(group) for group in missing):
            return True
        past = bool(_PAST_KEYS & intents) or any(_PAST_CONCEPTS & set(group) or any(map(clinical.is_condition, group))
                                                 for group in missing)
        if not past or fact.topic != "history":
            return False
        # (who told it is no part of it: "No significant past medical history reported by the roommates")
        return bool(_HEALTHY_RE.match(fact.text)) or bool(_NEGATIVE_RE.match(fact.text)) \
            and not (set(_layer_keys(fact.text)) - _PAST_KEYS - {"surgery", "hospital_admission", "home_situation"})

    def select(self, question: str, revealed: set[str] | None = None) -> list[Fact]:
        """The facts that answer ``question``; for an open question, the next untold part of the story.

        A question that has no word of its own beyond how it asks ("How much?", "Doing what?", "When did you
        first notice it?") and finds nothing by itself is read with the last question that named something
        (the index remembers it: one index per consultation), or, before any, with the complaint."""
        revealed = revealed or set()
        question = spoken(_ENUMERATOR_RE.sub("", question))  # "One: when was she last normal?"; "what's goin' on?"
        # "What's the problem?" is an open question, not one about past problems: a word that names nothing ("problem",
        # "trouble") finds the story
        chosen = None if _OPEN_QUESTION_RE.search(question) and not _things(question) \
            else self._select_one(question, revealed)
        if chosen is None:  # several questions in one sentence: "When did you notice it, and is it growing?"
            clauses = [c for c in _CLAUSE_RE.split(question) if c.strip()]
            if len(clauses) > 1:
                found: list[Fact] = []
                for clause in clauses:
                    found.extend(f for f in self._select_one(clause, revealed) or [] if f not in found)
                chosen = found[: self.max_facts] or None
        if _things(question):
            self._context = question
        if chosen:
            return chosen
        if _OPEN_QUESTION_RE.search(question):
            untold = [f for f in self.facts if f.topic in _STORY_TOPICS and f.text not in revealed]
            return untold[: self.max_facts]
        return []

    def _select_one(self, question: str, revealed: set[str]) -> list[Fact] | None:
        """``_select``, and for a question with no word of its own, the same read with the context."""
        chosen = self._select(question, revealed)
        if chosen is None and not _OPEN_QUESTION_RE.search(question) and self._follows_up(question):
            context = self._context or self.facts[0].text
            chosen = self._select(f"{context} {question}", revealed)
        return chosen

    def _follows_up(self, question: str) -> bool:
        """Whether ``question`` is about the last thing asked: it has no word of its own beyond how it asks, or it
        is a word or two (one before anything was asked) that names nothing clinical ("Intentional?", "How
        exactly?", "What do they say?"). One that names a clinical thing the case lacks ("Travel?") is not, nor a
        longer question about something else."""
        if all(g[0].startswith(clinical.INTENT) or _generic(g) for g in clinical.topics(question)):
            return True
        if len(tx.tokens(question)) > (2 if self._context else 1):
            return False
        missing = self._missing(question)
        if not missing:
            return True
        # "Dysuria? Blood?": a word or two that name only a place or a fluid, and with the last question name what the
        # record names (haematuria); "Cough? Blood?" where the record has no haemoptysis is not answered from the cough
        if not self._context or not all(_place(group) for group in missing):
            return False
        read = frozenset(clinical.terms(f"{self._context} {question}"))
        return bool((clinical.compose(read) - read) & self._named)

    def _select(self, question: str, revealed: set[str]) -> list[Fact] | None:
        """The facts the words of ``question`` find, or None."""
        keys = _layer_keys(question)
        # what the question names by its parts: "Dysuria? Blood?" read together asks about haematuria
        keys += sorted(clinical.compose(frozenset(clinical.terms(question))) - set(clinical.terms(question)))
        intents = clinical.intents(question)
        asked = [t for t in tx.tokens(question) if t not in _QUERY_GLUE]
        # for a thing no fact names, the concepts inside it ("dark pee" is also about the waterworks) and a
        # composite site's parts ("which joints?": the hips, the knees)
        inside = [k for group in _things(question) if group[0] not in self._named
                  for k in (*group, *sorted(_site_parts(group))) if clinical.is_key(k)]
        asked += [k for k in [*keys, *inside, *sorted(intents)] if k not in asked]
        if set(keys) & MEDICINES and "medications" not in asked:  # a kind of medicine is a medicine
            asked.append("medications")
        query = [t for t in asked if t in self._vocab]
        # The question names something clinical that no fact mentions ("any chest pain?" with no chest in the
        # case): a fact that shares only a generic word with it ("pain") does not answer it.
        missing = self._missing(question)
        pain = any("pain" in group for group in clinical.topics(question))
        other = "intent:associated" in intents  # "Other symptoms: fatigue?"
        specific = {t for t in query if t not in _GENERIC_QUERY}
        allowed = self._allowed(question, query, keys)
        scored: list[tuple[float, int]] = []
        if query:
            scores = self._retriever.get_scores(query)
            for i, score in enumerate(scores):
                if allowed is not None and i not in allowed:
                    continue
                if missing and allowed is None and not specific & self._own[i] \
                        and not self._answers_anyway(i, set(intents), missing, pain, other):
                    continue
                # Prefer what has not been said yet, so follow-up questions move the story on.
                weight = 0.8 if self.facts[i].text in revealed else 1.0
                weight *= _TOPIC_WEIGHT.get(self.facts[i].topic, 1.0)
                scored.append((float(score) * weight, i))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        # A fact that names what the question is about beats one that shares only the broader words around it: "Any
        # blood in your urine?" is answered by "No fever, hematuria, ...", not by "No involuntary loss of urine"
        leaves = {group[0] for group in clinical.topics(question) if clinical.is_key(group[0]) and not _generic(group)
                  and not _place(group) and not group[0].startswith((clinical.INTENT, clinical.TEST, clinical.METHOD))}
        leaves |= set(keys) - set(_layer_keys(question))  # what it names by its parts ("Dysuria? Blood?": haematuria)
        naming = [pair for pair in scored if pair[0] > 0 and (leaves & self._terms[pair[1]]
                                                              or intents & self._answers[pair[1]])]
        if naming and naming[0][0] >= self.min_score:
            scored = naming
        if scored and scored[0][0] >= self.min_score:
            best = scored[0][0]
            chosen = [i for score, i in scored[: self.max_facts] if score >= max(self.min_score, 0.6 * best)]
            return [self.facts[i] for i in sorted(chosen)]
        # "PMH?", "FHx?": a record topic asked by name alone is answered by that topic's facts
        topics = {_TOPIC_CONCEPT[k] for k in keys if k in _TOPIC_CONCEPT}
        told = [f for f in self.facts if f.topic in topics]
        # "Any diabetes?" where the record names none: the history's blanket negative, if it has one; "Breathless?" where
        # it names no breathing: its "denies any respiratory symptoms"
        if not told and missing and "family_history" not in keys:  # the family's illnesses are not the patient's
            past = {"intent:previous"} if any(map(clinical.is_condition, (k for g in missing for k in g))) else set()
            told = [f for i, f in enumerate(self.facts)
                    if (allowed is None or i in allowed) and self._answers_anyway(i, past, missing, other=other)]
        # "Syncope?" where the record says "feeling faint": a fact names the concept only inside a phrase of another
        # ("feel faint" is dizziness, with the faint inside it), so the index's keys miss it; the fact still answers
        if not told and not query and allowed is None:
            wanted = {k for group in _things(question) for k in _specific(group)}
            told = [f for i, f in enumerate(self.facts) if wanted & self._terms[i]]
        return told[: self.max_facts] or None


# A checklist's numbering before a question: "One: when was she last normal?", "2) Any fever?" (round 46)
_ENUMERATOR_RE = re.compile(r"^\s*(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s*[:.)]|\(?\d{1,2}\))\s+",
                            re.IGNORECASE)
# Where one sentence asks two questions: ", and how fast ...", " or does it ...".
_CLAUSE_RE = re.compile(r",\s*(?:and|or)\s+|\s+(?:and|or)\s+(?=(?:how|what|when|where|which|does|did|do|is|are|has|"
                        r"have|had|can|could|any)\b)", re.IGNORECASE)


def is_open_question(question: str) -> bool:
    return bool(_OPEN_QUESTION_RE.search(spoken(question)))
