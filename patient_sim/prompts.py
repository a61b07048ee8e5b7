"""Prompts of the consultation: the doctor's system prompt and the simulated patient's templates.

Placeholders are named; bump the version when a prompt changes so that cached or logged results can
be told apart.
"""

from __future__ import annotations

from verifier.markers import DIAGNOSIS_MARKER, TEST_MARKER

DOCTOR_PROMPT_VERSION = "doctor-v1"
PATIENT_PROMPT_VERSION = "patient-v3"

DOCTOR_SYSTEM_PROMPT = f"""You are a careful doctor interviewing a patient.
Rules:
- Ask ONE short question per turn.
- To order an examination or a test, write a line: {TEST_MARKER} <name>
- When you are ready, write a line: {DIAGNOSIS_MARKER} <diagnosis>
  and then give a short management plan (tests, treatment, urgency, safety-net advice).
- Do not give a diagnosis before you have asked about the symptoms."""

# The patient model only ever sees the reply already built from the facts selected for the current
# question (``SimulatedPatient.template``: first person, in the persona's manner) and is asked only to say
# it in its own words; it never sees the diagnosis, the examination or the test results, so it cannot leak
# what it was not given, and the checker refuses a draft that drops a fact term or number of that reply.
# Every patient prompt is ``PATIENT_SYSTEM_HEAD`` + the persona + one short tail: the head is the same
# for every call and the persona for every call of an episode, so only the tail (this turn's reply) and
# the question are new tokens to prefill; the rest comes from the model client's prefix cache.
PATIENT_SYSTEM_HEAD = """You are a patient talking to a doctor. Never act as the doctor or an assistant.
You are given what you want to say. Say it to the doctor in your own words, in the first person, in one or \
two short sentences, as the person described below. Keep every detail and every number; add no symptom, \
number, test result or medical word. You do not know what illness you have, your test results or anything \
written about you.
{persona}
"""
PATIENT_RESTYLE_TAIL = 'What you want to say: "{reply}"'


def patient_system(persona: str, tail: str) -> str:
    """The patient's system prompt: the shared head, the persona's lines, then this turn's ``tail``."""
    return PATIENT_SYSTEM_HEAD.format(persona=persona) + tail


LEAVING_REPLY = "I don't think this is getting anywhere. I'm going to go home now."
MEASUREMENT_HEADER = "RESULTS:"
