"""The simulated patient: select facts, let the model voice them, check the draft, fall back to a template.

The reply is first built from the facts selected for the current question by a deterministic
first-person template in the persona's manner (``template``); the model is only shown that reply and asked
to say it in its own words. Every draft goes through ``LeakChecker``, which also refuses a draft that drops
one of the facts' clinical terms or numbers; after ``max_retries`` rejected drafts the template reply is
said as it is, so the patient stays grounded even on the 135M embedded model.
"""

from __future__ import annotations

import logging
import random
import re
from typing import Literal

from pydantic import BaseModel, Field

from patient_sim import prompts
from patient_sim import text as tx
from patient_sim.affect import Affect
from patient_sim.checker import LEAK_REASONS, CheckResult, LeakChecker, clinical_vocabulary
from patient_sim.facts import Fact, FactIndex, case_facts
from patient_sim.personas import Persona
from verifier import clinical
from verifier.llm import ChatClient, Completion, LLMError
from verifier.types import Case, Message

logger = logging.getLogger(__name__)

ProbeKind = Literal["diagnosis", "tests", "meta"]
_META_RE = re.compile(
    r"ignore (all |any |your |the |previous |prior )*(instructions|rules|prompt)|system prompt|case file|"
    r"your (instructions|prompt|file|notes|script)|print (your|the)|reveal|you are an? (ai|language model|assistant)|"
    r"role[- ]?play",
    re.IGNORECASE,
)
_DIAGNOSIS_RE = re.compile(
    r"\bdiagnos\w*|what('?s| is) wrong with (me|you)|what (do you think )?(you|i) have\b|"
    r"what (illness|disease|condition) (do|have)|what (is|do you think) (it|this) is|what have you got",
    re.IGNORECASE,
)
_TESTS_RE = re.compile(
    r"\b(tests?|results?|scans?|x-?rays?|bloods?|blood work|labs?|ecg|ultrasound|ct|mri)\b.*\b(show|say|said|"
    r"find|found|reveal|come back|came back)\b|\bwhat (were|are) (the|your) (results|tests|findings)",
    re.IGNORECASE,
)
_YES_NO_DX_RE = re.compile(r"\b(do|did|could|might|have) (you|i) (have|had|got|be)\b|\b(is|could) (it|this) be\b",
                           re.IGNORECASE)
_PAST_VERB_FOLLOWERS = {"", "once", "twice", "up", "a", "an", "several", "two", "three", "on", "after", "in"}
_PROGRESSIVE = {"feeling", "passing", "getting", "waking", "struggling", "coughing", "going", "having", "losing",
                "taking", "using", "sleeping", "eating", "drinking", "experiencing"}
# Past verbs that open a sentence about the symptom itself ("Started yesterday"), not about the patient.
_SUBJECT_VERBS = {"started", "worsened", "improved", "increased", "decreased", "lasted", "resolved", "settled"}
_VERB_START = {"diagnosed", "treated", "born", "admitted", "operated"}
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
HEARD_MAX_CHARS = 300
_RELATIONS = re.compile(r"^(father|mother|brother|sister|son|daughter|grand\w+|aunt|uncle|parents?)\b", re.I)



# A request for leave and nothing else: "May I ask you a few questions?", "Would it be alright if I examine you?",
# "Few questions, is that alright?", "Would you mind stepping out so I can talk with her?"
_LEAVE_RE = re.compile(
    r"^\W*(?:(?:now(?: then)?|ok(?:ay)?|right|so),?\s+)?(?:(?:may|can|could|might) i\b|(?:would|is) it (?:be )?(?:alright|all right"
    r"|ok(?:ay)?|fine) (?:if|to)\b|(?:do|would) you mind\b|mind if i\b)", re.IGNORECASE)
# (round 90, a Romanian-trained doctor's English: "Let me ask some questions together, is OK?", "I ask everybody this
# question, is OK?", "I need to screen for safety, is routine, is OK?")
_QUESTIONS_LEAVE_RE = re.compile(
    r"\b(?:questions?|screen)\b[^?]{0,40}?\W+(?:is that |would that be |is it |is |it's |that's )?(?:alright|all right|ok(?:ay)?"
    r"|fine)\W*$", re.IGNORECASE)

