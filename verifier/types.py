"""Core contracts shared by every package (pydantic v2).

Conventions that every package relies on:

* In every transcript the policy being judged is ``assistant``. In a consultation the doctor is
  ``assistant`` and the simulated patient (and the measurement responder) speak as ``user``.
* ``RubricItem`` is HealthBench's record shape (``criterion``, ``points``, ``tags``) plus an optional
  machine-checkable ``check``; HealthBench JSONL files load unchanged.
* A criterion whose verdict could not be obtained is *unscored* (``met is None``), never "not met".
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Role = Literal["system", "user", "assistant", "tool"]
MetaValue = str | int | float | bool | None


class Message(BaseModel):
    role: Role
    content: str


Conversation = list[Message]


# --------------------------------------------------------------------------- checks
# Each check is decidable without an LLM. ``scope`` says which turns are searched:
# "response" = the last assistant message, "assistant" = every assistant message,
# "all" = every message.
Scope = Literal["response", "assistant", "all"]


class _CheckBase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Met only when the consultation ends in one specific final diagnosis (right or wrong): items about
    # the plan and how it is explained mean nothing without one, and vocabulary alone must not earn them.
    requires_diagnosis: bool = False
    # Met only when that diagnosis is one of these names: a plan is a plan for the condition diagnosed.
    for_diagnosis: list[str] = Field(default_factory=list)


def _compiles(pattern: str) -> str:
    """A regular expression a rubric carries, checked where it arrives: a bad one is the rubric's error (HTTP 422
    naming it), never a failure while grading."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression ({exc}): {pattern!r}") from exc
    return pattern


class MentionsAny(_CheckBase):
    kind: Literal["mentions_any"] = "mentions_any"
    terms: list[str] = Field(min_length=1)
    scope: Scope = "assistant"
    # Met too when one of these tests was ordered in the consultation: a prompt assessment that happened at this
    # visit ("same-day CT KUB") needs no words promising one.
    or_ordered: list[str] = Field(default_factory=list)
    # Text read past before the terms are looked for (a regular expression, case ignored): a term said in passing
    # with another meaning ("sorry I'm running late" is no sympathy).
    unless: str = ""

    _unless_compiles = field_validator("unless")(_compiles)


class MentionsAll(_CheckBase):
    kind: Literal["mentions_all"] = "mentions_all"
    terms: list[str] = Field(min_length=1)
    scope: Scope = "assistant"


class NotMentions(_CheckBase):
    """Met when none of the terms appear (use on positive items: "avoids X")."""

    kind: Literal["not_mentions"] = "not_mentions"
    terms: list[str] = Field(min_length=1)
    scope: Scope = "assistant"


class RegexCheck(_CheckBase):
    kind: Literal["regex"] = "regex"
    pattern: str
    ignore_case: bool = True
    scope: Scope = "assistant"

    _pattern_compiles = field_validator("pattern")(_compiles)


class AskedBeforeDiagnosis(_CheckBase):
    """An assistant turn mentioning any of ``terms`` comes before the final diagnosis turn."""

    kind: Literal["asked_before_diagnosis"] = "asked_before_diagnosis"
    terms: list[str] = Field(min_length=1)


class DiagnosisMatches(_CheckBase):
    """The final ``DIAGNOSIS:`` statement names one specific condition, one of the synonyms
    (``verifier.diagnosis.match_diagnosis``; without a marker, a response that is only a diagnosis)."""

    kind: Literal["diagnosis_matches"] = "diagnosis_matches"
    synonyms: list[str] = Field(min_length=1)
    others: list[str] = Field(default_factory=list)  # competing conditions (the differential)
    # what the patient already has (the record's past history): named beside the answer ("PML, advanced HIV") it is
    # context, not a second diagnosis, and alone it is not the answer
    background: list[str] = Field(default_factory=list)


class DiagnosisMisses(_CheckBase):
    """A final diagnosis is stated and it is wrong, a list of conditions, or too vague (a negative item);
    with ``unstated``, also when no final diagnosis is stated at all, so that a consultation which never
    commits costs as much as a wrong answer (otherwise abstaining is the cheaper route to reward)."""

    kind: Literal["diagnosis_misses"] = "diagnosis_misses"
    synonyms: list[str] = Field(min_length=1)
    others: list[str] = Field(default_factory=list)
    unstated: bool = False


