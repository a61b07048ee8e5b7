"""The clinical-language layer: what a doctor asked about, ordered or diagnosed, in any wording.

One place decides it for the simulated patient (which facts a question asks for), the measurement
responder (which results an order names) and the rule grader (which items a consultation meets), so
the environment and the reward never disagree about what the doctor did. A clinician who asks "any
burning when you pee?" has asked about urinary symptoms; one who orders a CBC has ordered the WBC,
the haemoglobin and the platelets.

The knowledge is data beside this module, written by the project and tested
(tests/verifier/test_clinical.py):

* ``clinical_tests.yaml``: tests with their abbreviations and US/UK names, panels with their parts;
  methods (CT, MRI, biopsy, culture, examination, ...) that apply to sites; body sites and specimens.
* ``clinical_language.yaml``: history concepts with lay words and body-part forms; question intents
  (onset, site, character, ...) as patterns, with the patterns of a fact that answers them.
* ``clinical_diagnoses.yaml``: diagnosis names with their abbreviations and usual short forms.

Text is compared as folded words (``verifier.diagnosis.words``: accents, British/American spelling,
plurals); a phrase matches where its words appear contiguously, the longest first. Words outside
every phrase fall back to a light stemmer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from verifier.diagnosis import name_variants, words

_HERE = Path(__file__).resolve().parent
TESTS_FILE = _HERE / "clinical_tests.yaml"
LANGUAGE_FILE = _HERE / "clinical_language.yaml"
DIAGNOSES_FILE = _HERE / "clinical_diagnoses.yaml"

# Namespaces of the keys :func:`terms` returns besides history concepts and stems.
TEST, METHOD, SITE, INTENT = "test:", "method:", "site:", "intent:"
EXAM = METHOD + "exam"

STOPWORDS = frozenset(
    """a about above after again all also am an and any anything are as at be been before being below
    between both but by can could did do does doing don done down during each else ever few for from
    further get got had has have having he her here hers him his how i if in into is it its itself just
    let me might more most much must my myself no nor not now of off on once only or other our out over
    own please really same shall she should so some something such tell than that the their them then
    there these they this those through to too under until up us very was we were what when where which
    while who whom why will with would yes you your yours yourself i'm i've you've you're it's don't
    doctor ok okay oh well right see thank thanks""".split()
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


# --------------------------------------------------------------------------- the data files
class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    names: list[str] = Field(min_length=1)
    order_names: list[str] = Field(default_factory=list)  # names read only in an order ("US": not the pronoun)
    parts: list[str] = Field(default_factory=list)
    routine: bool = False


class _ExamWords(BaseModel):
    names: list[str] = Field(min_length=1)


class TestsData(BaseModel):
    """``clinical_tests.yaml``."""

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
                missing = [p for p in entry.parts if p not in ids]
                if missing:
                    raise ValueError(f"{kind}: {entry.id!r} has unknown parts {missing}")
        return self


class _Concept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    phrases: list[str] = Field(default_factory=list)
    stems: list[str] = Field(default_factory=list)  # words after the stemmer ("agonis" for agonising)
    sign: bool = False  # looked for on examination rather than asked about (a rigid abdomen, pallor)
    found_by: list[str] = Field(default_factory=list)  # the test or site whose examination finds the sign


class _Intent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    patterns: list[str] = Field(min_length=1)  # a question that asks this
    answers: list[str] = Field(default_factory=list)  # a fact sentence that answers it


class LanguageData(BaseModel):
    """``clinical_language.yaml``."""

    model_config = ConfigDict(extra="forbid")

    concepts: list[_Concept]
    intents: list[_Intent]
    generic: list[str] = Field(default_factory=list)  # concept ids too broad to tell one question from another


class DiagnosesData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    diagnoses: list[list[str]]
    subtypes: dict[str, list[str]] = Field(default_factory=dict)  # a condition -> narrower conditions
    capitals: dict[str, str] = Field(default_factory=dict)  # "ALL" -> its name, read only in capitals


def _read(path: Path, model: type[BaseModel]) -> BaseModel:
    try:
        return model.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from exc


# --------------------------------------------------------------------------- phrase matching on folded words
def folded(text: str) -> tuple[str, ...]:
    return tuple(words(text))


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
    routine: frozenset[str]
    intents: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...]
    generic: frozenset[str]
    signs: frozenset[str]
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
    for concept in language.concepts:
        names[concept.id] = (concept.phrases or concept.stems or [concept.id])[0]
        for phrase in concept.phrases:
            phrases.add(phrase, concept.id)
            order_phrases.add(phrase, concept.id)
        for word in concept.stems:
            stems[stem(word)] = concept.id
    intents = tuple(
        (INTENT + i.id, re.compile("|".join(f"(?:{p})" for p in i.patterns), re.IGNORECASE),
         re.compile("|".join(f"(?:{p})" for p in i.answers), re.IGNORECASE) if i.answers else None)
        for i in language.intents
    )
    routine = frozenset(TEST + e.id for e in tests.tests if e.routine)
    signs = frozenset(c.id for c in language.concepts if c.sign)
    found_by = {c.id: tuple(c.found_by) for c in language.concepts if c.found_by}
    unknown = sorted({k for keys in found_by.values() for k in keys if k not in names})
    if unknown:
        raise ValueError(f"{LANGUAGE_FILE}: found_by names unknown tests or sites {unknown}")
    return _Layer(phrases=phrases, order_phrases=order_phrases, placed_as=placed_as, stems=stems, parts=_closure(direct), routine=routine, intents=intents,
                  generic=frozenset(language.generic), signs=signs, found_by=found_by, names=names)


# --------------------------------------------------------------------------- what a text talks about
@lru_cache(maxsize=65536)
def _terms(text: str, order: bool = False) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(keys, leftover stems, nested keys) of ``text``: the keys of the longest phrases it contains, the
    stems of its other content words, and the keys of phrases inside longer ones ("heart" in "heart
    problems": a question about heart problems also asks about the heart)."""
    layer = _layer()
    phrases = layer.order_phrases if order else layer.phrases
    tokens = folded(text)
    nested = [key for _, _, key in phrases.matches(tokens)]
    keys: list[str] = []
    covered = [False] * len(tokens)
    for begin, end, key in phrases.spans(tokens):
        keys.append(key)
        covered[begin:end] = [True] * (end - begin)
    rest: list[str] = []
    for token, used in zip(tokens, covered, strict=True):
        if used or token in STOPWORDS:
            continue
        stemmed = stem(token)
        concept = layer.stems.get(stemmed)
        (keys if concept else rest).append(concept or stemmed)
    keys = list(dict.fromkeys(keys))
    return tuple(keys), tuple(dict.fromkeys(rest)), tuple(k for k in dict.fromkeys(nested) if k not in keys)