# (round 102, an Indonesian-trained doctor's tag: "Let me ask a few things, ya?", "I need to check a few important things,
# ya?", "Important questions, ya?")
_SAYS_LEAVE_RE = re.compile(
    r"^\W*(?:(?:oh|ok(?:ay)?|right|so|now),?\s+)?(?:let me (?:ask|check|go through|run through)|i (?:need|want|have|would like|'d like)"
    r" to (?:ask|check|go through|run through)|i ask (?:everyone|everybody|all)|(?:a few |some )?important (?:questions|things))"
    r"\b[^?]{0,50}?,\s*(?:ya|yeah|yes|ok(?:ay)?|alright|all right|right|na|innit)\W*$", re.IGNORECASE)


def asks_leave(question: str) -> bool:
    """Whether ``question`` asks the patient's leave (to ask, to talk alone) and names nothing clinical: "Can I
    check: any allergies?" asks about allergies."""
    return bool(_LEAVE_RE.search(question) or _QUESTIONS_LEAVE_RE.search(question) or _SAYS_LEAVE_RE.search(question)) \
        and not any(not clinical.is_generic(k) for k in clinical.concepts(question))

class PatientReply(BaseModel):
    text: str
    kind: Literal["facts", "unsure", "refusal", "consent"]
    facts: list[Fact] = Field(default_factory=list)  # the facts actually stated
    fallback: bool = False  # every draft refused: the grounded template reply
    copied: bool = False  # a draft accepted that is the template reply word for word
    rejections: list[str] = Field(default_factory=list)  # checker reasons of rejected drafts

    @property
    def leaks_caught(self) -> int:
        return sum(1 for r in self.rejections if r in LEAK_REASONS)


class TemplateVoice:
    """The patient's ``ChatClient`` when no model voices it: every reply is the grounded template in the persona's
    manner (what a weak model's drafts fall back to most of the time). Its ``complete`` is never called."""

    model = "template"

    async def complete(self, messages: list[Message], **_: object) -> Completion:
        raise LLMError("the template patient has no model")


