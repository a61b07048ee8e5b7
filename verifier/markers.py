"""The consultation protocol markers, parsed in one place.

The doctor (the policy) orders an examination or test with ``REQUEST TEST: <name>`` (one per line,
``REQUEST EXAM: <system>`` is accepted as a synonym) and ends with ``DIAGNOSIS: <diagnosis>`` followed
by the plan. The patient simulator's gate, the rule grader and the trainer's void-turn filter all use
these functions so that they agree.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.clinical import Order

TEST_MARKER = "REQUEST TEST:"
DIAGNOSIS_MARKER = "DIAGNOSIS:"

_TEST_RE = re.compile(r"REQUEST\s+(?:TEST|EXAM|EXAMINATION)\s*:\s*(.+)", re.IGNORECASE)
# (not "That's the diagnosis: pain and involuntary muscle spasm with penetration", an explanation in the text that
# follows the marker, round 102, read as a second diagnosis)
_DIAGNOSIS_RE = re.compile(r"(?<!that's the )(?<!that is the )(?<!this is the )(?<!here's the )"
                           r"(?:FINAL\s+)?DIAGNOSIS(?:\s+READY)?\s*:\s*(.+)", re.IGNORECASE)
_QUESTION_WORDS = re.compile(
    r"\b(what|when|where|which|who|why|how|do|does|did|are|is|have|has|had|can|could|any|tell me|describe)\b",
    re.IGNORECASE,
)


def parse_test_requests(text: str) -> list[str]:
    """Names of tests/examinations ordered in ``text`` (stripped, in order, duplicates kept)."""
    found: list[str] = []
    for match in _TEST_RE.finditer(text):
        name = match.group(1).strip().strip(".*[]\"'").strip()
        if name:
            found.append(name)
    return found


_ORDER_RE = re.compile(r"REQUEST\s+(TEST|EXAM|EXAMINATION)\s*:\s*(.+)", re.IGNORECASE)
_ORDER_SPLIT = re.compile(r"\s*(?:,|;|\+|\s&\s)\s*", re.IGNORECASE)


def _split_outside_brackets(line: str) -> list[str]:
    """``_ORDER_SPLIT`` pieces of an order line, a bracketed aside kept whole: "hepatitis panel (HBsAg, anti-HBc,
    anti-HCV), HIV" is two orders, the panel with its parts named in the aside, and HIV."""
    masked, depth = [], 0
    for char in line:  # separators inside brackets become spaces, so the split never sees them
        depth = depth + 1 if char == "(" else max(depth - 1, 0) if char == ")" else depth
        masked.append(" " if depth and char in ",;+&" else char)
    pieces, start = [], 0
    for match in _ORDER_SPLIT.finditer("".join(masked)):
        pieces.append(line[start:match.start()])
        start = match.end()
    return [*pieces, line[start:]]


_BLOOD_COUNT, _SMEAR, _IMAGING = "test:cbc", "method:smear", "method:imaging"
# The views an image is taken in, said after its site ("both hips AP and frog-leg lateral")
# ("lateral" alone is a study of its own: "lateral neck soft tissue")
_VIEWS = frozenset({"ap", "pa", "oblique", "frog", "view", "axillary", "bilateral"})
# The side of a site, said beside it: "XR pelvis AP + L hip frog-leg lateral" (round 69)
_SIDES = frozenset({"left", "right", "l", "r", "lt", "rt"})


def _sites_in_views(order: Order) -> bool:
    """Whether an order's words besides its sites are only sites ("chest", "abdomen"), their side ("L hip") or the
    views an image is taken in ("both hips AP and frog-leg lateral")."""
    from verifier import clinical

    left = order.rest - {site.removeprefix(clinical.SITE) for site in order.sites} - _SIDES
    views = _VIEWS | ({"lateral", "lat", "leg"} if left & _VIEWS else set())
    return left <= views


