"""What an order names: the one resolver the measurement responder and the grader share."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from verifier.clinical.data import _LABEL_WORDS, EXAM, INTENT, METHOD, SITE, TEST, _layer, _terms, label, stem

if TYPE_CHECKING:
    from verifier.types import Case


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

    @property
    def unread(self) -> bool:
        """No test, method or site the layer knows: what it asks for cannot be told (and it touches no result)."""
        return not (self.tests or self.methods or self.sites)


@cache
def _label_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in _LABEL_WORDS) | _LABEL_WORDS


@lru_cache(maxsize=65536)
def read_order(text: str, *, exam: bool = False) -> Order:
    """``text`` (an order, or a case's test label such as ``"Blood Work > CBC > WBC"``) read as an order;
    ``exam`` marks a ``REQUEST EXAM:`` order (an examination of the sites it names)."""
    layer = _layer()
    segments = text.split(">")
    if len(segments) > 1 and _bare_property(segments[-1]):  # "Stool Test > Appearance" is the stool test
        text = ">".join(segments[:-1])
    keys, rest, nested = _terms(text, True)
    # a test inside a longer test's name was done too ("LP opening pressure" is a lumbar puncture)
    tests = frozenset(k for k in [*keys, *nested] if k.startswith(TEST))
    if ">" in text:  # a result label: "Vital signs > Respiratory rate" is the respiratory rate, not every vital sign,
        # and "Chemistry Panel > Electrolytes" the electrolytes, not the whole panel: a test drops out where the
        # label names one of its parts, or a smaller panel within it
        def leaves(test: str) -> frozenset[str]:
            return frozenset(p for p in layer.parts.get(test, ()) if not layer.parts.get(p)) or frozenset({test})

        tests = frozenset(t for t in tests if not any(u != t and leaves(u) < leaves(t) for u in tests))
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


def carry_method(parts: list[str]) -> list[str]:
    """The parts of an order split at "and", each naming what it orders: a part that names no test and no
    method takes the method of the part before it ("CT head and chest": the chest is a CT; "X-ray of the left hip
    (front and frog-leg views)": the frog-leg view is an X-ray)."""
    names = _layer().names
    out: list[str] = []
    method = ""
    for part in parts:
        read = read_order(part)
        if read.methods:
            method = " ".join(names.get(m, m.removeprefix(METHOD)) for m in sorted(read.methods))
        elif not read.tests and method:
            part = f"{method} {part}"
        out.append(part)
    return out


@lru_cache(maxsize=4096)
def _bare_property(segment: str) -> bool:
    """A result label's last segment that reads as the examination alone ("Appearance"): a property of the
    test before it, not an examination of its own."""
    keys, _, _ = _terms(segment, True)
    return bool(keys) and set(keys) <= {EXAM}


def names(order: Order, target: Order) -> bool:
    """Whether ``order`` names ``target`` specifically enough to credit it: the same test or a panel
    that contains it; the same method on the same site; or, for a test the data does not know, all of
    its words."""
    if target.tests:
        if target.tests & order.covers or _placed(order, target):
            return True
        members = _layer().members
        if any(members.get(t, frozenset()) & order.covers for t in target.tests):  # "JAK2" for "Genetic testing"
            return True
        # another name for the same panel: U&Es for "electrolytes" (it shares half of the panel's parts or more)
        parts = target.covers - target.tests
        return len(parts) >= 2 and len(parts & order.covers) * 2 >= len(parts)
    if target.methods:
        if not _methods(target) & _taken(order):  # "Brain imaging" is named by a CT or an MRI of the brain
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


_SWAB, _CULTURE = METHOD + "swab", METHOD + "culture"


def _taken(order: Order) -> frozenset[str]:
    """The order's methods, with a culture where it swabs a site: a swab is how a surface is sent for culture
    ("throat swab" names a throat culture, "wound swab" a wound culture)."""
    if _SWAB in order.methods and order.sites:
        return order.methods | {_CULTURE}
    return order.methods


def _placed(order: Order, target: Order) -> bool:
    """Whether ``order`` names one of ``target``'s tests by method and site ("blood cx", "stool microscopy")."""
    if order.tests or not (order.methods and order.sites):
        return False
    layer = _layer()
    # a part of the site counts ("left wrist aspirate" is a joint aspiration); every site of the name is named: "bone
    # marrow examination" is the marrow's, not that of any bone ("Musculoskeletal examination of the legs", round 49)
    return any(methods & order.methods and all(({site} | layer.parts.get(site, frozenset())) & order.sites for site in sites)
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
    # words the layer does not know, shared both ways; a target of no such words is touched by none ("xyzzy",
    # "everything" or "IIIa" asks for no result)
    return bool(order.rest) and bool(target.rest) and (order.rest <= target.rest or target.rest <= order.rest)


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


def parts_of(key: str) -> frozenset[str]:
    """The parts of a composite site or a panel ("site:joint": the hip, the knee, ...), none for the others."""
    return _layer().parts.get(key, frozenset())


def core_of(key: str) -> frozenset[str]:
    """The parts of a panel that, ordered together one by one, are the panel ("PT, APTT": the coagulation screen);
    none where the data names none."""
    return _layer().core.get(key, frozenset())


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


def panel_key(order: str) -> str:
    """What ``order`` orders as one test: the smallest panel one of its tests is a part of ("LH" and "FSH" are the
    hormone profile ordered one result at a time), else its test, else its words."""
    tests = read_order(order).tests
    if not tests:
        return order.strip().lower()
    inside = [(len(parts), panel) for panel, parts in _layer().parts.items() if panel.startswith(TEST) and tests & parts]
    return min(inside)[1] if inside else min(tests)


def is_routine(label: str) -> bool:
    """A first-line test that rarely makes a diagnosis by itself (a blood count, electrolytes, vitals)."""
    order = read_order(label)
    return bool(order.tests) and order.tests <= _layer().routine | frozenset(
        p for t in order.tests & _layer().routine for p in _layer().parts.get(t, ()))


def _segments(label: str) -> list[str]:
    return [p.strip() for p in label.split(">") if p.strip()]


def _meaningful(segment: str) -> bool:
    order = read_order(segment)
    return bool(order.tests or order.methods or order.sites or order.rest)


def _panels_held(tests: set[str]) -> dict[str, str]:
    """For results listed one by one (``test:sodium``, ``test:chloride``, ...), the first-line panel each
    belongs to where the record holds two or more of its tests: "Na", "K", "Cl" and "HCO3" are the electrolytes
    a clinician orders as one test, "Hct", "WBC" and "Platelets" a blood count. Each result goes to the panel
    that holds most of the record's results (the smaller panel on a tie)."""
    layer = _layer()
    candidates = []
    for panel, inside in layer.parts.items():
        if not panel.startswith(TEST) or panel not in layer.routine:
            continue
        leaves = {p for p in inside if not layer.parts.get(p)}
        held = tests & leaves
        if len(held) >= 2:
            candidates.append((len(held), -len(leaves), panel, held))
    chosen: dict[str, str] = {}
    for _, _, panel, held in sorted(candidates, reverse=True):
        for test in held:
            chosen.setdefault(test, panel)
    return chosen


def test_groups(labels: Iterable[str]) -> list[tuple[str, list[str]]]:
    """A case's result labels grouped into the tests a clinician orders, as ``(name, labels)`` in the
    order first seen: the WBC, haemoglobin and platelets of one blood count are one test named for the
    panel, whether the record nests them under it or lists them one by one; a CT's findings are the CT."""
    labels = [lab for lab in labels if not read_order(lab).empty]  # "Laboratory Tests > Other" names no test
    parts = _layer().parts
    single = {lab: panel for lab in labels if (panel := panel_of(lab)) is not None and not parts.get(panel)}
    within = _panels_held(set(single.values()))
    groups: dict[object, tuple[str, list[str]]] = {}
    for lab in labels:
        order = read_order(lab)
        panel = within.get(single.get(lab, ""), panel_of(lab))
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


MAX_CASE_TESTS = 5  # the tests a case's rubric asks for
# A result an imported record gives as no result ("Not indicated in the scenario provided", "N/A"): the test is
# not one the case calls for.
_NO_RESULT_RE = re.compile(r"\s*(?:not\s+(?:indicated|performed|done|applicable|assessed|required|obtained)|n/?a)\b",
                           re.IGNORECASE)


def case_tests(case: Case) -> list[str]:
    """The tests a consultation on ``case`` should order, the case's most telling first: its recommended tests,
    else its results grouped into the tests a clinician orders (the parts of a blood count are one test), those
    that make a diagnosis (imaging, biopsy, a smear, a specific assay) before first-line panels. The rubric asks
    for these and the audit's reference doctor orders them, so the two never differ."""
    if case.recommended_tests:
        firsts = {t.strip().lower(): t.strip() for t in reversed(case.recommended_tests) if t.strip()}
        return list(dict.fromkeys(firsts[t.strip().lower()] for t in case.recommended_tests if t.strip()))[:MAX_CASE_TESTS]
    held = {lab: value for lab, value in case.test_results.items() if not _NO_RESULT_RE.match(value)}
    # a label that names no test, method or site ("Additional Tests > Suggestion") is a note, not a test to order
    groups = [(name, labels) for name, labels in test_groups(held)
              if (order := read_order(name)).tests or order.methods or order.sites]
    ordered = sorted(groups, key=lambda g: all(is_routine(lab) for lab in g[1]))
    # a test the clinicians' review left out (a blood count for molluscum) stays indicated, but is not asked for
    return [name for name, _ in ordered[:MAX_CASE_TESTS] if name not in case.rubric_leaves_out]
