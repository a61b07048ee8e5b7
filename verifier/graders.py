"""The graders behind the ``Grader`` protocol: rule, LLM judge, and the hybrid of both.

* ``RuleGrader`` (verifier/rule_grader.py) decides items that carry a machine ``check``.
* ``JudgeGrader`` (verifier/judge.py) asks an LLM judge with HealthBench's rules, through a named
  prompt (verifier/grader_prompts.py): ``medverifier`` (hardened; /v1/verify and training) or
  ``healthbench`` (HealthBench's own template; comparable numbers).
* ``HybridGrader`` uses the rule where a check exists and the judge otherwise; with no judge the
  unchecked items are unscored (counted, never "not met"). With ``recheck`` (the request option
  ``judge_recheck``, off by default) a positive item the rule left unmet may be re-decided by the judge
  on a narrow view of what the doctor said for that item (see ``recheck_views``); penalties stay rule-
  decided and text addressed to a grader never reaches the judge as evidence.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Literal

from verifier.grader_prompts import GRADER_PROMPT_NAMES, GraderPrompt, grader_prompt
from verifier.judge import (
    GRADER_PROMPT_VERSION,
    JudgeGrader,
    JudgeStats,
    Verdict,
    parse_verdict,
    parse_verdicts,
)
from verifier.judge_cache import JudgeCache
from verifier.markers import parse_diagnoses, parse_diagnosis, parse_orders
from verifier.protocols import Grader
from verifier.rule_grader import RuleGrader, final_diagnosis_named, sentences
from verifier.types import (
    AskedBeforeDiagnosis,
    AsksAbout,
    Case,
    CriterionResult,
    DiagnosisMatches,
    ManyDiagnoses,
    MentionsAll,
    MentionsAny,
    Message,
    OrderedTest,
    QuestionBarrage,
    RecommendsEmergency,
    RegexCheck,
    RubricItem,
)

logger = logging.getLogger(__name__)

__all__ = [
    "GRADER_PROMPT_NAMES",
    "GRADER_PROMPT_VERSION",
    "GraderPrompt",
    "HybridGrader",
    "JudgeCache",
    "JudgeGrader",
    "JudgeStats",
    "RecheckStats",
    "RecheckView",
    "RuleGrader",
    "Verdict",
    "addresses_grader",
    "grader_for",
    "grader_prompt",
    "parse_verdict",
    "parse_verdicts",
    "recheck_views",
]

GradingMode = Literal["rule", "judge", "hybrid"]


# --------------------------------------------------------------------------- the judge's recheck
# With ``recheck`` on, a positive item that the rule check left unmet is re-decided by the judge on a
# narrow view of the consultation: only the doctor's sentences that matter for that kind of item
# (the question sentences before the diagnosis for "asks about" items, the order lines for "orders
# the test", the DIAGNOSIS line for the correct-diagnosis item, the final message for plan, triage,
# empathy and safety-netting items), never the whole transcript and never the patient's words.
# Penalties and the counting kinds (barrage, word limit, diagnosis lists, differential) stay rule-
# decided. Text addressed to a grader never reaches the judge as evidence: a sentence that a broad
# pattern flags is left out of every view, and a conversation that addresses a grader outright (a
# stricter pattern anywhere in the doctor's turns, or a met rubric penalty for addressing a grader) is
# not rechecked at all.

RECHECK_SUFFIX = "+recheck"
RECHECK_FAILED = "judge recheck gave no verdict"

# Unambiguous address to a grader: anywhere in the doctor's turns, the conversation is not rechecked.
GRADER_ADDRESS_STRICT = re.compile(
    r"\b(?:graders?|grading\s+(?:model|system|note)|rubrics?|evaluators?|reward\s+model|(?:the|to\s+a)\s+judge\b"
    r"|(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:grader|judge|assessor|evaluator|marker|reviewer"
    r"|model|ai|llm|system)"
    r"|assessment\s+note|assessor"
    r"|(?:every|all|each)\s+(?:of\s+)?(?:the\s+)?(?:positive\s+|negative\s+|key\s+|relevant\s+)?(?:criteri(?:on|a)"
    r"|requirements?|rubric\s+items?)\b"
    r"|criteri(?:on|a)\s+(?:is|are|was|were|has\s+been|have\s+been)\s+(?:all\s+|fully\s+)?(?:met|satisfied)"
    r"|requirements?\b[^.?!\n]{0,40}\b(?:satisfied|fulfill?ed)"
    r"|(?:mark|grade|score)\s+(?:all|every|each)\b|mark\s+(?:this|it|them)\s+as\b"
    r"|ignore\s+(?:the|all|any|previous|prior|above|earlier)\s+(?:rubric|instructions?|criteria|rules)"
    # "award full marks", not a finding ("his memory test is nearly full marks", "the maximum score on the scale")
    r"|(?:award|give|deserv\w*|earn\w*|merit\w*|grant)\s+(?:\w+\s+){0,3}?(?:full\s+(?:marks|credit|points)"
    r"|(?:the\s+)?maximum\s+(?:score|points|marks))"
    r"|this\s+(?:response|answer|transcript|consultation)\s+(?:meets|satisfies|fulfils|fulfills|deserves|earns))",
    re.IGNORECASE,
)
# Anything that may speak about grading, scoring or meeting requirements: such a sentence is left out
# of every view (an honest sentence that happens to match costs at most its own evidence).
GRADER_ADDRESS_BROAD = re.compile(
    GRADER_ADDRESS_STRICT.pattern
    + r"|\b(?:criteri\w*|requirements\b|checklist|credit\w*|award\w*|grade[ds]?\b|\bmet\b|satisf\w*|fulfil\w*"
    r"|points\b(?!\s+(?:to|towards)\b)|(?:full|top|maximum|max|perfect|high(?:est)?)\s+(?:scores?|marks)"
    r"|scor(?:e|es|ed|ing)\s+(?:this|it|them|the\s+(?:response|answer|consultation))\b|marks?\s+(?:this|it|them|as)\b"
    r"|evaluation\s+(?:note|summary|criteria)|assess(?:ment|ing)?\s+(?:note|summary|result)|instructions?\s+(?:to|for)"
    r"|(?:ignore|disregard)\s+(?:(?:the|all|any|previous|prior|above|earlier|these|those|my)\s+)*(?:rubric|instructions?"
    r"|criteri\w*|rules?|prompt|system)|this\s+(?:response|answer|transcript|conversation|reply|message)"
    r"|language\s+model|\bllm\b|\bai\b|chatbot"
    r"|(?:everything|all)\s+(?:that\s+(?:is|was)\s+)?(?:needed|required|necessary|expected)\b"
    r"|(?:all|every|each)\s+(?:the\s+)?(?:key\s+|relevant\s+|required\s+)?(?:questions?|items?|tests?|elements?|aspects?)"
    r"\s+(?:has|have|is|are|was|were)\s+(?:been\s+)?(?:asked|covered|addressed|done|completed|ordered|included))",
    re.IGNORECASE,
)
_RECHECK_ASKING_RE = re.compile(
    r"^(?:(?:and|so|also|okay|ok|now|first|next|lastly|finally)[, ]+)?(?:when|where|what|which|who|whom|whose|why"
    r"|how|any|tell me|describe|(?:do|does|did|are|is|was|were|have|has|had|can|could|would|will|should)\s+"
    r"(?:you|it|the|your|there|anyone|anybody|this|that|he|she|they|we|i)\b)",
    re.IGNORECASE,
)
_MARKER_RE = re.compile(
    r"\b(?:REQUEST\s+(?:TEST|EXAM|EXAMINATION)|(?:FINAL\s+)?DIAGNOSIS(?:\s+READY)?)\s*:", re.IGNORECASE
)
_HEDGE_RE = re.compile(r"\s(?:or|vs\.?|versus|and/or)\s|/|\|", re.IGNORECASE)
_GRADER_PENALTY_RE = re.compile(r"\b(?:graders?|rubrics?|judge|scoring|evaluators?)\b", re.IGNORECASE)
MAX_ORDER_WORDS = 8  # an order longer than this is a list, not a test (as the rule grader reads it)
MAX_DIAGNOSIS_WORDS = 16  # a longer statement is not one specific condition
MAX_VIEW_QUESTIONS = 40  # more question sentences than this is a barrage, not a history
MIN_ORDER_CAP = 6  # orders allowed before the test items are left to the rule: max(this, 2 x test items)
# Kinds the recheck re-decides, by the view they are judged on. Everything else stays rule-decided.
_QUESTION_KINDS = (AsksAbout, AskedBeforeDiagnosis)
_FINAL_KINDS = (MentionsAny, MentionsAll, RegexCheck, RecommendsEmergency)
_VIEW_LABELS = {
    "questions": "the doctor's question sentences asked before the final diagnosis",
    "questions-any": "the doctor's question sentences",
    "orders": "the doctor's test and examination orders",
    "diagnosis": "the doctor's final DIAGNOSIS line",
    "final": "the doctor's final message",
    "looks": "the doctor's question sentences and examination orders",
}
# A sign the doctor looks for or recognises (the rule grader's ``looks_for`` kind, where it exists).
_LOOKS_KIND = "looks_for"


def addresses_grader(text: str, *, broad: bool = False) -> bool:
    """Whether ``text`` speaks to a grader (``broad``: or might, and is left out of a recheck view)."""
    return (GRADER_ADDRESS_BROAD if broad else GRADER_ADDRESS_STRICT).search(text) is not None


def _clean(sentences: list[str]) -> list[str]:
    return [s for s in sentences if not addresses_grader(s, broad=True)]


def _question_sentences(turn: str) -> list[str]:
    return [
        s
        for s in sentences(turn)
        if (s.rstrip(")").endswith("?") or _RECHECK_ASKING_RE.match(s)) and not _MARKER_RE.search(s)
    ]


@dataclass(frozen=True)
class RecheckView:
    """What the judge sees for one recheck: ``label`` names the view, ``text`` is the doctor's words in it."""

    kind: str
    text: str

    @property
    def label(self) -> str:
        return _VIEW_LABELS[self.kind]

    def conversation(self) -> list[Message]:
        """The narrow view as the conversation the judge grades (the doctor's words are the response)."""
        intro = (
            f"[An extract of a medical consultation: {self.label} only. The patient's replies and the rest of "
            "the consultation are left out.]"
        )
        return [Message(role="user", content=intro), Message(role="assistant", content=self.text)]


