"""Rule-stage items: questions with one verifiable answer, derived from the project's cases.

Per case: most-likely-diagnosis MCQs (several vignettes, distractors from other cases' diagnoses
and the case's own differential), short-answer diagnoses (any synonym accepted), next-investigation
MCQs (distractors are other cases' tests) and an urgency MCQ. The split is by case: held-out items
come from cases never seen in training, so a held-out gain is not memorisation of a case.

Regenerate ``data/rule/`` with ``python -m policy.rule_data`` (deterministic for a given seed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from policy.rewards import ANSWER_MARKER, normalize
from verifier.data import data_dir
from verifier.types import Case, Message

logger = logging.getLogger(__name__)

RULE_DATA_DIR = data_dir() / "rule"
SYSTEM_PROMPT = (
    "You are a careful physician answering exam questions. Think briefly, then finish with one line "
    f"'{ANSWER_MARKER} <answer>'."
)
_MCQ_TAIL = f"Reply with the letter of the best option on a final line: {ANSWER_MARKER} <letter>"
_SHORT_TAIL = f"Name the most likely diagnosis on a final line: {ANSWER_MARKER} <diagnosis>"
# One worked example (a question no case is about) before every item, so the answer format is seen
# once: the 135M model samples the ANSWER line in ~2% of replies without it and ~27% with it, and a
# group whose rewards never differ gives GRPO nothing to learn from (measured on 16 train items x 8).
_EXAMPLE_STEM = (
    "A 30-year-old woman has had a runny nose, sneezing and a scratchy throat for two days. "
    "No fever, no shortness of breath.\nWhat is the most likely diagnosis?"
)
_EXAMPLE_REASON = "Runny nose and sneezing without fever or breathlessness point to a viral upper airway infection."
EXAMPLES: dict[str, tuple[str, str]] = {
    "mcq": (
        f"{_EXAMPLE_STEM}\nA) Pulmonary embolism\nB) Common cold\nC) Acute appendicitis\nD) Gout\n{_MCQ_TAIL}",
        f"{_EXAMPLE_REASON}\n{ANSWER_MARKER} B",
    ),
    "short": (f"{_EXAMPLE_STEM}\n{_SHORT_TAIL}", f"{_EXAMPLE_REASON}\n{ANSWER_MARKER} Common cold"),
}
_LETTERS = "ABCD"
_URGENCY = {
    "emergency": "Emergency care now (call an ambulance or go to the emergency department)",
    "urgent": "Urgent review by a doctor the same day",
    "routine": "Routine appointment with the family doctor",
}

Kind = Literal["diagnosis_mcq", "diagnosis_short", "next_step_mcq", "urgency_mcq"]


class RuleItem(BaseModel):
    id: str = Field(min_length=1)
    case_id: str
    kind: Kind
    prompt: list[Message] = Field(min_length=1)
    letter: str | None = None  # the correct option for multiple-choice items
    accepted: list[str] = Field(min_length=1)  # accepted answer texts (option text and synonyms)
    split: Literal["train", "heldout"]


class RuleDataError(ValueError):
    """A rule-item file that cannot be read; the message names the file, line and field."""


def _who(case: Case) -> str:
    d = case.demographics
    if d.description:
        return d.description
    parts = [f"{d.age}-year-old" if d.age else "", d.sex or "patient", f"({d.occupation})" if d.occupation else ""]
    return "A " + " ".join(p for p in parts if p)


def _vignettes(case: Case) -> list[str]:
    who = _who(case)
    opener = f"{who} presents with {case.chief_complaint[0].lower() + case.chief_complaint[1:]}."
    symptoms = ", ".join(case.primary_symptoms + case.secondary_symptoms)
    exam = "; ".join(f"{k.split('>')[-1].strip()}: {v}" for k, v in case.physical_exam.items())
    tests = "; ".join(f"{k.split('>')[-1].strip()}: {v}" for k, v in case.test_results.items())
    history = "; ".join(case.past_medical_history + case.social_history)
    variants = [
        f"{opener} {case.history_of_present_illness} History: {history or 'none of note'}.",
        f"{opener} Symptoms: {symptoms or case.chief_complaint}. Examination: {exam or 'unremarkable'}.",
        f"{opener} {case.history_of_present_illness} Investigations: {tests or 'pending'}.",
        f"{opener} Symptoms: {symptoms or case.chief_complaint}. History: {history or 'none of note'}. "
        f"Examination: {exam or 'unremarkable'}.",
    ]
    return [" ".join(v.split()) for v in variants]


def _names(case: Case) -> list[str]:
    return [case.final_diagnosis, *case.diagnosis_synonyms]


def _clashes(option: str, accepted: list[str]) -> bool:
    """An option that names the answer (or contains / is contained in one of its names) is no distractor."""
    tokens = set(normalize(option).split())
    return any(
        (names := set(normalize(a).split())) and (names <= tokens or tokens <= names) for a in accepted
    )


def _mcq(stem: str, correct: str, distractors: list[str], rng: random.Random) -> tuple[str, str]:
    options = [correct, *distractors[: len(_LETTERS) - 1]]
    rng.shuffle(options)
    letter = _LETTERS[options.index(correct)]
    lines = "\n".join(f"{_LETTERS[i]}) {text}" for i, text in enumerate(options))
    return f"{stem}\n{lines}\n{_MCQ_TAIL}", letter


def _prompt(user: str, example: str) -> list[Message]:
    question, answer = EXAMPLES[example]
    return [
        Message(role="system", content=SYSTEM_PROMPT),
        Message(role="user", content=question),
        Message(role="assistant", content=answer),
        Message(role="user", content=user),
    ]


def _split_of(case_id: str, heldout_fraction: float, seed: int) -> Literal["train", "heldout"]:
    digest = hashlib.sha256(f"{seed}:{case_id}".encode()).digest()
    return "heldout" if int.from_bytes(digest[:4], "big") / 2**32 < heldout_fraction else "train"


def build_rule_items(cases: list[Case], *, heldout_fraction: float = 0.2, seed: int = 0) -> list[RuleItem]:
    """Rule items for ``cases`` (needs at least 4 cases for the distractors)."""
    if len(cases) < 4:
        raise ValueError(f"need at least 4 cases to draw MCQ distractors, got {len(cases)}")
    all_tests = sorted({t for c in cases for t in c.recommended_tests})
    items: list[RuleItem] = []
    for case in cases:
        rng = random.Random(f"{seed}:{case.id}")
        split = _split_of(case.id, heldout_fraction, seed)
        accepted = _names(case)
        others = [c.final_diagnosis for c in cases if c.id != case.id and not _clashes(c.final_diagnosis, accepted)]
        own_diff = [d for d in case.differential if not _clashes(d, accepted)]

        def add(
            kind: Kind, n: int, user: str, letter: str | None, names: list[str], case: Case = case, split: str = split
        ) -> None:
            items.append(
                RuleItem(
                    id=f"{case.id}:{kind}:{n}",
                    case_id=case.id,
                    kind=kind,
                    prompt=_prompt(user, "short" if letter is None else "mcq"),
                    letter=letter,
                    accepted=names,
                    split=split,  # type: ignore[arg-type]
                )
            )

        for n, vignette in enumerate(_vignettes(case)):
            pool = rng.sample(own_diff, min(1 + n % 2, len(own_diff))) + rng.sample(others, 3)
            distractors = list(dict.fromkeys(pool))[:3]
            user, letter = _mcq(f"{vignette}\nWhat is the most likely diagnosis?", case.final_diagnosis, distractors, rng)
            add("diagnosis_mcq", n, user, letter, accepted)
        for n, vignette in enumerate(_vignettes(case)[:3]):
            add("diagnosis_short", n, f"{vignette}\nWhat is the most likely diagnosis?\n{_SHORT_TAIL}", None, accepted)
        own_tests = {normalize(t) for t in case.recommended_tests} | {
            normalize(k.split(">")[-1]) for k in case.test_results
        }
        foreign = [t for t in all_tests if normalize(t) not in own_tests]
        for n, test in enumerate(case.recommended_tests[:2]):
            if len(foreign) < 3:
                break
            stem = f"{_vignettes(case)[1]}\nWhich investigation is most useful now?"
            user, letter = _mcq(stem, test, rng.sample(foreign, 3), rng)
            add("next_step_mcq", n, user, letter, [test])
        if case.disposition in _URGENCY:  # an imported case's disposition may be unknown
            stem = f"{_vignettes(case)[0]}\nHow urgently does this patient need care?"
            options = list(_URGENCY.values())
            correct = _URGENCY[case.disposition]
            user, letter = _mcq(stem, correct, [o for o in options if o != correct], rng)
            add("urgency_mcq", 0, user, letter, [correct, case.disposition])
    return items


def write_rule_items(items: list[RuleItem], out_dir: Path = RULE_DATA_DIR) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for split in ("train", "heldout"):
        path = out_dir / f"{split}.jsonl"
        with path.open("w") as fh:
            for item in items:
                if item.split == split:
                    fh.write(item.model_dump_json(exclude_none=True) + "\n")
        paths[split] = path
    return paths


def load_rule_items(path: Path | str) -> list[RuleItem]:
    """Read a JSONL of rule items; errors name the file, the line and the field."""
    path = Path(path)
    if not path.is_file():
        raise RuleDataError(f"{path}: no such file (generate it with `python -m policy.rule_data`)")
    items = []
    for lineno, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(RuleItem.model_validate_json(line))
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(p) for p in error["loc"]) or "record"
            raise RuleDataError(f"{path}:{lineno}: field '{field}': {error['msg']}") from exc
    return items


def rule_rows(items: list[RuleItem]) -> list[dict[str, object]]:
    """Dataset rows for TRL: ``prompt`` (chat messages) plus the columns ``rule_reward`` reads."""
    return [
        {
            "prompt": [m.model_dump() for m in item.prompt],
            "accepted": item.accepted,
            "letter": item.letter or "",
            "item_id": item.id,
            "case_id": item.case_id,  # validation sets aside whole cases
        }
        for item in items
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Generate the rule-stage items from the project's cases.")
    parser.add_argument("--out", type=Path, default=RULE_DATA_DIR)
    parser.add_argument("--heldout-fraction", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from patient_sim.cases import project_cases

    items = build_rule_items(project_cases(), heldout_fraction=args.heldout_fraction, seed=args.seed)
    paths = write_rule_items(items, args.out)
    counts = {split: sum(i.split == split for i in items) for split in paths}
    print(json.dumps({"items": len(items), **counts, "out": str(args.out)}))  # noqa: T201 - a script entry point


if __name__ == "__main__":
    main()
