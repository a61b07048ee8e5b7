"""Warm-start dialogues for the ``sft`` stage: the scripted reference doctor, varied, and the simulated patient.

Each dialogue is one consultation played by **the** consultation loop (``patient_sim.loop``), with the
environment, doctor system prompt and sampling config the GRPO rollouts and the consultation eval use;
only the doctor is scripted (:class:`ScriptedDoctorClient`): the exploit audit's reference doctor
(``patient_sim.doctors``), its wording, order, pacing and persona varied by seed, so the model learns
the protocol rather than one transcript. The patient's replies and the test results are real output of
the simulated patient and the measurement responder.

What the reference knows that a doctor would not (the case's diagnosis, its key questions) is what
makes it a teacher; a model trained on it learns the protocol — questions one or two at a time,
``REQUEST TEST:`` orders, one ``DIAGNOSIS:`` line with a plan — and must still infer the diagnosis.

Its orders are not the case's whole test list: a student copies a list, and on an unseen case a copied
list is a test shotgun. The teacher orders what the history it has heard points to (``heard_orders``):
the tests the presenting complaint calls for first, then a test of a body part the patient has spoken
of, at most ``MAX_ORDERS``, decided when the order turn comes, from the patient's own words.

Every turn fits the sampling config: at most ``max_turns`` turns, the last one the diagnosis, each under
``turn_tokens`` tokens, so nothing the model learns to say is cut at evaluation.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Callable, Sequence
from typing import TypeAlias

from patient_sim.doctors import flag_question, question_sentence, reference_questions, reference_tests
from patient_sim.loop import ConsultationResult, SamplingConfig, consult
from patient_sim.personas import sample_persona
from verifier import clinical
from verifier.llm import ChatClient, Completion
from verifier.markers import parse_diagnoses
from verifier.types import Case, Message

# The openers do not echo the complaint: it is the patient's own first-person sentence ("my tummy is
# swollen"), and an echo teaches "I'm sorry to hear about the my tummy ...".
OPENERS = (
    "I'm sorry to hear that; it sounds worrying.",
    "Thank you for coming in. I understand this is worrying you.",
    "I'm sorry you're dealing with this. Let's work out what is going on.",
    "That sounds unpleasant. I'd like to understand it better.",
    "I can see this is troubling you, and I want to help.",
)
CONNECTORS = ("", "", "And ", "Also, ", "Next: ")
MEDICATION_QUESTIONS = (
    "Do you have any allergies to medicines, and what medications do you take?",
    "Are you taking any medications, and are you allergic to any medicines?",
    "Do you take any regular medicines, and do you have any drug allergies?",
)
ORDER_LEADS = ("Thank you. From what you have told me, I would like some tests.",
               "Thank you, that helps. Given what you describe, let's do some tests.",
               "Thanks. To look into what you have told me, I'll order a few tests.",
               "I'd like to check a few things that your symptoms point to.")
# At most this many tests in the order turn: the ones the complaint calls for, then one a heard site does.
MAX_ORDERS = 3
COMPLAINT_TESTS = 2  # the case's first tests are its most telling: the presenting complaint calls for them
REASONS = (
    "From what you have told me and the results, this is {dx}.",
    "Putting your symptoms and the results together, this is {dx}.",
    "Your history and results fit {dx}.",
)
DIFFERENTIALS = ("I also considered {other}, but it fits less well.", "{other} is less likely here.",
                 "I thought about {other}, but it fits less well.")
EMPATHY = ("I understand this is worrying.", "I know this is a lot to take in.", "I understand your concern.")
PLANS = {
    "emergency": ("This needs emergency treatment now: I am calling an ambulance to take you to the emergency "
                  "department.", "Please call an ambulance now: you need the emergency department straight away."),
    "urgent": ("You need to be seen urgently today, so I am arranging a same-day assessment.",
               "I am arranging an urgent same-day assessment for you today."),
    "routine": ("The plan is treatment for this and a follow-up review with me in two weeks.",
                "We will start treatment and review you in a follow-up appointment in two weeks."),
}
SAFETY_NETS = ("If it gets worse or you notice anything new, come back or seek urgent help.",
               "If things get worse, come back straight away or seek urgent help.")


# A scripted turn: its text, or a function of the conversation so far (a turn decided by what was heard).
Turn: TypeAlias = str | Callable[[list[Message]], str]


class ScriptedDoctorClient:
    """A ``ChatClient`` that says the next of ``turns`` (the doctor's turns so far decide which)."""

    model = "scripted-reference"

    def __init__(self, turns: Sequence[Turn]) -> None:
        if not turns:
            raise ValueError("a scripted doctor needs at least one turn")
        self.turns = list(turns)

    async def complete(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
                       stop: list[str] | None = None, seed: int | None = None) -> Completion:
        said = sum(1 for m in messages if m.role == "assistant")
        turn = self.turns[min(said, len(self.turns) - 1)]
        return Completion(text=turn if isinstance(turn, str) else turn(messages))


def _sites(text: str) -> frozenset[str]:
    """The body parts and specimens ``text`` speaks of, its concepts' too ("I pee" speaks of the urine)."""
    return frozenset(key for term in clinical.terms(text) for key in clinical.terms(term)
                     if key.startswith(clinical.SITE))


def heard_orders(case: Case, heard: str) -> list[str]:
    """The case's tests that the history heard so far (``heard``: the patient's words) points to.

    The presenting complaint calls for the case's first ``COMPLAINT_TESTS`` tests; a later one is ordered
    only when it is a test of a body part (or specimen) the patient has spoken of — the abdominal
    ultrasound after "pain in my tummy", the urine culture after "it burns when I pee" — and no more than
    ``MAX_ORDERS`` in all.
    """
    tests = reference_tests(case)[:5]
    chosen = tests[:COMPLAINT_TESTS]
    spoken = _sites(heard)
    for test in tests[COMPLAINT_TESTS:]:
        if len(chosen) < MAX_ORDERS and _sites(test) & spoken:
            chosen.append(test)
    return chosen


def patient_words(messages: Sequence[Message]) -> str:
    """What the doctor has heard: the patient's turns, not the results of tests."""
    return " ".join(m.content for m in messages if m.role == "user" and not m.content.startswith("RESULTS:"))


def varied_reference(
    case: Case, seed: int, *, max_turns: int, fits: Callable[[str], bool] = lambda _t: True
) -> list[Turn]:
    """The reference doctor's turns for ``case``, worded, ordered and paced by ``seed``, in ``max_turns``
    turns (history, then one turn of orders when the case has tests, then the diagnosis); ``fits`` says
    whether a turn is short enough for the sampling config's ``turn_tokens``. The order turn is decided
    when it comes, from what the patient has said (``heard_orders``)."""
    if max_turns < 2:
        raise ValueError("a warm-start dialogue needs at least two turns (a question and the diagnosis)")
    rng = random.Random(seed)
    tests = reference_tests(case)[:5]
    history_turns = max_turns - 1 - (1 if tests else 0)
    if history_turns < 1:
        tests, history_turns = [], max_turns - 1
    questions = [question_sentence(q) for q in reference_questions(case)]
    rng.shuffle(questions)
    extras = [rng.choice(MEDICATION_QUESTIONS), *(flag_question(f) for f in case.red_flags[:3])]
    turns: list[str] = []
    pending = [*questions, *extras]
    while pending and len(turns) < history_turns:
        take = 1 if rng.random() < 0.35 and len(pending) <= 2 * (history_turns - len(turns)) - 1 else 2
        group, pending = pending[:take], pending[take:]
        turns.append(" ".join(f"{rng.choice(CONNECTORS) if i else ''}{q}" for i, q in enumerate(group)))
    opener = rng.choice(OPENERS)
    if fits(f"{opener} {turns[0]}"):
        turns[0] = f"{opener} {turns[0]}"
    result: list[Turn] = list(turns)
    if tests:
        result.append(_order_turn(case, rng.choice(ORDER_LEADS), fits))
    result.append(_closing(case, rng, fits))
    return result


def _order_turn(case: Case, lead: str, fits: Callable[[str], bool]) -> Callable[[list[Message]], str]:
    def order(messages: list[Message]) -> str:
        tests = heard_orders(case, patient_words(messages))
        while len(tests) > 1 and not fits(lead + "\n" + "\n".join(f"REQUEST TEST: {t}" for t in tests)):
            tests = tests[:-1]  # the case's first tests are its most important
        return lead + "\n" + "\n".join(f"REQUEST TEST: {t}" for t in tests)

    return order


def _closing(case: Case, rng: random.Random, fits: Callable[[str], bool]) -> str:
    dx = case.final_diagnosis
    parts = [rng.choice(EMPATHY), rng.choice(REASONS).format(dx=dx)]
    if case.differential:
        parts.append(rng.choice(DIFFERENTIALS).format(other=case.differential[0]))
    plan = rng.choice(PLANS.get(case.disposition, PLANS["routine"]))
    safety = rng.choice(SAFETY_NETS)
    droppable = [1, 2] if case.differential else [1]  # the reason and the differential go first if too long
    while True:
        text = f"DIAGNOSIS: {dx}\n" + " ".join(parts) + f"\n{plan}\n{safety}"
        if fits(text) or not droppable:
            return text
        del parts[droppable.pop()]


async def warm_start_dialogues(
    cases: Sequence[Case], patient: ChatClient, sampling: SamplingConfig, *, variants: int = 4, seed: int = 0,
    concurrency: int = 8, fits: Callable[[str], bool] = lambda _t: True, progress: bool = False,
) -> list[ConsultationResult]:
    """``variants`` consultations per case, each with its own wording, pacing and persona, played by the
    loop (at most ``concurrency`` at once, so their patient turns share the patient model's batches)."""
    from tqdm import tqdm

    episodes = [(case, episode_seed(case, variant, seed)) for case in cases for variant in range(variants)]
    semaphore = asyncio.Semaphore(concurrency)
    bar = tqdm(total=len(episodes), desc="warm-start dialogues", unit="dlg", disable=not progress)

    async def one(case: Case, at_seed: int) -> ConsultationResult:
        doctor = ScriptedDoctorClient(varied_reference(case, at_seed, max_turns=sampling.max_turns, fits=fits))
        async with semaphore:
            result = await consult(case, sample_persona(at_seed, case), doctor, patient, sampling, seed=at_seed)
        bar.update(1)
        return result

    try:
        return list(await asyncio.gather(*(one(case, at_seed) for case, at_seed in episodes)))
    finally:
        bar.close()


def episode_seed(case: Case, variant: int, seed: int = 0) -> int:
    """A seed of its own for each (case, variant, run seed), stable across runs and processes."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{case.id}/{variant}".encode()).digest()[:4], "big")


def is_complete(result: ConsultationResult) -> bool:
    """A dialogue fit to teach from: it ended on its one diagnosis, in the doctor's last turn."""
    doctor = [m.content for m in result.transcript if m.role == "assistant"]
    return result.termination_reason == "diagnosis" and bool(doctor) and len(parse_diagnoses(doctor[-1])) == 1
