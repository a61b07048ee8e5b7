"""Lexical helpers shared by fact selection and the leak checker.

The clinical-language layer's stemmer plus the patient's synonym table, so that "smoke" matches "smoker",
"pain" matches "hurts" and "ECG" matches "electrocardiogram" without any model (what an order names and
what a question asks about are the layer's: ``verifier.clinical``).
"""

from __future__ import annotations

import re

from verifier import clinical

_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)?")

# The clinical-language layer's stop words and stemmer: the patient reads words as the grader does.
STOPWORDS = clinical.STOPWORDS

# Canonical token for groups of words a patient and a doctor use for the same thing.
_SYNONYM_GROUPS: dict[str, tuple[str, ...]] = {
    "pain": ("pain", "hurt", "ache", "achy", "sore", "agonis", "agoniz", "discomfort", "tender", "burn", "painles",
             "nontend"),
    "smoke": ("smoke", "smok", "cigarette", "cigarett", "tobacco", "cigar", "vape", "vap"),
    "alcohol": ("alcohol", "drink", "drank", "beer", "wine", "pint", "unit", "spirit", "booze"),
    "medication": ("medication", "medic", "medicine", "meds", "pill", "tablet", "prescription", "prescrib"),
    "allergy": ("allergy", "allergi", "allerg"),
    "breath": ("breath", "breathless", "breathe", "breath", "dyspnoea", "dyspnea", "puff", "wheez"),
    "vomit": ("vomit", "throw", "puk", "sick"),
    "nausea": ("nausea", "nause", "queasy"),
    "fever": ("fever", "feveri", "temperature", "shiver", "chill", "rigor", "hot"),
    "stool": ("stool", "poo", "bowel", "faec", "fec", "motion"),
    "urine": ("urine", "urinat", "urinary", "wee", "pee", "urinalysi", "dipstick"),
    "family": ("family", "famili", "mother", "father", "brother", "sister", "parent", "relative", "mum", "dad"),
    "work": ("work", "job", "occupation", "employ", "career"),
    "abdomen": ("abdomen", "abdominal", "tummy", "belly", "stomach"),
    "swell": ("swell", "swollen", "puffy", "oedema", "edema"),
    "dizzy": ("dizzy", "dizzi", "lightheaded", "faint", "spin", "vertigo"),
    "tired": ("tired", "tiredness", "fatigue", "exhaust", "weary", "energy"),
    "weight": ("weight", "weigh", "kg", "pound", "stone"),
    "blood": ("blood", "bleed", "bled", "haemorrhag", "hemorrhag", "bloody"),
    "period": ("period", "menstrual", "menstruat", "mens"),
    "pregnant": ("pregnant", "pregnanc"),
    "onset": ("start", "began", "begin", "onset", "ago", "since", "long", "when"),
    "rash": ("rash", "spot", "blister", "hive", "urticaria"),
    "eye": ("eye", "vision", "sight", "visual"),
    "history": ("history", "past", "previous", "previou", "prior", "before", "ever"),
    "live": ("live", "home", "house", "alone"),
    "head": ("head", "headache"),
    "heart": ("heart", "cardiac", "palpitation", "palpitat", "racing", "flutter"),
    "sleep": ("sleep", "slept", "insomnia", "wake", "woke", "awake"),
    "mood": ("mood", "depress", "sad", "unhappy"),
    "exam": ("exam", "examination", "examin", "auscultation", "palpation", "inspection", "assessment"),
    "xray": ("xray", "radiograph", "film", "cxr"),
    "ecg": ("ecg", "ekg", "electrocardiogram"),
    "ultrasound": ("ultrasound", "sonograph", "sonography", "doppler", "uss"),
}
SYNONYMS: dict[str, str] = {word: canon for canon, words in _SYNONYM_GROUPS.items() for word in words}

# Phrases rewritten before tokenising (test names and multi-word synonyms).
_PHRASES = [
    (r"\b(complete|full) blood count\b|\bcbc\b|\bfbc\b|\bblood count\b", "fbc"),
    (r"\bx[- ]?rays?\b", "xray"),
    (r"\bcat scan\b|\bcomputed tomography\b", "ct"),
    (r"\bctpa\b", "ct pulmonary angiogram"),
    (r"\bmagnetic resonance( imaging)?\b", "mri"),
    (r"\b(arterial )?blood gas(es)?\b|\babg\b", "bloodgas"),
    (r"\bblood sugar\b|\bsugar level\b|\bbm\b|\bcbg\b", "glucose"),
    (r"\blumbar puncture\b|\bspinal tap\b|\bcsf\b|\blp\b", "lumbarpuncture"),
    (r"\bd[- ]?dimer\b", "ddimer"),
    (r"\bliver function( tests?)?\b|\blfts?\b", "lft"),
    (r"\bthyroid function( tests?)?\b|\btfts?\b|\btsh\b", "tft"),
    (r"\burea and electrolytes\b|\bu ?& ?es?\b|\bbmp\b|\bbasic metabolic panel\b", "electrolytes"),
    (r"\b(renal|kidney) function\b", "creatinine"),
    (r"\bpulse oximetry\b|\bspo2\b|\bsats\b|\boxygen levels?\b|\bo2 sat\w*\b", "oxygen saturation"),
    (r"\bbp\b", "blood pressure"),
    (r"\bpulse( rate)?\b|\bhr\b", "heart rate"),
    (r"\bvitals\b|\bobs\b|\bobservations\b", "vital signs"),
    (r"\becho\b|\bcardiac ultrasound\b", "echocardiogram"),
    (r"\b(beta[- ]?)?hcg\b", "hcg"),
    (r"\bcrp\b|\bc[- ]reactive protein\b", "crp"),
    (r"\burine dip\w*\b|\burine test\b", "urinalysis"),
    (r"\bgiving up\b", "quit"),
    (r"\bthrow(ing)? up\b|\bbeing sick\b", "vomit"),
    (r"\bshort(ness)? of breath\b", "breathless"),
    (r"\bchest film\b", "chest xray"),
]
_PHRASES_RE = [(re.compile(p, re.IGNORECASE), r) for p, r in _PHRASES]