def parse_orders(text: str) -> list[tuple[str, str]]:
    """Every ordered item as ``(kind, name)``, kind ``"test"`` or ``"exam"``; a line that orders several
    ("REQUEST TEST: ECG, troponin, chest X-ray") gives one entry per item. "and" and "/" do not split,
    since test names contain them ("urea and electrolytes", "CT abdomen/pelvis w/o contrast"), and a
    piece that names only body sites belongs to the order before it ("CT chest, abdomen and pelvis")."""
    from verifier import clinical  # the clinical layer reads markers' neighbours, not markers

    found: list[tuple[str, str]] = []
    for match in _ORDER_RE.finditer(text):
        kind = "test" if match.group(1).upper() == "TEST" else "exam"
        line, specimen = match.group(2), ""
        if (lead := _SPECIMEN_LEAD.match(line)) and _only_sites(clinical.read_order(lead.group(1))):
            specimen, line = lead.group(1), lead.group(2)  # "Stool: C. diff toxin, culture, white cells"
        stated = bool(specimen)
        for index, name in enumerate(n for piece in _split_outside_brackets(line) for n in _bracket_list(piece)):
            name = name.strip().strip(".*[]\"'").strip()
            if not name:
                continue
            if specimen:
                name = _on_specimen(name, specimen, stated=stated)
            elif index == 0:
                sites = clinical.read_order(name).sites
                specimen = clinical.label(next(iter(sites))) if len(sites) == 1 else ""
            if (shared := _shared_head(name)) is not None:  # "antinuclear and antimitochondrial antibodies"
                found.extend((kind, each) for each in shared)
                continue
            order = clinical.read_order(name)
            if order.methods == {_SMEAR} and not (order.tests or order.sites or order.rest) \
                    and _BLOOD_COUNT in clinical.read_order(match.group(2)).tests:
                name, order = f"blood {name}", clinical.read_order(f"blood {name}")  # "CBC, smear": the blood smear
            if _SMEAR in order.methods and _BLOOD_COUNT in order.tests and not order.sites:
                # round 99: "CBC with smear", "CBC w/ diff and smear": the blood count and the blood smear
                found.extend([(kind, name), (kind, "blood smear")])
                continue
            # ("CT neck, chest, abdomen and pelvis": after an imaging study, "chest" is the site, though the layer
            # knows the word of its own; after an examination, "throat and tonsils" is another examination)
            # (or with the views it is taken in: "X-ray pelvis, both hips AP and frog-leg lateral")
            # (or a view alone: "Left shoulder X-ray, AP, scapular Y, and axillary views", round 50)
            if found and found[-1][0] == kind and (order.sites or order.rest) and not (order.tests or order.methods) \
                    and ((order.sites and not order.rest)
                         or (_sites_in_views(order)
                             and clinical.read_order(found[-1][1]).methods & clinical.parts_of(_IMAGING))):
                found[-1] = (kind, f"{found[-1][1]}, {name}")
            else:
                found.append((kind, name))
    return found


# A line's specimen said once: "Stool: toxin, culture" (before a colon) or "Stool sample for toxin, culture, white
# cells" (the first order's only site): the orders after it that name no site of their own are on it.
_SPECIMEN_LEAD = re.compile(r"\s*([A-Za-z][A-Za-z ]{1,24}?)\s*:\s*(\S.*)")


# A head that names a bundle of tests, whose brackets may list them: "viral hepatitis screen (HAV IgM, HBsAg, HEV)"
_BUNDLE_RE = re.compile(r"\b(?:screen|panel|profile|serology|work-?up|studies|antibodies)\b", re.IGNORECASE)
# A list of tests packed into brackets after a head that names none: "bloods (FBC, U&Es, LFTs, clotting)".
_BRACKET_LIST_RE = re.compile(r"\s*([^()]{1,40}?)\s*\(([^()]*,[^()]*)\)\s*")