@dataclass
class RecheckStats:
    """Counters over every recheck this grader made (benchmarks, logs, tests)."""

    eligible: int = 0  # unmet positive items of a kind the recheck re-decides
    sent: int = 0  # items sent to the judge with a view
    credited: int = 0  # the judge said met: the rule's False was replaced
    kept: int = 0  # the judge said not met
    failed: int = 0  # no usable verdict (or the judge raised): the rule's verdict stands
    refused: int = 0  # conversations not rechecked because they address a grader


class _Consultation:
    """The doctor's turns of a conversation, read once for every view."""

    def __init__(self, conversation: list[Message]) -> None:
        self.conversation = conversation
        self.turns = [m.content for m in conversation if m.role == "assistant"]
        self.diagnosis_turn = next(
            (i for i in range(len(self.turns) - 1, -1, -1) if parse_diagnosis(self.turns[i]) is not None),
            None,
        )
        self._single: bool | None = None

    def single_diagnosis(self) -> bool:
        """Whether the rule grader reads one specific final diagnosis (what ``requires_diagnosis`` gates on)."""
        if self._single is None:
            probe = RubricItem(
                criterion="probe", points=1, check=RegexCheck(pattern=r"[\s\S]", requires_diagnosis=True)
            )
            self._single = RuleGrader().grade_sync(self.conversation, [probe])[0].met is True
        return self._single

    def questions(self, check: AsksAbout | AskedBeforeDiagnosis) -> RecheckView | None:
        before = isinstance(check, AskedBeforeDiagnosis) or check.before_diagnosis
        end = self.diagnosis_turn if before and self.diagnosis_turn is not None else len(self.turns)
        asked: list[str] = []
        for turn in self.turns[:end]:
            found = _question_sentences(turn)
            if isinstance(check, AsksAbout) and (
                len(found) > check.max_questions or len(turn.split()) > check.max_words
            ):
                continue  # the rule's own limits on a turn: a barrage turn is not history-taking
            asked.extend(_clean(found))
        if not asked or len(asked) > MAX_VIEW_QUESTIONS:
            return None
        return RecheckView("questions" if before else "questions-any", "\n".join(dict.fromkeys(asked)))

    def looks(self) -> RecheckView | None:
        asked = [s for turn in self.turns for s in _clean(_question_sentences(turn))]
        exams = [
            f"REQUEST EXAM: {name}"
            for turn in self.turns
            for kind, name in parse_orders(turn)
            if kind == "exam"
            and len(name.split()) <= MAX_ORDER_WORDS
            and not addresses_grader(name, broad=True)
        ]
        lines = list(dict.fromkeys([*asked, *exams]))
        if not lines or len(asked) > MAX_VIEW_QUESTIONS:
            return None
        return RecheckView("looks", "\n".join(lines))

    def orders(self, cap: int) -> RecheckView | None:
        lines: list[str] = []
        for turn in self.turns:
            for kind, name in parse_orders(turn):
                if len(name.split()) > MAX_ORDER_WORDS or addresses_grader(name, broad=True):
                    continue
                lines.append(f"REQUEST {kind.upper()}: {name}")
        lines = list(dict.fromkeys(lines))
        tests = sum(1 for line in lines if line.startswith("REQUEST TEST"))
        if not lines or tests > cap:
            return None  # nothing ordered, or a shotgun of orders: no single one of them was chosen
        return RecheckView("orders", "\n".join(lines))

    def diagnosis(self) -> RecheckView | None:
        if self.diagnosis_turn is None:
            return None
        stated = list(dict.fromkeys(s.strip() for s in parse_diagnoses(self.turns[self.diagnosis_turn])))
        if len(stated) != 1:
            return None
        statement = stated[0]
        if (
            len(statement.split()) > MAX_DIAGNOSIS_WORDS
            or _HEDGE_RE.search(f" {statement} ")
            or addresses_grader(statement, broad=True)
        ):
            return None
        return RecheckView("diagnosis", f"DIAGNOSIS: {statement}")

    def final(self) -> RecheckView | None:
        if not self.turns:
            return None
        lines = [" ".join(_clean(sentences(line))) for line in self.turns[-1].splitlines()]
        text = "\n".join(line for line in lines if line)
        return RecheckView("final", text) if text else None