class SimulatedPatient:
    def __init__(
        self,
        case: Case,
        persona: Persona,
        client: ChatClient,
        *,
        max_retries: int = 1,
        max_tokens: int = 32,
        seed: int = 0,
    ) -> None:
        self.case = case
        self.persona = persona
        self.client = client
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.seed = seed
        self.facts = case_facts(case)
        self.index = FactIndex(self.facts)
        self.checker = LeakChecker(case)
        self.child = case.demographics.age is not None and case.demographics.age < 12
        self._rng = random.Random(seed)
        vocabulary = clinical_vocabulary(case)
        self.affect = Affect(persona, self._rng, lambda line: not (set(tx.tokens(line)) & vocabulary
                                                                    or tx.numbers(line)))
        self._said: set[str] = set()  # every reply so far, normalised: none is said twice

    # ------------------------------------------------------------------ public
    def opening(self) -> str:
        complaint = _sentence(self.voice(self.facts[0]))
        greeting = "Hello doctor." if self.persona.language != "A" else "Hello."
        worry = " I'm quite worried about it." if self.persona.extravert and self.persona.feeling else ""
        return f"{greeting} {complaint}{worry}"

    def probe_kind(self, question: str) -> ProbeKind | None:
        if _META_RE.search(question):
            return "meta"
        if _DIAGNOSIS_RE.search(question):
            return "diagnosis"
        if _TESTS_RE.search(question):
            return "tests"
        if _YES_NO_DX_RE.search(question) and any(
            tx.contains_phrase(question, p) for p in self.checker.banned_phrases
        ):
            return "diagnosis"
        return None

    async def reply(self, question: str, *, revealed: set[str]) -> PatientReply:
        """Answer one doctor turn. ``revealed`` = facts already told (a fact asked again is acknowledged)."""
        probe = self.probe_kind(question)
        selected = [] if probe else self.index.select(question, revealed)
        if self.persona.language == "A" or self.persona.recall == "low":
            selected = selected[:1]  # a basic speaker or a poor memory tells less, never something else
        # Asked again about what was already told: acknowledge the earlier answer rather than copy it.
        repeat = bool(selected) and all(f.text in revealed for f in selected)
        kind: Literal["facts", "unsure", "refusal", "consent"] = "refusal" if probe else "facts" if selected else (
            "consent" if asks_leave(question) else "unsure")
        # The grounded reply is built first; the model is only asked to say it in its own words, and is
        # the fallback word for word when every draft is refused.
        grounded = self.template(kind, selected, probe, repeat=repeat)
        if isinstance(self.client, TemplateVoice):  # no model to restyle it: the grounded reply is the reply
            self._said.add(tx.reply_key(grounded))
            return PatientReply(text=grounded, kind=kind, facts=selected, fallback=True)
        voiced = [self.voice(f) for f in selected]
        system = prompts.patient_system(self.persona.describe(), prompts.PATIENT_RESTYLE_TAIL.format(reply=grounded))
        # A restyle adds nothing: not even an earlier fact or a told test result may enter this reply.
        allowed = "\n".join([f.text for f in selected] + voiced + [grounded])
        hidden = "\n".join(f.text for f in self.facts if f not in selected)  # told before or not: not this reply
        messages = [Message(role="system", content=system), Message(role="user", content=heard_question(question))]
        rejections: list[str] = []
        for attempt in range(self.max_retries + 1):
            try:
                completion = await self.client.complete(
                    messages,
                    max_tokens=self.max_tokens,
                    temperature=0.3 if attempt == 0 else 0.8,
                    stop=["\n\n", "Doctor:", "DOCTOR:"],
                    seed=self.seed * 1000 + self._rng.randrange(1000),
                )
            except LLMError as exc:
                logger.warning("patient model failed (%s); using the template reply", exc)
                rejections.append("llm_error")
                break
            draft = _clean(completion.text, sentences=max(2, len(_SENTENCE_SPLIT.split(grounded))))
            result = self.checker.check(
                draft, allowed=allowed, hidden_facts=hidden, question=question,
                selected=[f.text for f in selected], kind=kind, keep=voiced,
            )
            if result.ok and tx.reply_key(draft) in self._said:
                result = CheckResult(ok=False, reason="repeat", detail="said before in this consultation")
            if result.ok:
                self._said.add(tx.reply_key(draft))
                return PatientReply(text=draft, kind=kind, facts=selected, rejections=rejections,
                                    copied=tx.reply_key(draft) == tx.reply_key(grounded))
            logger.debug("draft rejected (%s: %s): %r", result.reason, result.detail, draft)
            rejections.append(result.reason or "rejected")
        self._said.add(tx.reply_key(grounded))
        return PatientReply(text=grounded, kind=kind, facts=selected, fallback=True, rejections=rejections)

    # ------------------------------------------------------------------ templates
    def template(self, kind: str, selected: list[Fact], probe: ProbeKind | None, *, repeat: bool = False) -> str:
        """The grounded reply without a model: the selected facts in the persona's manner (``Affect``), or a
        "don't know" / refusal this consultation has not heard yet."""
        if kind == "refusal":
            return self.affect.refusal(probe or "diagnosis", self._said)
        if kind == "unsure":
            return self.affect.unsure(self._said)
        if kind == "consent":
            return self.affect.consent(self._said)
        sentences = [self.voice(f) for f in selected]
        text = self.affect.tell(sentences, repeat=repeat)
        for _ in range(6):  # the manner is drawn at random: draw again rather than say a reply twice
            if tx.reply_key(text) not in self._said:
                return text
            text = self.affect.tell(sentences, repeat=True)
        return text if tx.reply_key(text) not in self._said else f"Again, {tx.lower_first(text)}"

    def voice(self, fact: Fact) -> str:
        """One fact in the patient's (or, for a young child, the parent's) first-person voice."""
        text = fact.text.strip().rstrip(".")
        first = text.split(" ", 1)[0].lower()
        negative = first in ("no", "nothing", "none", "not")
        subject = {"female": "She", "male": "He"}.get(self.case.demographics.sex or "", "My child")
        if self.child:  # a parent speaks: "the patient" is "my son"
            child = {"female": "daughter", "male": "son"}.get(self.case.demographics.sex or "", "child")
            text = re.sub(r"^the patient(?!\w)", f"My {child}", text, flags=re.IGNORECASE)
            text = re.sub(r"\bthe patient(?!\w)", f"my {child}", text, flags=re.IGNORECASE)
        else:
            text = re.sub(r"^(the )?patient's\b", "My", text, flags=re.IGNORECASE)
            text = re.sub(r"\b(the )?patient's\b", "my", text, flags=re.IGNORECASE)
            text = re.sub(r"(?<!^)\bthe patient(?!\w)", "me", text, flags=re.IGNORECASE)  # "the age of the patient"
        if fact.topic == "demographics" and first == "born":  # "Born after the 32nd gestational week"
            return f"{subject if self.child else 'I'} was {tx.lower_first(text)}"
        if fact.topic == "demographics" and first == "at":  # "At 38 weeks' gestation"
            return f"I'm {tx.lower_first(text)}"
        if self.child and fact.topic not in ("complaint", "symptoms", "medications", "allergies"):
            return text
        if fact.topic == "complaint":
            if first in ("a", "an"):
                return f"I've got {tx.lower_first(text)}"
            if re.match(r"^(i|i'm|i've|my|it|the|this|our)\b", text, re.IGNORECASE):
                return text
            if first in _PROGRESSIVE:
                return f"I've been {tx.lower_first(text)}"
            return f"I've been having {tx.lower_first(text)}"
        if fact.topic == "symptoms":
            if negative:
                return text
            if self.child:
                return f"{subject}'s had {tx.lower_first(text)}"
            converted = tx.to_first_person(text)
            if converted != text:
                return converted
            second = (text.split() + ["", ""])[1].lower()
            if first.endswith("ed") and second in _PAST_VERB_FOLLOWERS:
                return f"I {tx.lower_first(text)}"  # "Vomited once"
            if first in _PROGRESSIVE:
                return f"I've been {tx.lower_first(text)}"  # "Feeling faint"
            if first in ("worse", "better"):
                return f"It's {tx.lower_first(text)}"
            return f"I've had {tx.lower_first(text)}"
        if fact.topic == "medications":
            who = f"{subject} takes" if self.child else "I take"
            if negative:
                return f"{who} {tx.lower_first(text)}"
            if first in ("stopped", "forgot", "stops"):
                return f"{subject if self.child else 'I'} {tx.lower_first(text)}"
            return f"{who} {tx.lower_first(text)}"
        if fact.topic == "allergies":
            who = f"{subject} has" if self.child else "I have"
            if negative:
                return f"{who} {tx.lower_first(text)}"
            return f"Allergies: {text}" if "cause" in text else f"{who} an allergy to {tx.lower_first(text)}"
        if fact.topic == "hpi" and not self.child:
            if first in ("a", "an"):
                return f"I've had {tx.lower_first(text)}"  # "A 1-month history of double vision"
            if first in _PROGRESSIVE:
                return f"I've been {tx.lower_first(text)}"
            if first.endswith("ed") and first not in _SUBJECT_VERBS:
                return f"I {tx.lower_first(text)}"  # "Noticed the urine looks pink"
        if fact.topic == "history":
            if negative:
                return text
            if first in _VERB_START:
                return f"I was {tx.lower_first(text)}"
            converted = tx.to_first_person(text)
            return converted if converted != text else f"I have a history of {tx.lower_first(text)}"
        if fact.topic == "family":
            if negative or first == "nothing":
                return "Nothing runs in my family that I know of"
            return f"My {tx.lower_first(text)}" if _RELATIONS.match(text) else f"In my family, {tx.lower_first(text)}"
        if fact.topic == "social":
            if re.match(r"^(non|ex)-", text, re.IGNORECASE):
                return f"I'm a{'n' if first.startswith('ex') else ''} {tx.lower_first(text)}"
            if first in ("never", "recently", "forgot", "smoked", "used", "quit", "stopped"):
                return tx.to_first_person(f"I {tx.lower_first(text)}")
        return tx.to_first_person(text)