def terms(text: str, *, nested: bool = True) -> list[str]:
    """What ``text`` talks about: concept, test, method and site keys (with ``nested``, also those of
    phrases inside longer ones), then the stems of other words."""
    keys, rest, inner = _terms(text)
    return [*keys, *(inner if nested else ()), *rest]


def topics(text: str) -> list[tuple[str, ...]]:
    """What ``text`` (a key question, a symptom, a red flag) asks about, one group per thing: each intent;
    the keys of each phrase, with those of the phrases inside it ("speech" is the speech concept and the
    nervous system); each other word's stem."""
    layer = _layer()
    tokens = folded(text)
    groups: list[tuple[str, ...]] = [(key,) for key in sorted(intents(text))]
    said = {w for key, asks, _ in layer.intents if key in intents(text)  # the words that say the intent
            for match in asks.finditer(text) for w in folded(match.group(0))}
    matches = layer.phrases.matches(tokens)
    covered = [False] * len(tokens)
    spans: dict[tuple[int, int], list[str]] = {}
    for begin, end, key in layer.phrases.spans(tokens):
        spans.setdefault((begin, end), []).append(key)
        covered[begin:end] = [True] * (end - begin)
    for (begin, end), keys in spans.items():
        inner = [k for b, e, k in matches if begin <= b and e <= end and k not in keys]
        groups.append(tuple(dict.fromkeys([*keys, *inner])))
    for token, used in zip(tokens, covered, strict=True):
        if not used and token not in STOPWORDS and token not in said:
            stemmed = stem(token)
            groups.append((layer.stems.get(stemmed, stemmed),))
    return list(dict.fromkeys(groups))