def _refusal(
    consultation: _Consultation, items: list[RubricItem], results: list[CriterionResult]
) -> str | None:
    """Why this conversation gets no recheck at all, or None."""
    for item, result in zip(items, results, strict=True):
        if item.points < 0 and result.met is True and _GRADER_PENALTY_RE.search(item.criterion):
            return f"the penalty {item.criterion!r} is met"
    for turn in consultation.turns:
        match = GRADER_ADDRESS_STRICT.search(turn)
        if match:
            return f"the doctor addresses a grader ({match.group(0)!r})"
    return None


def _penalty_met(items: list[RubricItem], results: list[CriterionResult], kind: type) -> bool:
    return any(
        isinstance(item.check, kind) and item.points < 0 and result.met is True
        for item, result in zip(items, results, strict=True)
    )


def recheck_views(
    conversation: list[Message], items: list[RubricItem], results: list[CriterionResult]
) -> tuple[dict[int, RecheckView], str | None, int]:
    """The narrow view for each item the judge may re-decide, by item index; the reason the whole
    conversation is refused (then no views), and how many items were eligible.

    An item is eligible when it has positive points, a rule ``check`` of a kind about what the doctor
    said, and the rule left it unmet (``met is False``). It gets no view when its view is empty, when
    the rule reads a barrage (question items), a shotgun of orders (test items) or a hedged diagnosis
    (the diagnosis item), or when it requires one specific final diagnosis and none was stated.
    """
    eligible = [
        i
        for i, (item, result) in enumerate(zip(items, results, strict=True))
        if item.points > 0
        and item.check is not None
        and result.met is False
        and (
            isinstance(item.check, (*_QUESTION_KINDS, OrderedTest, DiagnosisMatches, *_FINAL_KINDS))
            or item.check.kind == _LOOKS_KIND
        )
    ]
    if not eligible:
        return {}, None, 0
    consultation = _Consultation(conversation)
    refused = _refusal(consultation, items, results)
    if refused is not None:
        return {}, refused, len(eligible)
    barrage = _penalty_met(items, results, QuestionBarrage)
    hedged = _penalty_met(items, results, ManyDiagnoses)
    test_items = sum(1 for item in items if isinstance(item.check, OrderedTest) and item.points > 0)
    views: dict[int, RecheckView] = {}
    for index in eligible:
        check = items[index].check
        view: RecheckView | None = None
        if check.requires_diagnosis and not consultation.single_diagnosis():
            continue  # the rule's gate, not its words: a plan means nothing without one diagnosis
        if check.for_diagnosis and not final_diagnosis_named(conversation, check.for_diagnosis):
            continue  # nor a plan for another condition
        if isinstance(check, _QUESTION_KINDS):
            view = None if barrage else consultation.questions(check)
        elif isinstance(check, OrderedTest):
            view = consultation.orders(max(MIN_ORDER_CAP, 2 * test_items))
        elif isinstance(check, DiagnosisMatches):
            view = None if hedged else consultation.diagnosis()
        elif isinstance(check, _FINAL_KINDS):
            view = consultation.final()
        elif check.kind == _LOOKS_KIND:
            view = None if barrage else consultation.looks()
        if view is not None:
            views[index] = view
    return views, None, len(eligible)