def normalise(text: str) -> str:
    text = text.lower().replace("’", "'")
    for pattern, replacement in _PHRASES_RE:
        text = pattern.sub(replacement, text)
    return text


def stem(word: str) -> str:
    """The layer's stem, then this module's patient-side synonyms ("hurts" -> "pain")."""
    word = word.lower()
    if word in SYNONYMS:
        return SYNONYMS[word]
    base = clinical.stem(word)
    return SYNONYMS.get(base, SYNONYMS.get(word.rstrip("s"), base))


def words(text: str) -> list[str]:
    """The words of ``text``, a possessive cut from its word: "Crohn's" is Crohn, "the baby's" the baby ("what's" and
    "it's" are left whole)."""
    return [w[:-2] if w.endswith("'s") and w[:-2] not in STOPWORDS else w for w in _WORD_RE.findall(normalise(text))]


def tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Stemmed, synonym-mapped content tokens."""
    return [stem(w) for w in words(text) if keep_stopwords or w not in STOPWORDS]


def numbers(text: str) -> set[str]:
    return {n.replace(",", ".") for n in NUMBER_RE.findall(text)}


def contains_phrase(text: str, phrase: str) -> bool:
    """Whole-word, case-insensitive phrase match after normalising punctuation and hyphens."""
    flat = " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "
    target = " ".join(re.findall(r"[a-z0-9]+", phrase.lower()))
    return bool(target) and f" {target} " in flat


# --------------------------------------------------------------------------- first person
_SUBJECT_RE = re.compile(r"\b(?:the patient|patient|she|he)\s+([a-z]+)\b", re.IGNORECASE)
_POSSESSIVE_RE = re.compile(r"\b(?:her|his)\b", re.IGNORECASE)
_IRREGULAR = {"is": "am", "has": "have", "was": "was", "does": "do", "isn't": "am not", "hasn't": "haven't"}
_THIRD_PERSON_VERBS = {
    "smokes", "drinks", "works", "lives", "uses", "has", "is", "takes", "walks", "eats", "denies", "reports",
    "travels", "attends", "vapes", "plays", "sleeps", "notes", "describes", "feels", "needs", "goes",
    "stopped", "quit", "forgot", "stops", "cares", "runs", "was", "had", "complains", "experiences",
}


def base_verb(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith("ies"):
        return low[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "oes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return low[:-1]
    return low


def to_first_person(text: str) -> str:
    """"She reports pain in her leg" -> "I report pain in my leg"; "Smokes 10 a day" -> "I smoke 10 a day"."""
    text = _SUBJECT_RE.sub(lambda m: "I " + base_verb(m.group(1)), text)
    text = _POSSESSIVE_RE.sub("my", text)
    first, _, rest = text.partition(" ")
    if first.lower() in _THIRD_PERSON_VERBS:
        text = f"I {base_verb(first)} {rest}".strip()
    return text


def lower_first(text: str) -> str:
    if re.match(r"I\b", text):
        return text
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def reply_key(text: str) -> str:
    """A reply reduced to its lower-case words: two replies with the same key are the same reply said twice."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


# --------------------------------------------------------------------------- the record's words, a person's words
_WHO = r"(?:the )?(?:patient|newborn|infant|child|baby|boy|girl)|she|he"
_CHART_REWRITES = [
    # "The patient('s mother) reports that ...", "She notes ...", "Reports ...": what follows is the fact itself.
    (rf"\b(?:(?:the )?patient's (?:mother|father|parents?|husband|wife|partner|daughter|son|roommates?|friends?)|"
     rf"{_WHO}) (?:also )?(?:reports?|describes|notes|mentions|states|cites|says)(?: that)?\s+", ""),
    (r"\band (?:reports|notes|mentions|describes)\b", "and has"),
    (r"^(?:also )?(?:reports|describes|notes|mentions|states)(?: that)?\s+", ""),
    # "Patient denies (experiencing) any X" -> "No X" (the negation is the fact).
    (rf"\b(?:{_WHO}) (?:also )?denies (?:experiencing |having )?(?:any )?", "no "),
    (r"\bdenies (?:experiencing |having )?(?:any )?", "no "),
    (rf"\b({_WHO}) (?:presents with|complains of)\b", r"\1 has"),
    (rf"\b({_WHO}) presents (to|at|for)\b", r"\1 came \2"),
    (r"\bno (other )?significant (?:past |previous )?medical history\b", r"no \1past medical problems"),
    (r"\b(?:non-?contributory|unremarkable)\b", "nothing unusual"),
    (r"\s*\b(?:provided|noted|documented)\b", ""),
]
_CHART_REWRITES_RE = [(re.compile(p, re.IGNORECASE), r) for p, r in _CHART_REWRITES]


def plain_speech(text: str) -> str:
    """A record's sentence without chart language: "The patient reports a 1-month history of X" ->
    "A 1-month history of X", "Denies fever" -> "No fever", "No other significant medical history
    provided" -> "No other past medical problems". Facts, negations and numbers are kept."""
    text = text.replace("’", "'")
    for pattern, replacement in _CHART_REWRITES_RE:
        text = pattern.sub(replacement, text)
    text = re.sub(r"\s{2,}", " ", text).strip(" ,")
    return text[:1].upper() + text[1:] if text else text
