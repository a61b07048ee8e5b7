"""The affective unit of the template realizer: the persona shows in *how* a fact is told, never in *what*.

``Affect`` wraps first-person fact sentences that are already built (``SimulatedPatient.voice``):

* language level: the words and sentence shapes around the facts (short and plain at A, articulate at C);
* recall: hedges around a fact and "about" before a number — the value itself is never changed;
* confusion: hesitations, a self-correction that restates the *same* fact, and drift that is
  non-clinical and has no numbers;
* personality: extraverts say more (feelings for F types, practical worries for T types);
* bias: worry, playing things down, distrust, online reading, time off work.

Everything is drawn from one seeded ``random.Random``, so a persona and a seed give the same replies.
Lines that are not facts carry no clinical word of the case (``speakable``) and no number.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from patient_sim.personas import Persona
from patient_sim.text import lower_first, reply_key

# Per language level: (opening words of a fact reply, connectors between facts).
_OPENERS = {
    "A": ("", "Yes. ", "Hmm. ", "Well. "),
    "B": ("", "Well, ", "Okay, so ", "Right, "),
    "C": ("", "Certainly. ", "To be precise, ", "As far as I can tell, ", "I should explain that "),
}
_CONNECTORS = {"A": ("", "And "), "B": ("Also, ", "And ", ""), "C": ("In addition, ", "Furthermore, ", "Moreover, ")}
_ACKNOWLEDGE = {
    "A": ("I said. ", "Same as before. ", "Like I said. "),
    "B": ("Like I said, ", "As I told you, ", "It's what I said before: "),
    "C": ("As I told you earlier, ", "I'll say it again: ", "As I explained before, "),
}
_UNSURE = {
    "A": ("Don't know.", "No. Not that.", "Not sure.", "No idea, sorry.", "Hmm. Don't think so.", "I don't know."),
    "B": ("I'm not sure, I haven't really noticed anything like that.", "Hmm, I can't say I've noticed that.",
          "I don't really know, sorry.", "Not that I've noticed, no.", "I don't think so, but I'm not sure.",
          "I haven't paid attention to that, so I can't say."),
    "C": ("I honestly couldn't say; I haven't noticed anything of the sort.",
          "Not to my knowledge, although I haven't been paying particular attention to it.",
          "I'm afraid I can't answer that with any certainty.",
          "That isn't something I've noticed, as far as I'm aware.",
          "I really couldn't tell you, I'm sorry.", "I'm not aware of anything like that, no."),
}
# A request for leave ("May I ask a few questions?", "Would you mind stepping out?") is agreed to.
_CONSENT = {
    "A": ("Yes.", "Okay.", "Yes, okay.", "Fine."),
    "B": ("Yes, of course.", "Sure, go ahead.", "That's fine.", "Okay, no problem."),
    "C": ("Certainly, please go ahead.", "Of course, that's quite all right.", "By all means.", "Yes, that's fine."),
}
_REFUSAL = {
    "diagnosis": {
        "A": ("I don't know what it is.", "No idea what it is.", "Nobody told me what it is."),
        "B": ("I don't know what it is, doctor.", "I really don't know what it is.",
              "Nobody has told me what it is."),
        "C": ("I genuinely don't know what it might be.", "I haven't been told what it might be.",
              "I have no way of knowing what it is."),
    },
    "tests": {
        "A": ("Nobody told me.", "I don't know what they found."),
        "B": ("Nobody has told me anything about that.", "I don't know what they found, sorry."),
        "C": ("I haven't been told anything about that yet.", "I'm afraid nobody has shared anything with me."),
    },
    "meta": {
        "A": ("Sorry, I don't follow.", "I don't know what you mean."),
        "B": ("Sorry, I don't follow. I'm just here about what's been bothering me.",
              "I'm not sure what you mean, doctor."),
        "C": ("I'm sorry, I'm not sure what you're asking me.", "Forgive me, I don't quite follow you."),
    },
}
_REFUSAL_TAILS = {"A": ("You tell me.", "You are the doctor.", ""),
                  "B": ("That's what I'm hoping you can tell me.", "I hope you can find out.", ""),
                  "C": ("I was rather hoping you could tell me.", "That's precisely why I came to see you.", "")}
_HEDGES = ("{fact}, I think.", "If I remember right, {fact}.", "I'm not completely sure, but {fact}.",
           "{fact}, or something like that.", "I think {fact}.")
_HESITATIONS = ("Um... ", "Er, ", "Hmm... ", "Uh, let me think. ")
_CORRECTIONS = ("{start}... no, sorry, let me start again. {fact}.", "{start}... I mean... {fact}.")
_DRIFT = ("Sorry, my mind wanders. Where was I?", "I was thinking about my garden just now, sorry.",
          "My daughter says I go on a bit. Anyway.", "I forgot what I was going to say. Never mind.")
_EXTRA = {
    "F": ("It's really been getting to me.", "It's been so hard, honestly!", "I just want to feel like myself again.",
          "It's been getting me down, to be honest."),
    "T": ("I'd like to get it sorted out quickly.", "I want to know what to do about it.",
          "I need to be able to get on with things."),
}
_BIAS = {
    "serious": ("I'm scared it's something serious.", "What if it's something bad?", "I can't stop worrying about it.",
                "I'm really frightened, doctor."),
    "play": ("It's probably nothing, though.", "It's not that bad, really.", "I'm sure it's fine.",
             "It's no big deal, honestly."),
    "distrust": ("I'd rather sort it out without a lot of fuss.", "I'm not keen on doctors, to be honest."),
    "online": ("I've been reading about it online.", "I looked it up on the internet, but it only confused me."),
    "work": ("I can't really take time off work.", "I need to get back to work soon."),
}
_NUMBER_RE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)")
_APPROXIMATE_RE = re.compile(r"\b(about|around|roughly|nearly|almost|over|under|at least)\s*$", re.IGNORECASE)


def _bias_key(bias: str | None) -> str | None:
    if not bias:
        return None
    return next((key for key in _BIAS if key in bias), None)


class Affect:
    """The persona's manner for one consultation; ``speakable(line)`` says a line holds no clinical word."""

    def __init__(self, persona: Persona, rng: random.Random, speakable: Callable[[str], bool]) -> None:
        self.persona = persona
        self.rng = rng
        self.level = level = persona.language
        self.speakable = speakable

        def pool(lines: Sequence[str], default: str = "") -> list[str]:
            kept = [line for line in lines if speakable(re.sub(r"\{\w+\}", "", line))]
            return kept or ([default] if default else [])

        self.openers = pool(_OPENERS[level]) or [""]
        self.connectors = pool(_CONNECTORS[level]) or [""]
        self.acknowledge = pool(_ACKNOWLEDGE[level], "Like I said, ")
        self.hedges = pool(_HEDGES, "{fact}.")
        self.hesitations = pool(_HESITATIONS) or [""]
        self.corrections = pool(_CORRECTIONS)
        self.extra = pool(_EXTRA["F" if persona.feeling else "T"])
        self.bias = pool(_BIAS.get(_bias_key(persona.bias) or "", ()))
        self.drift = pool(_DRIFT)

    # ------------------------------------------------------------------ fact replies
    def tell(self, sentences: Sequence[str], *, repeat: bool = False) -> str:
        """A reply stating ``sentences`` (first-person facts, no final full stop needed), in the persona's manner."""
        persona, rng = self.persona, self.rng
        told = []
        for i, sentence in enumerate(sentences):
            sentence = sentence.strip().rstrip(".")
            if persona.recall == "low" and rng.random() < 0.8:
                sentence = self._hedge(sentence)
            else:
                sentence = _capital(sentence) + "."
            if i:
                sentence = rng.choice(self.connectors) + lower_first(sentence)
            told.append(sentence)
        if not told:
            raise ValueError("a fact reply needs at least one fact sentence")
        if persona.confusion == "high":
            told[0] = self._confuse(told[0])
        lead = rng.choice(self.acknowledge) if repeat else rng.choice(self.openers)
        first = lower_first(told[0]) if lead and not lead.endswith(". ") else told[0]
        return " ".join([lead + first, *told[1:], *self._colour()])

    def _hedge(self, sentence: str) -> str:
        match = _NUMBER_RE.search(sentence)
        if match and not _APPROXIMATE_RE.search(sentence[: match.start()]) and self.rng.random() < 0.5:
            sentence = f"{sentence[: match.start()]}about {sentence[match.start():]}"  # the value stays exact
        return _capital(self.rng.choice(self.hedges).format(fact=lower_first(sentence) if not sentence.startswith("I ")
                                                           else sentence))

    def _confuse(self, sentence: str) -> str:
        rng = self.rng
        roll = rng.random()
        words = sentence.rstrip(".").split()
        if roll < 0.35 and len(words) > 4 and self.corrections:
            start = " ".join(words[: max(2, len(words) // 3)])
            return rng.choice(self.corrections).format(start=start, fact=sentence.rstrip("."))
        if roll < 0.5 and self.drift:
            return f"{sentence} {rng.choice(self.drift)}"
        return rng.choice(self.hesitations) + lower_first(sentence)

    def _colour(self) -> list[str]:
        """Lines after the facts: the personality's and the bias's, never a fact."""
        rng, lines = self.rng, []
        if self.persona.extravert and self.extra and rng.random() < 0.7:
            lines.append(rng.choice(self.extra))
        if self.bias and rng.random() < 0.6:
            lines.append(rng.choice(self.bias))
        return lines

    # ------------------------------------------------------------------ no facts
    def unsure(self, said: set[str]) -> str:
        """A "don't know" the consultation has not heard yet (when all have been said, one is qualified)."""
        return self._fresh(list(_UNSURE[self.level]), said, "Again, ")

    def consent(self, said: set[str]) -> str:
        """Yes to a request for leave, in words the consultation has not heard yet."""
        return self._fresh(list(_CONSENT[self.level]), said, "Again, ")

    def refusal(self, probe: str, said: set[str]) -> str:
        cores = _REFUSAL[probe][self.level]
        options = [f"{core} {tail}".strip() for core in cores for tail in _REFUSAL_TAILS[self.level]]
        if probe != "diagnosis":
            options = list(cores)
        return self._fresh(options, said, "As I said, ")

    def _fresh(self, options: list[str], said: set[str], again: str) -> str:
        options = [o for o in options if self.speakable(o)] or options[:1]
        fresh = [o for o in options if reply_key(o) not in said] or [again + lower_first(o) for o in options]
        line = self.rng.choice(fresh)
        for _ in range(4):  # a hesitation is drawn at random: draw again rather than say a line twice
            candidate = line
            if self.persona.confusion == "high" and self.rng.random() < 0.5:
                candidate = self.rng.choice(self.hesitations) + lower_first(line)
            if reply_key(candidate) not in said:
                return candidate
            line = self.rng.choice(fresh)
        return f"{line} {self.rng.choice(self.drift or ['Sorry.'])}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