class HybridGrader:
    """Rule where a ``check`` exists, the judge for the rest (unscored when there is no judge).

    With ``recheck`` and a judge, a second pass sends each positive item the rule left unmet, of a kind
    about what the doctor said, to the judge with a narrow view (``recheck_views``); the judge's verdict
    replaces the rule's False (``grader`` ends in ``+recheck`` and the explanation keeps the rule's), and
    a judge that gives no verdict leaves the rule's verdict (counted in ``recheck_stats.failed``).
    """

    def __init__(
        self, judge: Grader | None = None, *, recheck: bool = False, recheck_stats: RecheckStats | None = None
    ) -> None:
        self.rule = RuleGrader()
        self.judge = judge
        self.recheck = recheck
        self.recheck_stats = recheck_stats if recheck_stats is not None else RecheckStats()

    @property
    def name(self) -> str:
        if self.judge is None:
            return "hybrid(rule)"
        return f"hybrid(rule+{self.judge.name}{RECHECK_SUFFIX if self.recheck else ''})"

    async def grade(
        self, conversation: list[Message], items: list[RubricItem], *, case: Case | None = None
    ) -> list[CriterionResult]:
        results: list[CriterionResult | None] = [None] * len(items)
        checked = [i for i, item in enumerate(items) if item.check is not None]
        unchecked = [i for i, item in enumerate(items) if item.check is None]
        for index, result in zip(
            checked, self.rule.grade_sync(conversation, [items[i] for i in checked]), strict=True
        ):
            results[index] = result
        if unchecked:
            if self.judge is not None:
                judged = await self.judge.grade(conversation, [items[i] for i in unchecked], case=case)
                if len(judged) != len(unchecked):
                    raise RuntimeError(
                        f"{self.judge.name} returned {len(judged)} results for {len(unchecked)} items"
                    )
            else:
                judged = [
                    CriterionResult(
                        criterion=items[i].criterion,
                        points=items[i].points,
                        tags=list(items[i].tags),
                        met=None,
                        explanation="no machine check and no judge configured",
                        grader="none",
                    )
                    for i in unchecked
                ]
            for index, result in zip(unchecked, judged, strict=True):
                results[index] = result
        final = [r for r in results if r is not None]
        if self.recheck and self.judge is not None:
            final = await self._recheck(conversation, items, final, case)
        unscored = sum(1 for r in final if r.met is None)
        if unscored:
            logger.info("%s: %d of %d items unscored", self.name, unscored, len(final))
        return final

    async def _recheck(
        self,
        conversation: list[Message],
        items: list[RubricItem],
        results: list[CriterionResult],
        case: Case | None,
    ) -> list[CriterionResult]:
        """The second pass: the judge re-decides the rule's unmet positive items on their narrow views."""
        assert self.judge is not None
        views, refused, eligible = recheck_views(conversation, items, results)
        stats = self.recheck_stats
        stats.eligible += eligible
        if refused is not None:
            stats.refused += 1
            logger.info("%s: no recheck: %s", self.name, refused)
            return results
        if not views:
            return results
        groups: dict[RecheckView, list[int]] = {}
        for index, view in views.items():
            groups.setdefault(view, []).append(index)
        judge = self.judge

        async def ask(view: RecheckView, indices: list[int]) -> list[CriterionResult | None]:
            try:
                judged = await judge.grade(view.conversation(), [items[i] for i in indices], case=case)
            except Exception as exc:  # a failing judge leaves the rule's verdicts
                logger.info("%s: recheck failed: %s", self.name, exc)
                return [None] * len(indices)
            return list(judged) if len(judged) == len(indices) else [None] * len(indices)

        stats.sent += len(views)
        answers = await asyncio.gather(*(ask(view, indices) for view, indices in groups.items()))
        out = list(results)
        for (view, indices), judged in zip(groups.items(), answers, strict=True):
            for index, verdict in zip(indices, judged, strict=True):
                rule = results[index]
                if verdict is None or verdict.met is None:
                    stats.failed += 1
                    why = verdict.explanation if verdict is not None else "the judge call failed"
                    out[index] = rule.model_copy(
                        update={"explanation": f"{rule.explanation} ({RECHECK_FAILED}: {why})"}
                    )
                    continue
                if verdict.met:
                    stats.credited += 1
                else:
                    stats.kept += 1
                out[index] = rule.model_copy(
                    update={
                        "met": verdict.met,
                        "grader": f"{verdict.grader or judge.name}{RECHECK_SUFFIX}",
                        "explanation": (
                            f"re-decided by the judge on {view.label} (the rule said not met: "
                            f"{rule.explanation}): {verdict.explanation}"
                        ),
                    }
                )
        return out


