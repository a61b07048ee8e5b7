"""The clinical-language layer's data: the three YAML files beside this module, their schemas, phrase
matching on folded words, and what a text's words are (the keys of its phrases, the stems of the rest).
Loaded once per process."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from verifier import yamlfile
from verifier.diagnosis import name_variants, words

_HERE = Path(__file__).resolve().parent


TESTS_FILE = _HERE / "tests.yaml"


LANGUAGE_FILE = _HERE / "language.yaml"


DIAGNOSES_FILE = _HERE / "diagnoses.yaml"


# Namespaces of the keys :func:`terms` returns besides history concepts and stems.
TEST, METHOD, SITE, INTENT = "test:", "method:", "site:", "intent:"


EXAM = METHOD + "exam"


# (round 93: "little" and "proper" are how, not what: "Is it proper bad or little bit?" names nothing of its own)
STOPWORDS = frozenset(
    """a about above after again all also am an and any anything are as at be been before being below
    between both but by can could did do does doing don done down during each else ever few for from
    further get got had has have having he her here hers him his how i if in into is it its itself just
    let me might more most much must my myself no nor not now of off on once only or other our out over
    own please really same shall she should so some something such tell than that the their them then
    there these they this those through to too under until up us very was we were what when where which
    while who whom why will with would yes you your yours yourself i'm i've you've you're it's don't
    doctor ok okay oh well right see thank thanks even bit slightly every little proper
    one two three four five six first second third fourth fifth next""".split()  # round 76: "One, how long ...?"
)


# Words of a test label that say what kind of thing it is, never which test ("Blood Work > ... > Findings").
_LABEL_WORDS = frozenset(
    """blood work test tests testing level levels result results finding findings value values imaging
    image images lab labs laboratory investigation investigations serum plasma panel study studies
    analysis report other additional initial repeat measurement measurements profile assay screen
    screening check please order request send run get do urgent stat routine""".split()
)


_SUFFIXES = ("ational", "ation", "ness", "ments", "ment", "ingly", "ing", "edly", "ed", "ers", "er",
             "ies", "ful", "es", "ly", "s")


def stem(word: str) -> str:
    """A light suffix stemmer for words outside every phrase ("stopped" -> "stop", "vomiting" -> "vomit")."""
    word = word.lower()
    if word.isdigit() or len(word) <= 3:
        return word
    base = word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
        base = base[:-1]
    if len(base) > 3 and base.endswith("e"):
        base = base[:-1]
    return base


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    names: list[str] = Field(min_length=1)
    order_names: list[str] = Field(default_factory=list)  # names read only in an order ("US": not the pronoun)
    parts: list[str] = Field(default_factory=list)
    # a broad name that an order of any one member fills ("Genetic testing" by a JAK2 test): one way only,
    # so ordering the broad name never counts as ordering a member
    members: list[str] = Field(default_factory=list)
    # the parts that, ordered together one by one, are the panel as clinicians order it ("PT, APTT" is the
    # coagulation screen); without it, all the parts, or most of four or more
    core: list[str] = Field(default_factory=list)
    routine: bool = False


class _ExamWords(BaseModel):
    names: list[str] = Field(min_length=1)


class TestsData(BaseModel):
    """``tests.yaml``."""

    model_config = ConfigDict(extra="forbid")

    tests: list[_Entry]
    methods: list[_Entry]
    sites: list[_Entry]
    exams: _ExamWords

    @model_validator(mode="after")
    def _check(self) -> TestsData:
        for kind, entries in (("tests", self.tests), ("methods", self.methods), ("sites", self.sites)):
            ids = [e.id for e in entries]
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            if duplicates:
                raise ValueError(f"{kind}: duplicate ids {duplicates}")
            for entry in entries:
                missing = [p for p in [*entry.parts, *entry.members, *entry.core] if p not in ids]
                if missing:
                    raise ValueError(f"{kind}: {entry.id!r} has unknown parts or members {missing}")
        return self


class _Concept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    phrases: list[str] = Field(default_factory=list)
    stems: list[str] = Field(default_factory=list)  # words after the stemmer ("agonis" for agonising)
    sign: bool = False  # looked for on examination rather than asked about (a rigid abdomen, pallor)
    found_by: list[str] = Field(default_factory=list)  # the test or site whose examination finds the sign
    within: list[str] = Field(default_factory=list)  # broader concepts its phrases also count for (nocturia: urinary)
    # asked about only as a whole: the words inside its phrases do not stand in for it ("Other joints?" does not
    # ask about a prosthetic joint)
    whole: bool = False
    # a question that names it by its parts, each list all together ("Cough, blood?" asks about haemoptysis)
    made_of: list[list[str]] = Field(default_factory=list)
    # a long-standing illness one asks about in the past history ("Any diabetes?"): "otherwise healthy" answers it
    condition: bool = False


class _Intent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    patterns: list[str] = Field(min_length=1)  # a question that asks this
    answers: list[str] = Field(default_factory=list)  # a fact sentence that answers it
    implies: list[str] = Field(default_factory=list)  # intents a question that asks this asks too


class LanguageData(BaseModel):
    """``language.yaml``."""

    model_config = ConfigDict(extra="forbid")

    concepts: list[_Concept]
    intents: list[_Intent]
    generic: list[str] = Field(default_factory=list)  # concept ids too broad to tell one question from another
    # a body system (a site key) -> the symptoms a blanket negative about it answers ("Denies any respiratory
    # symptoms" answers "Breathless?"); read by the patient only
    systems: dict[str, list[str]] = Field(default_factory=dict)
    # a finding (concept id) -> the lay symptoms a fact stating it answers ("no respiratory distress" answers "Out of
    # breath?", "soft speech" answers "Voice?"); read by the patient only
    told_as: dict[str, list[str]] = Field(default_factory=dict)
    # a concept (id) -> what a question naming it alone asks too: a terse "Eating?" asks about the appetite, where
    # "Pain after eating?" does not
    alone: dict[str, list[str]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> LanguageData:
        for kind, ids in (("concepts", [c.id for c in self.concepts]), ("intents", [i.id for i in self.intents])):
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            if duplicates:  # a second entry would silently merge into, or shadow, the first
                raise ValueError(f"{kind}: duplicate ids {duplicates}")
        unknown = sorted(set(self.generic) - {c.id for c in self.concepts})
        if unknown:
            raise ValueError(f"generic: unknown concept ids {unknown}")
        unknown = sorted({k for keys in self.systems.values() for k in keys} - {c.id for c in self.concepts})
        if unknown:
            raise ValueError(f"systems: unknown concept ids {unknown}")
        unknown = sorted(({k for keys in self.told_as.values() for k in keys} | set(self.told_as))
                         - {c.id for c in self.concepts})
        if unknown:
            raise ValueError(f"told_as: unknown concept ids {unknown}")
        unknown = sorted(({k for keys in self.alone.values() for k in keys} | set(self.alone))
                         - {c.id for c in self.concepts})
        if unknown:
            raise ValueError(f"alone: unknown concept ids {unknown}")
        unknown = sorted({k for i in self.intents for k in i.implies} - {i.id for i in self.intents})
        if unknown:
            raise ValueError(f"intents: implies unknown intent ids {unknown}")
        return self


class DiagnosesData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    diagnoses: list[list[str]]
    subtypes: dict[str, list[str]] = Field(default_factory=dict)  # a condition -> narrower conditions
    capitals: dict[str, str] = Field(default_factory=dict)  # "ALL" -> its name, read only in capitals
    # a condition -> broader everyday names that count when a doctor *considers* it (a differential), never
    # as a stated final diagnosis ("a chest infection" considers pneumonia)
    considered_as: dict[str, list[str]] = Field(default_factory=dict)
    # a condition -> the tests clinicians order in its work-up, beyond the case's own (never "unindicated")
    workup: dict[str, list[str]] = Field(default_factory=dict)
    # a condition -> the conditions it shows itself as, named beside it as where it shows, never as a rival
    # ("Disseminated gonococcal infection, septic arthritis of the left wrist")
    manifestations: dict[str, list[str]] = Field(default_factory=dict)
    # a condition -> the broader classes it belongs to, named beside it as a gloss ("Double aortic arch – vascular
    # ring"), never as a rival, and alone never the answer
    classes: dict[str, list[str]] = Field(default_factory=dict)


def _read(path: Path, model: type[BaseModel]) -> BaseModel:
    try:
        return model.model_validate(yamlfile.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from exc


def folded(text: str) -> tuple[str, ...]:
    return words(text)


class _Phrases:
    """Phrases (folded word tuples) to keys; ``spans`` finds the longest non-overlapping matches."""

    def __init__(self) -> None:
        self._by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}

    def add(self, phrase: str, key: str) -> None:
        for variant in name_variants(phrase):
            parts = folded(variant)
            if parts:
                self._by_first.setdefault(parts[0], []).append((parts, key))

    def matches(self, tokens: Sequence[str]) -> list[tuple[int, int, str]]:
        """Every match, nested ones included ("heart" inside "heart problems")."""
        found: list[tuple[int, int, str]] = []
        for start, token in enumerate(tokens):
            for parts, key in self._by_first.get(token, ()):
                if tuple(tokens[start : start + len(parts)]) == parts:
                    found.append((start, start + len(parts), key))
        return found

    def spans(self, tokens: Sequence[str]) -> list[tuple[int, int, str]]:
        found = self.matches(tokens)
        found.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
        taken: list[tuple[int, int, str]] = []
        for begin, end, key in found:
            if all(end <= t[0] or begin >= t[1] for t in taken) or any(
                    (begin, end) == (t[0], t[1]) for t in taken):  # one phrase, several keys
                taken.append((begin, end, key))
        return sorted(taken)


@dataclass(frozen=True)
class _Layer:
    phrases: _Phrases
    order_phrases: _Phrases  # the phrases plus names read only in orders
    placed_as: dict[str, list[tuple[frozenset[str], frozenset[str]]]]  # test -> (methods, sites) naming it
    stems: dict[str, str]
    parts: dict[str, frozenset[str]]  # test or site key -> its parts' keys, recursively
    members: dict[str, frozenset[str]]  # broad test key -> the tests any of which fills it (and their parts)
    core: dict[str, frozenset[str]]  # panel key -> the parts that, ordered together, are the panel
    routine: frozenset[str]
    intents: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...]
    generic: frozenset[str]
    signs: frozenset[str]
    whole: frozenset[str]
    conditions: frozenset[str]
    systems: dict[str, frozenset[str]]  # body system (site key) -> the symptoms a blanket negative about it answers
    told_as: dict[str, frozenset[str]]  # finding key -> the lay symptoms a fact stating it answers (the patient only)
    alone: dict[str, frozenset[str]]  # concept key -> what a question naming it alone asks too
    made_of: tuple[tuple[str, tuple[frozenset[str], ...]], ...]
    implied: dict[str, frozenset[str]]  # intent key -> the intents asking it asks too
    found_by: dict[str, tuple[str, ...]]
    names: dict[str, str]  # key -> its first name, for labels


def _closure(direct: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}

    def walk(key: str, seen: frozenset[str]) -> frozenset[str]:
        if key in out:
            return out[key]
        found = set()
        for part in direct.get(key, ()):
            if part not in seen:
                found |= {part} | walk(part, seen | {key})
        return frozenset(found)

    for key in direct:
        out[key] = walk(key, frozenset())
    return out


@cache
def _layer() -> _Layer:
    tests: TestsData = _read(TESTS_FILE, TestsData)  # type: ignore[assignment]
    language: LanguageData = _read(LANGUAGE_FILE, LanguageData)  # type: ignore[assignment]
    phrases, order_phrases, placed = _Phrases(), _Phrases(), _Phrases()  # placed: methods and sites only
    names: dict[str, str] = {}
    direct: dict[str, list[str]] = {}
    for prefix, entries in ((TEST, tests.tests), (METHOD, tests.methods), (SITE, tests.sites)):
        for entry in entries:
            key = prefix + entry.id
            names[key] = entry.names[0]
            direct[key] = [prefix + p for p in entry.parts]
            for name in entry.names:
                phrases.add(name, key)
                order_phrases.add(name, key)
            for name in entry.order_names:
                order_phrases.add(name, key)
            if prefix != TEST:
                for name in [*entry.names, *entry.order_names]:
                    placed.add(name, key)
    for name in tests.exams.names:
        phrases.add(name, EXAM)
        order_phrases.add(name, EXAM)
        placed.add(name, EXAM)
    # A test is also named by its method on its site: "blood cx" is the blood culture, "stool microscopy"
    # the stool examination. Each test's names, read for methods and sites alone, give those pairs.
    placed_as: dict[str, list[tuple[frozenset[str], frozenset[str]]]] = {}
    for entry in tests.tests:
        for name in entry.names:
            keys = {k for _, _, k in placed.spans(folded(name))}
            methods = frozenset(k for k in keys if k.startswith(METHOD))
            sites = frozenset(k for k in keys if k.startswith(SITE))
            if methods and sites and (methods, sites) not in placed_as.get(TEST + entry.id, []):
                placed_as.setdefault(TEST + entry.id, []).append((methods, sites))
    names.setdefault(EXAM, "examination")
    stems: dict[str, str] = {}
    ids = {c.id for c in language.concepts}
    for concept in language.concepts:
        names[concept.id] = (concept.phrases or concept.stems or [concept.id])[0]
        unknown_within = sorted(set(concept.within) - ids)
        if unknown_within:
            raise ValueError(f"{LANGUAGE_FILE}: concept {concept.id!r} is within unknown concepts {unknown_within}")
        for phrase in concept.phrases:
            for key in (concept.id, *concept.within):
                phrases.add(phrase, key)
                order_phrases.add(phrase, key)
        for word in concept.stems:
            stems[stem(word)] = concept.id
    intents = tuple(
        (INTENT + i.id, re.compile("|".join(f"(?:{p})" for p in i.patterns), re.IGNORECASE),
         re.compile("|".join(f"(?:{p})" for p in i.answers), re.IGNORECASE) if i.answers else None)
        for i in language.intents
    )
    routine = frozenset(TEST + e.id for e in tests.tests if e.routine)
    parts = _closure(direct)
    members = {TEST + e.id: frozenset(m for member in e.members for m in (TEST + member, *parts.get(TEST + member, ())))
               for e in tests.tests if e.members}
    core = {TEST + e.id: frozenset(TEST + p for p in e.core) for e in tests.tests if e.core}
    signs = frozenset(c.id for c in language.concepts if c.sign)
    found_by = {c.id: tuple(c.found_by) for c in language.concepts if c.found_by}
    unknown = sorted({k for keys in found_by.values() for k in keys if k not in names})
    if unknown:
        raise ValueError(f"{LANGUAGE_FILE}: found_by names unknown tests or sites {unknown}")
    unknown = sorted(k for k in language.systems if k not in names)
    if unknown:
        raise ValueError(f"{LANGUAGE_FILE}: systems names unknown sites {unknown}")
    return _Layer(phrases=phrases, order_phrases=order_phrases, placed_as=placed_as, stems=stems, parts=parts, members=members, core=core, routine=routine, intents=intents,
                  generic=frozenset(language.generic), signs=signs, whole=frozenset(c.id for c in language.concepts if c.whole),
                  conditions=frozenset(c.id for c in language.concepts if c.condition),
                  systems={site: frozenset(keys) for site, keys in language.systems.items()},
                  told_as={sign: frozenset(keys) for sign, keys in language.told_as.items()},
                  alone={key: frozenset(keys) for key, keys in language.alone.items()},
                  implied={INTENT + i.id: frozenset(INTENT + k for k in i.implies) for i in language.intents if i.implies},
                  made_of=tuple((c.id, tuple(frozenset(parts) for parts in c.made_of if parts))
                                for c in language.concepts if c.made_of),
                  found_by=found_by, names=names)


@lru_cache(maxsize=65536)
def _terms(text: str, order: bool = False) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(keys, leftover stems, nested keys) of ``text``: the keys of the longest phrases it contains, the
    stems of its other content words, and the keys of phrases inside longer ones ("heart" in "heart
    problems": a question about heart problems also asks about the heart)."""
    layer = _layer()
    phrases = layer.order_phrases if order else layer.phrases
    tokens = folded(text)
    keys: list[str] = []
    covered = [False] * len(tokens)
    generic_spans = []
    for begin, end, key in phrases.spans(tokens):
        keys.append(key)
        covered[begin:end] = [True] * (end - begin)
        if key in layer.generic:
            generic_spans.append((begin, end))
    # a phrase inside a generic one is not what it talks about: "relative to meals" names no relatives
    nested = [key for b, e, key in phrases.matches(tokens)
              if not any(gb <= b and e <= ge and (gb, ge) != (b, e) for gb, ge in generic_spans)]
    rest: list[str] = []
    for token, used in zip(tokens, covered, strict=True):
        if used or token in STOPWORDS:
            continue
        stemmed = stem(token)
        concept = layer.stems.get(stemmed)
        (keys if concept else rest).append(concept or stemmed)
    keys = list(dict.fromkeys(keys))
    return tuple(keys), tuple(dict.fromkeys(rest)), tuple(k for k in dict.fromkeys(nested) if k not in keys)


def label(key: str) -> str:
    return _layer().names.get(key, key.split(":", 1)[-1])