class ManyDiagnoses(_CheckBase):
    """The doctor hedges: the final statement lists conditions, or the doctor's turns name more than
    ``max_conditions`` distinct conditions (a negative item against shotgun diagnoses)."""

    kind: Literal["many_diagnoses"] = "many_diagnoses"
    max_conditions: int = Field(8, ge=1)
    synonyms: list[str] = Field(default_factory=list)
    others: list[str] = Field(default_factory=list)


class Differential(_CheckBase):
    """A differential is considered alongside one stated final diagnosis: a term is mentioned, one
    specific diagnosis is stated, and no more than ``max_conditions`` conditions are named in all."""

    kind: Literal["differential"] = "differential"
    terms: list[str] = Field(min_length=1)
    synonyms: list[str] = Field(default_factory=list)
    max_conditions: int = Field(8, ge=1)
    # the terms of each differential condition, where known: its names count as one condition in ``max_conditions``
    # ("no bleed on the scan" and "a bleed on the brain" weigh one intracerebral haemorrhage)
    conditions: list[list[str]] = Field(default_factory=list)


class AsksAbout(_CheckBase):
    """The doctor asks about something: a question sentence in a doctor turn of reasonable size (at
    most ``max_questions`` questions and ``max_words`` words) asks about at least ``min_groups`` of
    ``groups``, before the final diagnosis when asked. A group is a list of terms, each a word, a phrase
    or a key of the clinical-language layer (``urinary``, ``intent:onset``); the layer reads the
    question, so lay words, abbreviations and body-part forms count (``verifier.clinical.asked``)."""

    kind: Literal["asks_about"] = "asks_about"
    groups: list[list[str]] = Field(min_length=1)
    min_groups: int = Field(1, ge=1)
    before_diagnosis: bool = True
    max_questions: int = Field(6, ge=1)
    max_words: int = Field(150, ge=10)


class LooksFor(_CheckBase):
    """A sign the doctor looks for or recognises rather than asks about (a rigid abdomen, pallor, a low
    blood pressure): a question or statement of the doctor's names it (``groups``, as in
    :class:`AsksAbout`), an examination is ordered of one of ``sites`` (``site:abdomen``), or one of
    ``tests`` (``test:blood_pressure``) is ordered or named."""

    kind: Literal["looks_for"] = "looks_for"
    groups: list[list[str]] = Field(min_length=1)
    min_groups: int = Field(1, ge=1)
    sites: list[str] = Field(default_factory=list)
    tests: list[str] = Field(default_factory=list)  # ordering or naming one of these measures it (``test:blood_pressure``)


class QuestionBarrage(_CheckBase):
    """A negative item: a doctor turn asks more than ``max_per_turn`` questions, the consultation more
    than ``max_total``, or more than ``max_irrelevant`` questions about nothing in ``relevant`` (the
    case's own vocabulary, as terms or clinical-language keys). Several focused questions in one turn
    are history-taking; many generic or irrelevant ones are a barrage."""

    kind: Literal["question_barrage"] = "question_barrage"
    max_per_turn: int = Field(4, ge=1)
    max_total: int = Field(20, ge=1)
    relevant: list[str] = Field(default_factory=list)
    max_irrelevant: int | None = Field(None, ge=0)


class UnindicatedTests(_CheckBase):
    """A negative item: more than ``tolerance`` ordered tests match none of the ``indicated`` names and,
    with ``max_share``, they are more than that share of the tests ordered (a work-up with a few extra tests
    a record does not hold is not a shotgun). Physical examinations (``REQUEST EXAM:``) are never counted."""

    kind: Literal["unindicated_tests"] = "unindicated_tests"
    indicated: list[str] = Field(default_factory=list)
    tolerance: int = Field(2, ge=0)
    max_share: float | None = Field(None, gt=0, le=1)
    # first-line routine tests (a blood count, renal function, CRP, a urinalysis: ``routine`` in the layer's
    # tests data) are a clinician's baseline, not a shotgun, on a record that lists only a few results
    exempt_routine: bool = False


class OrderedTest(_CheckBase):
    """A ``REQUEST TEST:`` marker (or a plain mention when ``allow_mention``) names one of the tests."""

    kind: Literal["ordered_test"] = "ordered_test"
    tests: list[str] = Field(min_length=1)
    allow_mention: bool = True
    # The case's result labels the test names: an order that names every one of them orders the test as far
    # as this case goes (the TSH, when the thyroid function tests the case holds are a TSH).
    holds: list[str] = Field(default_factory=list)


