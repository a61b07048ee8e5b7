"""The measurement responder: examination findings and test results, only when the doctor orders them.

Names are matched fuzzily (stemmed tokens, test-name synonyms) against the case's ``physical_exam`` and
``test_results`` keys (``"Blood tests > Troponin"``). An examined body system with nothing recorded is
"normal"; anything else that the case does not hold is "not available".
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from patient_sim import text as tx
from patient_sim.prompts import MEASUREMENT_HEADER
from verifier.types import Case

_FILLER = frozenset({"request", "order", "perform", "check", "get", "do", "run", "need", "want", "send", "please"})
_SYSTEMS = re.compile(
    r"\b(cardiac|cardiovascular|heart|respiratory|lungs?|chest|abdom\w*|tummy|neuro\w*|skin|ear|ears|"
    r"throat|eyes?|fundoscopy|musculoskeletal|joints?|back|spine|legs?|feet|foot|genital\w*|pelvic|"
    r"rectal|neck|lymph\w*|breasts?|mental state|general|head|thyroid|hips?|knees?|shoulders?)\b",
    re.IGNORECASE,
)
# Tokens that say what kind of thing is wanted but not which one ("cardiac exam" must not match "Abdominal exam").
_GENERIC = frozenset({"exam", "test", "result", "level", "scan", "finding", "imag", "blood", "study", "panel"})
_EXAM_WORDS = re.compile(r"\b(exam\w*|auscultat\w*|palpat\w*|inspect\w*|look at|listen)\b", re.IGNORECASE)


class Finding(BaseModel):
    request: str
    status: Literal["found", "normal", "not_available"]
    key: str | None = None
    value: str | None = None


class MeasurementResponder:
    def __init__(self, case: Case) -> None:
        self.case = case
        self._entries = {**case.physical_exam, **case.test_results}
        self._tokens = {key: set(tx.tokens(key)) for key in self._entries}

    def lookup(self, request: str) -> list[Finding]:
        wanted = [t for t in dict.fromkeys(tx.tokens(request)) if t not in _FILLER]
        if wanted:
            specific = {t for t in wanted if t not in _GENERIC} or set(wanted)
            generic = set(wanted) - specific
            scores = {
                key: len(specific & toks) / len(specific) + 0.01 * len(generic & toks)
                # An examination of the heart is not the heart rate.
                - (0.5 if "exam" in wanted and key.lower().startswith("vital") else 0.0)
                for key, toks in self._tokens.items()
            }
            best = max(scores.values(), default=0.0)
            if best >= 0.6:
                keys = [k for k, s in scores.items() if s == best]
                # Among equal scores prefer the tightest keys ("ECG" over "ECG > Rhythm strip notes").
                if best < 1.0 and len(keys) > 1:
                    tightest = min(len(self._tokens[k]) for k in keys)
                    keys = [k for k in keys if len(self._tokens[k]) == tightest]
                return [Finding(request=request, status="found", key=k, value=self._entries[k]) for k in keys]
        only_system = _SYSTEMS.search(request) and not tx.tokens(_SYSTEMS.sub(" ", request))
        if _EXAM_WORDS.search(request) or only_system:
            return [Finding(request=request, status="normal")]
        return [Finding(request=request, status="not_available")]

    def respond(self, requests: list[str]) -> tuple[str, list[Finding]]:
        """The reply text for the ordered tests and the findings behind it."""
        findings = [f for request in requests for f in self.lookup(request)]
        lines = [MEASUREMENT_HEADER]
        for finding in findings:
            if finding.status == "found":
                lines.append(f"- {finding.key}: {finding.value}")
            elif finding.status == "normal":
                lines.append(f"- {finding.request}: normal, no abnormal findings")
            else:
                lines.append(f"- {finding.request}: not available")
        return "\n".join(lines), findings