def _bracket_list(name: str) -> list[str]:
    """The orders of one piece of a line: the tests of a bracketed list whose head names no test or method of its
    own ("bloods (FBC, U&Es, LFTs)": the FBC, the U&Es and the LFTs, each counted and credited as ordered alone),
    read on the head's specimen ("urine (dip, MC&S)"); otherwise the piece itself ("Left shoulder X-ray (AP,
    axillary and scapular Y views)" is one study)."""
    from verifier import clinical

    match = _BRACKET_LIST_RE.fullmatch(name)
    if match is None:
        return [name]
    head = clinical.read_order(match.group(1))
    listed = [p.strip() for p in match.group(2).split(",") if p.strip()]
    if head.tests or head.methods:
        # a screen with its tests named: "liver autoimmune screen (ANA, anti-mitochondrial antibody, smooth muscle
        # antibody)" orders the screen and each of them (round 50)
        if head.tests and _BUNDLE_RE.search(match.group(1)) and all(clinical.read_order(p).tests for p in listed):
            return [name, *listed]
        return [name]
    if not any(clinical.read_order(p).tests for p in listed):
        return [name]
    specimen = clinical.label(next(iter(head.sites))) if len(head.sites) == 1 else ""
    return [_on_specimen(p, specimen, stated=False) if specimen else p for p in listed]


def _only_sites(order: Order) -> bool:
    return bool(order.sites) and not (order.tests or order.methods)


def _on_specimen(name: str, specimen: str, *, stated: bool) -> str:
    """``name`` read on ``specimen`` ("culture" -> "stool culture", "white cells" -> "stool white cells", the
    faecal leukocytes). A specimen ``stated`` before a colon covers every order that names no site; one read off
    the first order covers a method ("culture", "microscopy") or a test that means more on it, never a test of its
    own ("FBC" after a urine dip is still the blood count)."""
    from verifier import clinical

    alone = clinical.read_order(name)
    if alone.sites:
        return name
    placed = f"{specimen} {name}"
    if stated or alone.methods or clinical.read_order(placed).tests - alone.tests:
        return placed
    return name


_SHARED_HEAD = re.compile(r"([A-Za-z][\w-]*) and ([A-Za-z][\w-]*) ([A-Za-z].*)")


def _shared_head(name: str) -> tuple[str, str] | None:
    """Two tests that share their last words ("antinuclear and antimitochondrial antibodies": the ANA and the
    AMA), or None where the first word is a test itself ("urea and electrolytes") or either is no test alone."""
    from verifier import clinical

    match = _SHARED_HEAD.fullmatch(name.strip())
    if match is None:
        return None
    first, second, head = match.groups()
    one, two = f"{first} {head}", f"{second} {head}"
    tests_one, tests_two = clinical.read_order(one).tests, clinical.read_order(two).tests
    if clinical.read_order(first).tests or not tests_one or not tests_two or tests_one == tests_two:
        return None
    return one, two


def parse_diagnoses(text: str) -> list[str]:
    """Every diagnosis named after a ``DIAGNOSIS:`` marker in ``text``, in order."""
    found = []
    for line in text.splitlines():
        match = _DIAGNOSIS_RE.search(line)
        if match and match.group(1).strip():
            found.append(match.group(1).strip().strip(".*[]\"'").strip())
    return found


def parse_diagnosis(text: str) -> str | None:
    """The diagnosis named after the ``DIAGNOSIS:`` marker, or None when there is no marker."""
    for line in text.splitlines():
        match = _DIAGNOSIS_RE.search(line)
        if match and match.group(1).strip():
            return match.group(1).strip().strip(".*[]\"'").strip()
    return None


def is_question(text: str) -> bool:
    """A doctor turn that asks the patient something."""
    if "?" in text:
        return True
    return bool(_QUESTION_WORDS.search(text.split("\n", 1)[0][:80])) and len(text.split()) <= 60


def is_void_turn(text: str) -> bool:
    """A doctor turn with neither a question, an order nor a final answer (SimpleTIR's void turn)."""
    stripped = text.strip()
    if not stripped:
        return True
    return not (is_question(stripped) or parse_test_requests(stripped) or parse_diagnosis(stripped))