class RecommendsEmergency(_CheckBase):
    """Emergency care is recommended (not negated). With ``unconditional`` only an unconditional
    referral counts: safety-netting ("if it gets worse, go to the emergency department") does not."""

    kind: Literal["recommends_emergency"] = "recommends_emergency"
    scope: Scope = "assistant"
    unconditional: bool = False


class WordLimit(_CheckBase):
    kind: Literal["word_limit"] = "word_limit"
    max_words: int | None = None
    min_words: int | None = None
    scope: Scope = "response"


Check = Annotated[
    MentionsAny
    | MentionsAll
    | NotMentions
    | RegexCheck
    | AskedBeforeDiagnosis
    | AsksAbout
    | LooksFor
    | DiagnosisMatches
    | DiagnosisMisses
    | Differential
    | ManyDiagnoses
    | QuestionBarrage
    | UnindicatedTests
    | OrderedTest
    | RecommendsEmergency
    | WordLimit,
    Field(discriminator="kind"),
]


class RubricItem(BaseModel):
    """One HealthBench rubric item. Negative points mark an undesirable behaviour."""

    criterion: str = Field(min_length=1)
    points: int
    tags: list[str] = Field(default_factory=list)
    check: Check | None = None

    @field_validator("points", mode="before")
    @classmethod
    def _integral_points(cls, value: object) -> object:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value


class Rubric(BaseModel):
    items: list[RubricItem]
    generator: str = "unknown"
    version: str = "1"
    fallback_reason: str | None = None


class CriterionResult(BaseModel):
    criterion: str
    points: int
    tags: list[str] = Field(default_factory=list)
    met: bool | None  # None = unscored: the grader could not decide
    explanation: str = ""
    grader: str = ""  # "rule", "judge:<model>", ...


# --------------------------------------------------------------------------- cases
# "unknown": an imported case whose source gives no disposition (it gets no triage items).
Disposition = Literal["emergency", "urgent", "routine", "unknown"]


class Demographics(BaseModel):
    age: int | None = None
    sex: str | None = None
    occupation: str | None = None
    description: str = ""  # free text, e.g. "35-year-old female"