def concepts(text: str) -> list[str]:
    """Only the keys of ``text`` (no leftover stems)."""
    return list(_terms(text)[0])


@lru_cache(maxsize=16384)
def intents(sentence: str) -> frozenset[str]:
    """What a question asks, whatever it asks it about (``intent:onset``, ``intent:site``, ...)."""
    return frozenset(key for key, asks, _ in _layer().intents if asks.search(sentence))


def answers(fact: str) -> list[str]:
    """The intents a fact sentence answers ("it started yesterday" answers ``intent:onset``)."""
    return [key for key, _, answer in _layer().intents if answer is not None and answer.search(fact)]


def asked(question: str) -> frozenset[str]:
    """Everything a question sentence asks about: its terms and its intents."""
    return frozenset(terms(question)) | intents(question)


def term_keys(term: str) -> frozenset[str]:
    """A rubric term as keys: a namespaced key stands for itself; a word or phrase is read as text."""
    if term.startswith((INTENT, TEST, METHOD, SITE)):
        return frozenset({term})
    return frozenset(terms(term)) or frozenset({term.lower()})


def is_generic(key: str) -> bool:
    """A key too broad to tell one question from another ("pain", "problem")."""
    return key in _layer().generic


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


def label(key: str) -> str:
    return _layer().names.get(key, key.split(":", 1)[-1])


# --------------------------------------------------------------------------- what an order names
@dataclass(frozen=True)
class Order:
    """An order or a test label, read: the tests it names (and their parts), methods, sites, other words."""

    tests: frozenset[str]
    covers: frozenset[str]  # the tests and every part of a named panel
    methods: frozenset[str]
    sites: frozenset[str]  # with the parts of composite sites ("A/P": abdomen and pelvis)
    rest: frozenset[str]

    @property
    def empty(self) -> bool:
        return not (self.tests or self.methods or self.sites or self.rest)


@cache
def _label_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in _LABEL_WORDS) | _LABEL_WORDS


@lru_cache(maxsize=65536)
def read_order(text: str, *, exam: bool = False) -> Order:
    """``text`` (an order, or a case's test label such as ``"Blood Work > CBC > WBC"``) read as an order;
    ``exam`` marks a ``REQUEST EXAM:`` order (an examination of the sites it names)."""
    layer = _layer()
    keys, rest, nested = _terms(text, True)
    # a test inside a longer test's name was done too ("LP opening pressure" is a lumbar puncture)
    tests = frozenset(k for k in [*keys, *nested] if k.startswith(TEST))
    if ">" in text:  # a result label: "Vital signs > Respiratory rate" is the respiratory rate, not every vital sign
        tests = frozenset(t for t in tests if not layer.parts.get(t, frozenset()) & tests)
    methods = {k for k in keys if k.startswith(METHOD)} | ({EXAM} if exam else set())
    # "Imaging > Chest CT" is a CT and "Imaging > Chest X-ray" an X-ray: a method that covers others says
    # nothing more beside a more specific method or a test
    methods = {m for m in methods if not layer.parts.get(m) or not (layer.parts[m] & methods or tests)}
    sites = frozenset(k for k in keys if k.startswith(SITE))
    body = frozenset(k for k in keys if not k.startswith((TEST, METHOD, SITE, INTENT)))
    return Order(
        tests=tests,
        covers=tests.union(*(layer.parts.get(t, frozenset()) for t in tests)),
        methods=frozenset(methods),
        sites=sites.union(*(layer.parts.get(s, frozenset()) for s in sites)),
        rest=frozenset(r for r in rest if r not in _label_stems() and not r.isdigit()) | body,
    )


def names(order: Order, target: Order) -> bool:
    """Whether ``order`` names ``target`` specifically enough to credit it: the same test or a panel
    that contains it; the same method on the same site; or, for a test the data does not know, all of
    its words."""
    if target.tests:
        if target.tests & order.covers or _placed(order, target):
            return True
        # another name for the same panel: U&Es for "electrolytes" (it shares half of the panel's parts or more)
        parts = target.covers - target.tests
        return len(parts) >= 2 and len(parts & order.covers) * 2 >= len(parts)
    if target.methods:
        if not _methods(target) & order.methods:  # "Brain imaging" is named by a CT or an MRI of the brain
            return False
        if not target.sites:  # "General appearance" is not what an abdominal examination looks at
            return EXAM not in target.methods or not order.sites or bool(target.rest & order.rest)
        return bool(target.sites & order.sites)
    if target.sites and order.methods and target.sites & order.sites:
        return True
    return bool(target.rest) and target.rest <= order.rest


