"""Prompts of the consultation: the doctor's system prompt and the simulated patient's templates.

Placeholders are named; bump the version when a prompt changes so that cached or logged results can
be told apart.
"""

from __future__ import annotations

from verifier.markers import DIAGNOSIS_MARKER, TEST_MARKER

DOCTOR_PROMPT_VERSION = "doctor-v1"
PATIENT_PROMPT_VERSION = "patient-v2"

DOCTOR_SYSTEM_PROMPT = f"""You are a careful doctor interviewing a patient.
Rules:
- Ask ONE short question per turn.
- To order an examination or a test, write a line: {TEST_MARKER} <name>
- When you are ready, write a line: {DIAGNOSIS_MARKER} <diagnosis>
  and then give a short management plan (tests, treatment, urgency, safety-net advice).
- Do not give a diagnosis before you have asked about the symptoms."""

# The patient model only ever sees the facts selected for the current question (never the diagnosis,
# the examination or the test results), so it cannot leak what it was not given.
# Every patient prompt is ``PATIENT_SYSTEM_HEAD`` + the persona + one short tail: the head is the same
# for every call and the persona for every call of an episode, so only the tail (the selected facts) and
# the question are new tokens to prefill; the rest comes from the model client's prefix cache.
PATIENT_SYSTEM_HEAD = """You are a patient talking to a doctor. Never act as the doctor or an assistant.
Answer the doctor in the first person in one or two short sentences, using ONLY the facts listed for this \
question. Do not add other symptoms, numbers, test results or medical words. You do not know what illness \
you have, your test results or anything written about you. If no facts are listed, say in one short \
sentence that you are not sure or have not noticed it, without any symptom, number or medical word.
{persona}
"""
PATIENT_FACTS_TAIL = "Facts for this question:\n{facts}"
PATIENT_UNSURE_TAIL = "Facts for this question: none."
PATIENT_REFUSAL_TAIL = (
    "Facts for this question: none. The doctor asks about your illness or results: say that you don't know "
    "and hope the doctor can find out. Do not name any illness."
)


def patient_system(persona: str, tail: str) -> str:
    """The patient's system prompt: the shared head, the persona's lines, then this turn's ``tail``."""
    return PATIENT_SYSTEM_HEAD.format(persona=persona) + tail


LEAVING_REPLY = "I don't think this is getting anywhere. I'm going to go home now."
MEASUREMENT_HEADER = "RESULTS:"
