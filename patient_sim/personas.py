"""Patient personas (Baichuan-M2's affective unit): personality, language, recall, confusion, social facts.

A persona shapes *how* the patient speaks, never *what* is true: the facts come from the case. When a
case is given, the persona's age and sex follow the case's demographics.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, Field

from verifier.types import Case

MBTI_TYPES = [
    a + b + c + d for a in "EI" for b in "SN" for c in "TF" for d in "JP"
]
OCCUPATIONS = [
    "teacher", "nurse", "bus driver", "shop assistant", "software developer", "farmer", "accountant",
    "builder", "student", "retired", "cleaner", "chef", "hairdresser", "police officer", "unemployed",
]
EDUCATION = ["primary school", "secondary school", "vocational training", "university degree", "postgraduate"]
BIASES = [
    "worries that every symptom means something very serious",
    "tends to play symptoms down",
    "distrusts doctors and prefers natural remedies",
    "has read a lot about symptoms online",
    "is worried about taking time off work",
]

_LANGUAGE = {
    "A": "basic: very short, simple sentences and everyday words",
    "B": "intermediate: plain everyday sentences",
    "C": "proficient: fluent and articulate",
}


class Persona(BaseModel):
    mbti: str = Field(pattern=r"^[EI][SN][TF][JP]$")
    language: Literal["A", "B", "C"] = "B"
    recall: Literal["high", "low"] = "high"
    confusion: Literal["normal", "high"] = "normal"
    age: int | None = None
    sex: str | None = None
    occupation: str = "retired"
    education: str = "secondary school"
    bias: str | None = None

    @property
    def extravert(self) -> bool:
        return self.mbti.startswith("E")

    @property
    def feeling(self) -> bool:
        return self.mbti[2] == "F"

    def describe(self) -> str:
        """A few lines for a prompt: who the patient is and how they talk (no medical facts)."""
        who = ", ".join(
            part
            for part in (
                f"{self.age} years old" if self.age is not None else "",
                self.sex or "",
                self.occupation,
                f"education: {self.education}",
            )
            if part
        )
        manner = "talkative and open" if self.extravert else "reserved and brief"
        manner += ", speaks about feelings" if self.feeling else ", sticks to practical details"
        lines = [
            f"You are {who}.",
            f"Personality ({self.mbti}): {manner}.",
            f"Language: {_LANGUAGE[self.language]}.",
        ]
        if self.recall == "low":
            lines.append("Memory: you are vague about exact times and numbers.")
        if self.confusion == "high":
            lines.append("You are a little muddled and sometimes hesitate.")
        if self.bias:
            lines.append(f"Attitude: you {self.bias}.")
        return "\n".join(lines)


def sample_persona(seed: int, case: Case | None = None) -> Persona:
    """A persona drawn from ``seed`` alone (the same seed gives the same style for every case)."""
    rng = random.Random(seed)
    persona = Persona(
        mbti=rng.choice(MBTI_TYPES),
        language=rng.choices(["A", "B", "C"], weights=[2, 5, 3])[0],
        recall=rng.choices(["high", "low"], weights=[7, 3])[0],
        confusion=rng.choices(["normal", "high"], weights=[8, 2])[0],
        age=rng.randint(18, 85),
        sex=rng.choice(["female", "male"]),
        occupation=rng.choice(OCCUPATIONS),
        education=rng.choice(EDUCATION),
        bias=rng.choice(BIASES) if rng.random() < 0.3 else None,
    )
    if case is not None:
        demo = case.demographics
        update: dict[str, object] = {}
        if demo.age is not None:
            update["age"] = demo.age
        if demo.sex:
            update["sex"] = demo.sex
        if demo.occupation:
            update["occupation"] = demo.occupation
        persona = persona.model_copy(update=update)
    return persona


def sample_personas(n: int, seed: int, cases: list[Case] | None = None) -> list[Persona]:
    """``n`` personas from seeds ``seed, seed+1, ...``; persona ``i`` follows ``cases[i % len(cases)]``."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return [
        sample_persona(seed + i, cases[i % len(cases)] if cases else None) for i in range(n)
    ]