def _methods(order: Order) -> frozenset[str]:
    """The order's methods and the methods they cover (imaging covers CT, MRI, ...)."""
    parts = _layer().parts
    return order.methods.union(*(parts.get(m, frozenset()) for m in order.methods))


def _placed(order: Order, target: Order) -> bool:
    """Whether ``order`` names one of ``target``'s tests by method and site ("blood cx", "stool microscopy")."""
    if order.tests or not (order.methods and order.sites):
        return False
    layer = _layer()
    return any(methods & order.methods and sites & order.sites
               for test in target.tests for methods, sites in layer.placed_as.get(test, ()))


def touches(order: Order, target: Order) -> bool:
    """Whether ``order`` asks, perhaps too vaguely to credit, for something ``target`` holds: a part of
    its panel ("Hb" for a blood count), its method without a site ("CT" for a chest CT), or some of its
    words. Such an order is never an unindicated test."""
    if names(order, target):
        return True
    if order.tests and target.tests:
        return bool(order.covers & (target.covers | target.tests)) or bool(order.tests & target.covers)
    if _methods(target) & _methods(order):
        if EXAM in target.methods and order.sites and not target.sites:
            return False
        return not order.sites or not target.sites or bool(order.sites & target.sites)
    if order.empty or order.tests or order.methods:
        return False
    return bool(order.rest) and (order.rest <= target.rest or target.rest <= order.rest)