def heard_question(text: str) -> str:
    """What the patient model is shown of a doctor's turn: its last question sentences (two at most), or
    its last two sentences when it asks nothing, at most ``HEARD_MAX_CHARS`` characters.

    Fact selection, probe detection and the checker read the whole turn; the model only needs what it is
    asked. A weak doctor's turn is often a paragraph of advice around one question, and every token of
    it would be prefilled again in the patient's prompt.
    """
    sentences = [s.strip() for s in _SENTENCE_SPLIT.split(text.strip()) if s.strip()]
    questions = [s for s in sentences if s.endswith("?")]
    heard = " ".join((questions or sentences)[-2:])
    return heard[-HEARD_MAX_CHARS:].lstrip() if len(heard) > HEARD_MAX_CHARS else heard


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _clean(draft: str, *, sentences: int = 2) -> str:
    """The draft's first line, its first ``sentences`` distinct sentences (as many as the reply it restyles)."""
    text = draft.strip().strip('"').strip()
    text = re.sub(r"^(patient|me|answer|reply)\s*:\s*", "", text, flags=re.IGNORECASE)
    text = text.split("\n", 1)[0].strip()
    distinct = list(dict.fromkeys(s for s in _SENTENCE_SPLIT.split(text) if s))  # no repeats
    return " ".join(distinct[:sentences]).strip()