class Case(BaseModel):
    """A clinical case. Loaders and importers live in ``patient_sim.cases``."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    title: str = ""
    specialty: str = "general"
    setting: str = "clinic"
    demographics: Demographics = Field(default_factory=Demographics)
    chief_complaint: str
    history_of_present_illness: str
    primary_symptoms: list[str] = Field(default_factory=list)
    secondary_symptoms: list[str] = Field(default_factory=list)
    past_medical_history: list[str] = Field(default_factory=list)
    social_history: list[str] = Field(default_factory=list)
    family_history: list[str] = Field(default_factory=list)
    medications: list[str] = Field(default_factory=list)
    allergies: list[str] = Field(default_factory=list)
    review_of_systems: list[str] = Field(default_factory=list)
    physical_exam: dict[str, str] = Field(default_factory=dict)  # "Vital signs > Heart rate" -> "82/min"
    test_results: dict[str, str] = Field(default_factory=dict)  # "Blood tests > Troponin" -> "2.1 ng/mL"
    final_diagnosis: str
    diagnosis_synonyms: list[str] = Field(default_factory=list)
    differential: list[str] = Field(default_factory=list)
    red_flags: list[str] = Field(default_factory=list)
    key_questions: list[str] = Field(default_factory=list)
    recommended_tests: list[str] = Field(default_factory=list)
    disposition: Disposition = "unknown"
    source: str = "medverifier"
    # What a clinicians' review left out of an imported case's rubric (no key questions or recommended tests of
    # its own): a secondary symptom as recorded, a test as ``clinical.case_tests`` names it, or "onset".
    rubric_leaves_out: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------- verify requests
class RubricTask(BaseModel):
    """A single-turn HealthBench-style task: the prompt messages and the rubric."""

    kind: Literal["rubric"] = "rubric"
    prompt: list[Message] = Field(min_length=1)
    rubrics: list[RubricItem] = Field(min_length=1)
    prompt_id: str = ""
    example_tags: list[str] = Field(default_factory=list)


class ConsultationTask(BaseModel):
    """A consultation: the case behind it; the rubric is generated from the case when absent."""

    kind: Literal["consultation"] = "consultation"
    case: Case
    rubrics: list[RubricItem] | None = None


class MedicalOptions(BaseModel):
    grading: Literal["rule", "judge", "hybrid"] = "hybrid"
    batched: bool = False
    length_penalty: float = 0.0  # p in score - p * (chars - 2000) / 500
    # With a judge (hybrid grading): positive items the rule left unmet are re-decided by the judge on a
    # narrow view of what the doctor said (verifier.graders.recheck_views); penalties stay rule-decided.
    judge_recheck: bool = False


class MedicalVerifyRequest(BaseModel):
    domain: Literal["medical"] = "medical"
    task: Annotated[RubricTask | ConsultationTask, Field(discriminator="kind")]
    trajectory: list[Message] = Field(min_length=1)
    options: MedicalOptions = Field(default_factory=MedicalOptions)


class CodeTest(BaseModel):
    """Either an assert-style snippet (``code``) or a stdin/stdout pair."""

    code: str | None = None
    stdin: str | None = None
    expected_stdout: str | None = None
    name: str = ""


class CodeTask(BaseModel):
    id: str = ""
    problem: str
    tests: list[CodeTest] = Field(min_length=1)
    entry_point: str | None = None


class CodeOptions(BaseModel):
    timeout_s: float = 5.0
    memory_mb: int = 512
    run_cells: bool = False  # also run code cells from earlier turns (tool-integrated trajectories)


class CodeVerifyRequest(BaseModel):
    domain: Literal["code"] = "code"
    task: CodeTask
    trajectory: list[Message] = Field(min_length=1)
    options: CodeOptions = Field(default_factory=CodeOptions)


class SearchTask(BaseModel):
    id: str = ""
    question: str
    answers: list[str] = Field(min_length=1)  # gold answer and aliases


class SearchOptions(BaseModel):
    tool_budget: int = 5
    enforce_budget: bool = True  # more calls than the budget score 0 (the count is always reported)
    reward: Literal["f1", "exact_match"] = "f1"


class SearchVerifyRequest(BaseModel):
    domain: Literal["search"] = "search"
    task: SearchTask
    trajectory: list[Message] = Field(min_length=1)
    options: SearchOptions = Field(default_factory=SearchOptions)


class GuiAction(BaseModel):
    action: Literal["click", "type", "select", "press", "scroll", "wait", "goto"]
    selector: str | None = None
    x: float | None = None
    y: float | None = None
    text: str | None = None
    value: str | None = None
    key: str | None = None
    delta_y: float | None = None
    ms: int | None = None
    url: str | None = None


class GuiPredicate(BaseModel):
    """Success predicate on the final DOM."""

    kind: Literal["field_value", "page", "visible_text", "checked"]
    selector: str | None = None
    value: str | None = None


class GuiTask(BaseModel):
    id: str = ""
    instruction: str
    start_page: str  # a page under data/gui/pages, or a URL
    success: list[GuiPredicate] = Field(min_length=1)
    max_steps: int = 30


class GuiOptions(BaseModel):
    screenshot_on_failure: bool = True
    action_timeout_ms: int = Field(5000, ge=100, le=60000)  # per action (waiting for a selector, ...)


class GuiVerifyRequest(BaseModel):
    domain: Literal["gui"] = "gui"
    task: GuiTask
    trajectory: list[GuiAction]
    options: GuiOptions = Field(default_factory=GuiOptions)


VerifyRequest = Annotated[
    MedicalVerifyRequest | CodeVerifyRequest | SearchVerifyRequest | GuiVerifyRequest,
    Field(discriminator="domain"),
]


class VerifyResult(BaseModel):
    """``reward`` is None when the request could not be graded (no scored item with positive points, a
    judge that failed, a sandbox or browser that could not start): ``meta["unscored_reason"]`` says why.
    None travels as None (JSON ``null``; TRL drops it), never as 0.0."""

    domain: str
    reward: float | None
    scores: dict[str, float] = Field(default_factory=dict)  # "overall", "axis:accuracy", ...
    criteria: list[CriterionResult] = Field(default_factory=list)
    unscored: int = 0
    meta: dict[str, MetaValue] = Field(default_factory=dict)