@dataclass(frozen=True)
class Resolution:
    """What one order names among a case's labels: ``named`` (credited), else ``touched`` (answered,
    never penalised, not credited)."""

    named: tuple[str, ...]
    touched: tuple[str, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        return self.named or self.touched


def resolve(order: str, labels: Iterable[str], *, exam: bool = False) -> Resolution:
    """The one resolver: which of ``labels`` (a case's result keys, or test names) ``order`` names.
    The measurement responder answers with these; the grader credits ``named`` and never counts an
    order that resolves to anything as unindicated."""
    wanted = read_order(order, exam=exam)
    labels = list(labels)
    named = tuple(lab for lab in labels if names(wanted, read_order(lab)))
    if named:
        return Resolution(named=named, touched=())
    return Resolution(named=(), touched=tuple(lab for lab in labels if touches(wanted, read_order(lab))))


def is_exam(order: str) -> bool:
    return EXAM in read_order(order).methods


def panel_of(label: str) -> str | None:
    """The test a result label belongs to: the first its segments name, read from the outside in
    ("Blood Work > Complete Blood Count > WBC" -> ``test:cbc``, "Urinalysis > RBC" -> ``test:urinalysis``),
    else None."""
    for segment in _segments(label):
        tests = read_order(segment).tests
        if tests:
            layer = _layer()
            outer = [t for t in tests if not any(t in layer.parts.get(o, ()) for o in tests if o != t)]
            return sorted(outer)[0]
    return None


def is_routine(label: str) -> bool:
    """A first-line test that rarely makes a diagnosis by itself (a blood count, electrolytes, vitals)."""
    order = read_order(label)
    return bool(order.tests) and order.tests <= _layer().routine | frozenset(
        p for t in order.tests & _layer().routine for p in _layer().parts.get(t, ()))


# --------------------------------------------------------------------------- diagnosis names
@cache
def _diagnosis_index() -> tuple[_Phrases, tuple[tuple[str, ...], ...]]:
    data: DiagnosesData = _read(DIAGNOSES_FILE, DiagnosesData)  # type: ignore[assignment]
    phrases = _Phrases()
    for number, line in enumerate(data.diagnoses):
        for name in line:
            phrases.add(name, str(number))
    return phrases, tuple(tuple(line) for line in data.diagnoses)


@cache
def _subtypes() -> dict[str, tuple[str, ...]]:
    data: DiagnosesData = _read(DIAGNOSES_FILE, DiagnosesData)  # type: ignore[assignment]
    return {" ".join(folded(k)): tuple(v) for k, v in data.subtypes.items()}


@cache
def _capitals() -> tuple[tuple[re.Pattern[str], str], ...]:
    data: DiagnosesData = _read(DIAGNOSES_FILE, DiagnosesData)  # type: ignore[assignment]
    return tuple((re.compile(rf"(?<![A-Za-z]){re.escape(k)}(?![A-Za-z])"), v) for k, v in data.capitals.items())


def spell_out(statement: str) -> str:
    """A stated diagnosis with its capitalised abbreviations that are everyday words in lower case spelled
    out ("B-cell ALL" -> "B-cell acute lymphoblastic leukaemia"); case matters only for these."""
    for pattern, name in _capitals():
        statement = pattern.sub(name, statement)
    return statement


def diagnosis_names(accepted: Sequence[str]) -> list[str]:
    """``accepted`` plus the other names the data gives the same condition: abbreviations and usual
    short forms ("TTP" for thrombotic thrombocytopenic purpura), also inside a longer name ("COPD
    exacerbation"). A name is replaced only where the whole of it (two words or more, or the whole
    diagnosis) stands in the diagnosis, so a broader or rival condition never comes in."""
    phrases, lines = _diagnosis_index()
    out = list(dict.fromkeys(accepted))
    for name in list(out):  # a narrower condition is right too (and so are its other names)
        out.extend(_subtypes().get(" ".join(folded(name)), ()))
    seen = {" ".join(folded(name)) for name in out}
    for name in list(out):
        for variant in name_variants(name):
            tokens = folded(variant)
            for begin, end, number in phrases.spans(tokens):
                if end - begin < 2 and (begin, end) != (0, len(tokens)):
                    continue
                for alias in lines[int(number)]:
                    new = " ".join([*tokens[:begin], *folded(alias), *tokens[end:]])
                    whole = (begin, end) == (0, len(tokens))
                    if new not in seen:
                        seen.add(new)
                        out.append(alias if whole else new)
    return out


@lru_cache(maxsize=4096)
def _name_index(names: tuple[str, ...]) -> _Phrases:
    index = _Phrases()
    for name in names:
        index.add(name, name)
    return index


def mentions(text: str, names: Sequence[str]) -> str | None:
    """The first of ``names`` (condition names) that ``text`` mentions, compared as folded words (British
    and American spellings, plurals), or None."""
    spans = _name_index(tuple(names)).spans(folded(text))
    return spans[0][2] if spans else None


# --------------------------------------------------------------------------- a case's own words as topics
_NEGATED_RE = re.compile(r"^\s*(?:no|denies|denied|without|absence of|absent|not|negative for|never)\s+(?:any\s+)?",
                         re.IGNORECASE)


def topic(finding: str) -> str:
    """A recorded finding as the thing to ask about: "No fever" -> "fever" (asking about a negated
    finding asks about the finding)."""
    return _NEGATED_RE.sub("", finding.strip()).strip() or finding.strip()


def _segments(label: str) -> list[str]:
    return [p.strip() for p in label.split(">") if p.strip()]


def _meaningful(segment: str) -> bool:
    order = read_order(segment)
    return bool(order.tests or order.methods or order.sites or order.rest)


def test_groups(labels: Iterable[str]) -> list[tuple[str, list[str]]]:
    """A case's result labels grouped into the tests a clinician orders, as ``(name, labels)`` in the
    order first seen: the WBC, haemoglobin and platelets of one blood count are one test named for the
    panel; a CT's findings are the CT."""
    groups: dict[object, tuple[str, list[str]]] = {}
    for lab in labels:
        order = read_order(lab)
        if order.empty:  # "Laboratory Tests > Other" names no test
            continue
        panel = panel_of(lab)
        segments = [s for s in _segments(lab) if _meaningful(s)] or _segments(lab)
        if panel is not None:
            identity: object = panel
            named = [s for s in segments if panel in read_order(s).tests]
            name = named[0] if named else label(panel)
        else:
            identity = (order.methods, order.sites, order.rest if not (order.methods or order.sites) else frozenset())
            name = " ".join(segments)
        if identity not in groups:
            groups[identity] = (name, [])
        groups[identity][1].append(lab)
    return list(groups.values())