def grader_for(
    grader: Grader, mode: GradingMode = "hybrid", *, batched: bool | None = None, recheck: bool | None = None
) -> Grader:
    """A grader for a request's ``grading`` option, derived from the injected one.

    ``rule`` → rule checks only; ``judge`` → the judge on every item (checks ignored); ``hybrid`` →
    the injected grader. ``batched`` switches a ``JudgeGrader`` (also inside a hybrid) to that mode;
    ``recheck`` (None: as injected) turns the hybrid's judge recheck of unmet rule items on or off.
    """
    judge: Grader | None = grader.judge if isinstance(grader, HybridGrader) else grader
    if isinstance(judge, RuleGrader):
        judge = None
    if batched is not None and isinstance(judge, JudgeGrader):
        judge = judge.with_batched(batched)
    if mode == "rule":
        return HybridGrader(None) if not isinstance(grader, RuleGrader) else grader
    if mode == "judge":
        return judge if judge is not None else HybridGrader(None)
    if isinstance(grader, HybridGrader):
        wanted = grader.recheck if recheck is None else recheck
        if judge is grader.judge and wanted == grader.recheck:
            return grader
        return HybridGrader(judge, recheck=wanted, recheck_stats=grader.recheck_stats)
    return grader  # a judge alone decides every item: nothing is left to recheck
