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

An environment can be stored and rebuilt between turns (the served doctor mode keeps it in its
LangGraph checkpoint)::

    saved = env.state()                                   # EnvState: plain data, JSON-serialisable
    env = ConsultationEnv.restore(case, patient_client, saved)

``EnvState`` holds everything a turn depends on: the transcript and the bookkeeping, the termination
gate's memory (anything asked yet, the void-turn streak), the settings (turn limit, persona, seed) and
the simulated patient's memory (its random generator, the replies it has said, what the last question
named), so the rebuilt environment says exactly what the original would have said next.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import BaseModel, Field

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


class PatientMemory(BaseModel):
    """What the simulated patient remembers between turns (``SimulatedPatient`` keeps it in private fields)."""

    rng: list[Any]  # ``random.Random.getstate()`` as JSON: [version, [624 words + position], gauss_next]
    said: list[str] = Field(default_factory=list)  # every reply said so far, normalised (none is said twice)
    context: str = ""  # the last question that named something (what "How much?" is about)


class EnvState(BaseModel):
    """A ``ConsultationEnv`` between turns, as plain data (``ConsultationEnv.state`` / ``restore``)."""

    version: Literal[1] = 1
    case_id: str
    persona: Persona
    seed: int = 0
    max_turns: int
    premature_diagnosis: bool = False
    patient_max_tokens: int = 32
    patient_retries: int = 1
    transcript: list[Message]
    turns: int = 0
    revealed: list[str] = Field(default_factory=list)
    ordered: list[str] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    replies: list[PatientReply] = Field(default_factory=list)
    asked: bool = False
    void_streak: int = 0
    done: bool = False
    reason: Reason | None = None
    diagnosis: str | None = None
    leaks_caught: int = 0
    fallbacks: int = 0
    patient_replies: int = 0
    patient: PatientMemory


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
        self.patient_max_tokens = patient_max_tokens
        self.patient_retries = patient_retries
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

    # ------------------------------------------------------------------ stored and rebuilt
    def state(self) -> EnvState:
        """Everything the next turns depend on, as plain data (a copy: later turns do not change it)."""
        rng = self.patient._rng.getstate()
        index = self.patient.index
        return EnvState(
            case_id=self.case.id, persona=self.persona, seed=self.seed, max_turns=self.max_turns,
            premature_diagnosis=self.premature_diagnosis, patient_max_tokens=self.patient_max_tokens,
            patient_retries=self.patient_retries, transcript=self.transcript, turns=self.turns,
            revealed=self.revealed_facts, ordered=self.ordered_tests, findings=self.findings, replies=self.replies,
            asked=self._asked, void_streak=self._void_streak, done=self.done, reason=self.reason,
            diagnosis=self.diagnosis, leaks_caught=self.leaks_caught, fallbacks=self.fallbacks,
            patient_replies=self.patient_replies,
            patient=PatientMemory(rng=[rng[0], list(rng[1]), rng[2]], said=sorted(self.patient._said),
                                  context=getattr(index, "_context", "")),
        ).model_copy(deep=True)

    @classmethod
    def restore(cls, case: Case, patient: ChatClient, state: EnvState | dict[str, Any]) -> ConsultationEnv:
        """The environment ``state`` was taken from, rebuilt around ``case`` and the patient's model."""
        state = EnvState.model_validate(state).model_copy(deep=True)
        if state.case_id != case.id:
            raise ValueError(f"the stored consultation is on case {state.case_id!r}, not {case.id!r}")
        env = cls(case, state.persona, patient, max_turns=state.max_turns, seed=state.seed,
                  premature_diagnosis=state.premature_diagnosis, patient_max_tokens=state.patient_max_tokens,
                  patient_retries=state.patient_retries)
        if not state.transcript or state.transcript[0].role != "user":
            raise ValueError("a stored consultation starts with the patient's opening")
        env._opening = state.transcript[0].content
        env._transcript = list(state.transcript)
        env._revealed = list(state.revealed)
        env._ordered = list(state.ordered)
        env._findings = list(state.findings)
        env._replies = list(state.replies)
        env.turns = state.turns
        env.done, env.reason, env.diagnosis = state.done, state.reason, state.diagnosis
        env.leaks_caught, env.fallbacks, env.patient_replies = state.leaks_caught, state.fallbacks, state.patient_replies
        env._asked, env._void_streak = state.asked, state.void_streak
        memory = state.patient
        version, words, gauss = memory.rng
        env.patient._rng.setstate((int(version), tuple(int(w) for w in words), gauss))  # Affect draws from it too
        env.patient._said = set(memory.said)
        if hasattr(env.patient.index, "_context"):
            env.patient.index._context = memory.context
        return env

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
