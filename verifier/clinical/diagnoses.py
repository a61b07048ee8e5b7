"""The names a condition goes by: abbreviations and short forms, subtypes, capitalised abbreviations."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache

from verifier.clinical.data import DIAGNOSES_FILE, DiagnosesData, _Phrases, _read, folded
from verifier.diagnosis import name_variants


@cache
def _diagnosis_index() -> tuple[_Phrases, tuple[tuple[str, ...], ...]]:
    data: DiagnosesData = _read(DIAGNOSES_FILE, DiagnosesData)  # type: ignore[assignment]
    phrases = _Phrases()
    for number, line in enumerate(data.diagnoses):
        for name in line:
            phrases.add(name, str(number))
    return phrases, tuple(tuple(line) for line in data.diagnoses)


def condition_lines() -> tuple[tuple[str, ...], ...]:
    """Every condition the data names, one tuple of its names each (the full name first)."""
    return _diagnosis_index()[1]


@cache
def _by_condition(section: str) -> dict[str, tuple[str, ...]]:
    """A ``condition -> names`` section of the data (``subtypes``, ``considered_as``), keyed by folded name."""
    data: DiagnosesData = _read(DIAGNOSES_FILE, DiagnosesData)  # type: ignore[assignment]
    return {" ".join(folded(k)): tuple(v) for k, v in getattr(data, section).items()}


def manifestations(names: Sequence[str]) -> list[str]:
    """The conditions that ``names`` (one condition's names) show themselves as (``manifestations`` in the data):
    named beside the diagnosis they say where it shows, they are no second diagnosis."""
    out: list[str] = []
    for name in diagnosis_names(list(names)):
        out.extend(n for n in _by_condition("manifestations").get(" ".join(folded(name)), ()) if n not in out)
    return out


def classes(names: Sequence[str]) -> list[str]:
    """The broader classes that ``names`` (one condition's names) belong to (``classes`` in the data): named beside the
    diagnosis as its gloss ("Double aortic arch – vascular ring"), they are no second diagnosis."""
    out: list[str] = []
    for name in diagnosis_names(list(names)):
        out.extend(n for n in _by_condition("classes").get(" ".join(folded(name)), ()) if n not in out)
    return out


def considered_names(condition: str) -> list[str]:
    """The names by which a doctor considers ``condition`` in a differential: its diagnosis names (subtypes
    included: weighing a heart attack is weighing an acute coronary syndrome) and the broader everyday names
    the data allows for considering it only ("a chest infection" for pneumonia)."""
    names = diagnosis_names([condition])
    for name in list(names):
        names.extend(n for n in _by_condition("considered_as").get(" ".join(folded(name)), ()) if n not in names)
    return names


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


def workup_tests(accepted: Sequence[str]) -> list[str]:
    """The tests clinicians order in the work-up of the condition ``accepted`` names (the data's ``workup``): those
    of every key whose words stand, in order, in one of the names ("pneumonia" in "community-acquired pneumonia")."""
    names = [" ".join(folded(name)) for name in accepted]
    out: list[str] = []
    for key, tests in _by_condition("workup").items():
        if any(f" {key} " in f" {name} " for name in names):
            out.extend(t for t in tests if t not in out)
    return out


def diagnosis_names(accepted: Sequence[str]) -> list[str]:
    """``accepted`` plus the other names the data gives the same condition: abbreviations and usual
    short forms ("TTP" for thrombotic thrombocytopenic purpura), also inside a longer name ("COPD
    exacerbation"). A name is replaced only where the whole of it (two words or more, or the whole
    diagnosis) stands in the diagnosis, so a broader or rival condition never comes in."""
    phrases, lines = _diagnosis_index()
    out = list(dict.fromkeys(accepted))
    for name in list(out):  # a narrower condition is right too (and so are its other names)
        out.extend(_by_condition("subtypes").get(" ".join(folded(name)), ()))
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
