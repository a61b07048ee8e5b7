"""``ConsultationEnv``: the consultation environment that ``patient_sim.loop.run_consultation`` drives.

It exposes what varies between consultations and nothing else — the environment's reply to a doctor
turn, and whether the consultation is over and why::

    env = ConsultationEnv(case, persona, patient_client)
    env.messages()                                # what the doctor sees: its system prompt, the opening
    step = await env.env_response(doctor_text)    # EnvStep{reply, source, done, reason}
    env.done, env.reason

The termination gate decides what a doctor turn means: a ``DIAGNOSIS:`` marker ends the
consultation (``"diagnosis"``, or ``"premature_diagnosis"`` when configured and nothing was asked
first); ``REQUEST TEST:`` lines go to the measurement responder; two void turns in a row make the
patient leave; anything else is answered by the simulated patient. The turn limit ends the consultation
after the reply to the ``max_turns``-th doctor turn.
"""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import BaseModel

from patient_sim.measurement import Finding, MeasurementResponder
from patient_sim.patient import PatientReply, SimulatedPatient
from patient_sim.personas import Persona
from patient_sim.prompts import DOCTOR_SYSTEM_PROMPT, LEAVING_REPLY
from verifier.llm import ChatClient
from verifier.markers import is_question, is_void_turn, parse_diagnosis, parse_test_requests
from verifier.types import Case, Message

logger = logging.getLogger(__name__)

Reason = Literal["diagnosis", "patient_left", "turn_limit", "premature_diagnosis"]
Route = Literal["patient", "measurement", "end"]
VOID_TURNS_BEFORE_LEAVING = 2


class EnvStep(BaseModel):
    reply: str | None
    source: Literal["patient", "measurement"] | None
    done: bool
    reason: Reason | None = None


class ConsultationEnv:
    def __init__(
        self,
        case: Case,
        persona: Persona,
        patient: ChatClient,
        *,
        max_turns: int = 6,
        seed: int = 0,
        premature_diagnosis: bool = False,
        patient_max_tokens: int = 32,
        patient_retries: int = 1,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {max_turns}")
        self.case = case
        self.persona = persona
        self.max_turns = max_turns
        self.seed = seed
        self.premature_diagnosis = premature_diagnosis
        self.patient = SimulatedPatient(
            case, persona, patient, max_retries=patient_retries, max_tokens=patient_max_tokens, seed=seed
        )
        self.measurements = MeasurementResponder(case)
        self._opening = self.patient.opening()
        self._transcript: list[Message] = [Message(role="user", content=self._opening)]
        self._revealed: list[str] = [self.patient.facts[0].text]  # the chief complaint is in the opening
        self._ordered: list[str] = []
        self._findings: list[Finding] = []
        self._replies: list[PatientReply] = []
        self.turns = 0
        self.done = False
        self.reason: Reason | None = None
        self.diagnosis: str | None = None
        self.leaks_caught = 0
        self.fallbacks = 0
        self.patient_replies = 0
        self._asked = False
        self._void_streak = 0

    # ------------------------------------------------------------------ properties
    def opening(self) -> str:
        return self._opening

    def messages(self) -> list[Message]:
        """The consultation as the doctor sees it: the doctor's system prompt, then the transcript."""
        return [Message(role="system", content=DOCTOR_SYSTEM_PROMPT), *self._transcript]

    @property
    def transcript(self) -> list[Message]:
        return list(self._transcript)

    @property
    def revealed_facts(self) -> list[str]:
        return list(self._revealed)

    @property
    def ordered_tests(self) -> list[str]:
        return list(self._ordered)

    @property
    def findings(self) -> list[Finding]:
        return list(self._findings)

    @property
    def replies(self) -> list[PatientReply]:
        """The simulated patient's replies in order (kind, stated facts, fallback), for the fidelity bench."""
        return list(self._replies)

    # ------------------------------------------------------------------ the environment's reply
    async def env_response(self, doctor_text: str) -> EnvStep:
        """Record the doctor turn; the patient's or the measurement responder's reply, or the end."""
        route = self._gate(doctor_text)
        if route == "end":
            return EnvStep(reply=None, source=None, done=True, reason=self.reason)
        return await self._respond(route, doctor_text)

    def _gate(self, doctor_text: str) -> Route:
        """Record the doctor turn and decide where it goes (the termination gate)."""
        if self.done:
            raise RuntimeError(f"the consultation is over ({self.reason}); start a new ConsultationEnv")
        self._transcript.append(Message(role="assistant", content=doctor_text))
        self.turns += 1
        diagnosis = parse_diagnosis(doctor_text)
        if diagnosis is not None:
            self.diagnosis = diagnosis
            premature = self.premature_diagnosis and not self._asked
            return self._end("premature_diagnosis" if premature else "diagnosis")
        tests = parse_test_requests(doctor_text)
        if tests:
            self._asked = True
            self._void_streak = 0
            route: Route = "measurement"
        elif is_void_turn(doctor_text):
            self._void_streak += 1
            route = "patient"
        else:
            self._asked = self._asked or is_question(doctor_text)
            self._void_streak = 0
            route = "patient"
        return route

    async def _respond(self, route: Route, doctor_text: str) -> EnvStep:
        if route == "measurement":
            tests = parse_test_requests(doctor_text)
            reply, findings = self.measurements.respond_to(doctor_text)
            self._ordered.extend(tests)
            self._findings.extend(findings)
            source: Literal["patient", "measurement"] = "measurement"
        elif self._void_streak >= VOID_TURNS_BEFORE_LEAVING:
            self._transcript.append(Message(role="user", content=LEAVING_REPLY))
            return EnvStep(reply=LEAVING_REPLY, source="patient", done=True, reason=self._finish("patient_left"))
        else:
            answer = await self.patient.reply(doctor_text, revealed=set(self._revealed))
            reply = answer.text
            self._replies.append(answer)
            self.patient_replies += 1
            self.fallbacks += int(answer.fallback)
            self.leaks_caught += answer.leaks_caught
            for fact in answer.facts:
                if fact.text not in self._revealed:
                    self._revealed.append(fact.text)
            source = "patient"
        self._transcript.append(Message(role="user", content=reply))
        if self.turns >= self.max_turns:
            return EnvStep(reply=reply, source=source, done=True, reason=self._finish("turn_limit"))
        return EnvStep(reply=reply, source=source, done=False)

    def _end(self, reason: Reason) -> Route:
        self._finish(reason)
        return "end"

    def _finish(self, reason: Reason) -> Reason:
        self.done = True
        self.reason = reason
        logger.debug("consultation %s ended: %s after %d turns", self.case.id, reason, self.turns)
        return reason
