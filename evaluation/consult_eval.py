"""AgentClinic-style consultation evaluation.

For every case (the project's ``data/cases``, a project-format file, or an AgentClinic JSONL) and every
sampled persona, the policy plays the doctor against the simulated patient; the transcript is then
graded against the case's rubric, and the diagnosis is checked by the one matcher the rubric uses
(``verifier.diagnosis``: one specific condition naming the case's diagnosis or a synonym; a judge, when
configured, may recognise a paraphrase of one specific condition, never a list).

Reports diagnostic accuracy (overall and by specialty), rubric scores per axis, turns, questions
asked, tests ordered, leaks caught by the patient simulator and termination reasons.
"""

from __future__ import annotations

import logging
import random
import time
import zlib
from pathlib import Path

from pydantic import BaseModel

from evaluation.progress import tick
from evaluation.provenance import consult_prompt_versions
from evaluation.records import ConsultExample, ConsultOutcome, ConsultParams, ExampleResult, RunConfig
from evaluation.reviews import load_reviewed_requests
from evaluation.runner import execute_run
from evaluation.store import new_run_name, runs_root
from evaluation.summary import RunSummary
from patient_sim.cases import import_agentclinic, load_cases, project_cases
from patient_sim.loop import consult
from patient_sim.personas import sample_persona
from policy.clients import ClientSpec, build_client
from policy.graders import GraderSpec, build_grader
from rubric_gen.case_rubric import build_case_rubric
from verifier import clinical
from verifier.backends.medical import grade_conversation
from verifier.diagnosis import match_diagnosis
from verifier.judge import parse_verdict
from verifier.llm import ChatClient
from verifier.markers import is_question
from verifier.rule_grader import final_diagnosis_match
from verifier.scoring import score_example
from verifier.types import Case, Message

logger = logging.getLogger(__name__)

DIAGNOSIS_JUDGE_VERSION = "diagnosis-match-1"
DIAGNOSIS_JUDGE_TEMPLATE = """Decide whether a doctor's stated diagnosis names the same condition as the \
reference diagnosis. Minor wording differences, abbreviations and more specific forms of the same \
condition count as the same; a different or merely related condition does not.

Stated diagnosis: <<stated>>
Reference diagnosis: <<reference>> (also called: <<synonyms>>)

Return just a json object: {"explanation": "<one sentence>", "criteria_met": true or false}"""
_JUDGE_RETRIES = 2


# --------------------------------------------------------------------------- diagnosis matching
def synonym_match(diagnosis: str | None, case: Case) -> bool:
    """The stated diagnosis is one specific condition and names the case's diagnosis or a synonym
    (``verifier.diagnosis.match_diagnosis``: the matcher the rubric's accuracy item uses)."""
    return match_diagnosis(diagnosis, [case.final_diagnosis, *case.diagnosis_synonyms],
                           others=case.differential, conditions=clinical.condition_lines()).matched


async def judge_match(judge: ChatClient, diagnosis: str, case: Case) -> bool | None:
    """The judge's verdict, or None when it gave no usable answer (bounded retries)."""
    prompt = (
        DIAGNOSIS_JUDGE_TEMPLATE.replace("<<stated>>", diagnosis)
        .replace("<<reference>>", case.final_diagnosis)
        .replace("<<synonyms>>", ", ".join(case.diagnosis_synonyms) or "none")
    )
    for attempt in range(_JUDGE_RETRIES + 1):
        try:
            reply = await judge.complete([Message(role="user", content=prompt)], max_tokens=96,
                                         temperature=0.0 if attempt == 0 else 0.7, seed=attempt)
        except Exception as exc:  # an unreachable judge leaves the synonym verdict standing
            logger.info("diagnosis judge attempt %d failed: %s", attempt + 1, exc)
            continue
        verdict = parse_verdict(reply.text)
        if verdict is not None:
            return verdict.criteria_met
    return None


# --------------------------------------------------------------------------- one example
def persona_seed(seed: int, case_id: str, index: int) -> int:
    return (seed * 1_000_003 + zlib.crc32(case_id.encode()) + index * 7919) % 2**31


def _persona_label(persona: object) -> str:
    if isinstance(persona, BaseModel):
        fields = persona.model_dump(exclude_none=True)
        return ", ".join(f"{k}={v}" for k, v in fields.items())
    return str(persona)[:200]


async def evaluate_case(config: RunConfig, example: ConsultExample) -> ExampleResult:
    """Run one consultation, grade it, check the diagnosis. Runs in the driver or a Ray actor."""
    params = config.consult or ConsultParams()
    started = time.perf_counter()
    case = example.case
    doctor = build_client(config.policy)
    patient = build_client(params.patient)
    persona = sample_persona(example.persona_seed, case=case)
    consultation = await consult(
        case, persona, doctor, patient, params.sampling, seed=example.persona_seed,
        on_message=lambda m: tick(f"{example.example_id} {m.role}"),
    )
    transcript = list(consultation.transcript)
    items = example.rubrics or build_case_rubric(case).items
    verified = await grade_conversation(transcript, items, build_grader(config.grader), case=case)
    scored = score_example(verified.criteria, example_tags=[f"specialty:{case.specialty}"],
                           prompt_id=example.example_id)
    stated = final_diagnosis_match(transcript, case)
    correct = stated.matched
    match = "synonym" if correct else "none"
    # The judge may recognise a paraphrase of one specific condition; it is never asked about a list
    # or a vague category, which the matcher has already refused.
    if not correct and stated.single and consultation.diagnosis and config.grader.judge is not None:
        judged = await judge_match(build_client(config.grader.judge), consultation.diagnosis, case)
        if judged:
            correct, match = True, "judge"
    doctor_turns = [m.content for m in transcript if m.role == "assistant"]
    outcome = ConsultOutcome(
        case_id=case.id,
        specialty=case.specialty,
        final_diagnosis=case.final_diagnosis,
        diagnosis=consultation.diagnosis,
        correct=correct,
        match=match,
        persona=_persona_label(consultation.persona),
        turns=consultation.turns,
        questions=sum(is_question(t) for t in doctor_turns),
        tests_ordered=list(consultation.ordered_tests),
        leaks_caught=int(consultation.leaks_caught),
        fallbacks=int(consultation.fallbacks),
        termination_reason=consultation.termination_reason or "unknown",
    )
    return ExampleResult(
        example_id=example.example_id,
        kind="consult",
        score=scored.overall,
        metrics=scored.metrics(),
        example_tags=scored.example_tags,
        criteria=verified.criteria,
        unscored=scored.unscored,
        response_chars=sum(len(t) for t in doctor_turns),
        transcript=transcript,
        consult=outcome,
        seconds=time.perf_counter() - started,
    )


# --------------------------------------------------------------------------- the eval
def load_consult_cases(params: ConsultParams) -> list[Case]:
    if params.cases_path is None:
        cases = project_cases()
    elif params.cases_format == "agentclinic":
        cases = import_agentclinic(params.cases_path)
    else:
        cases = load_cases(params.cases_path)
    if params.case_ids:
        by_id = {c.id: c for c in cases}
        missing = [i for i in params.case_ids if i not in by_id]
        if missing:
            raise ValueError(f"unknown case ids {missing}; known: {sorted(by_id)[:10]}...")
        cases = [by_id[i] for i in params.case_ids]
    return cases


class ConsultEval:
    def __init__(self, config: RunConfig, run_dir: Path) -> None:
        if config.kind != "consult" or config.consult is None:
            raise ValueError("ConsultEval needs a consult run config")
        self.config = config
        self.run_dir = run_dir

    @classmethod
    def create(
        cls,
        *,
        policy: ClientSpec,
        grader: GraderSpec,
        params: ConsultParams,
        seed: int = 0,
        limit: int | None = None,
        concurrency: int = 8,
        executor: str = "local",
        ray_address: str | None = None,
        run_name: str | None = None,
        runs_dir: str | Path | None = None,
    ) -> ConsultEval:
        name = run_name or new_run_name("consult")
        if params.cases_path is not None:
            params = params.model_copy(update={"cases_path": str(Path(params.cases_path).resolve())})
        config = RunConfig(
            name=name, kind="consult", policy=policy, grader=grader, seed=seed, limit=limit,
            concurrency=concurrency, executor=executor, ray_address=ray_address,  # type: ignore[arg-type]
            consult=params,
        )
        return cls(config, runs_root(runs_dir) / name)

    def examples(self) -> list[ConsultExample]:
        assert self.config.consult is not None
        if self.config.consult.cases_format == "reviews":
            return self._reviewed_examples()
        cases = load_consult_cases(self.config.consult)
        limit = self.config.limit
        if limit is not None and limit < len(cases):
            cases = random.Random(self.config.seed).sample(cases, limit)
        return [
            ConsultExample(example_id=f"{case.id}#p{k}", case=case,
                           persona_seed=persona_seed(self.config.seed, case.id, k))
            for case in cases
            for k in range(self.config.consult.personas_per_case)
        ]

    def _reviewed_examples(self) -> list[ConsultExample]:
        """One example per review (and persona) of the clinician reviews' consultations export: the
        case, graded with the rubric its clinician confirmed and wrote."""
        params = self.config.consult
        assert params is not None and params.cases_path is not None
        reviewed = load_reviewed_requests(params.cases_path)
        if params.case_ids:
            reviewed = [r for r in reviewed if r.request.task.case.id in params.case_ids]
        limit = self.config.limit
        if limit is not None and limit < len(reviewed):
            reviewed = random.Random(self.config.seed).sample(reviewed, limit)
        examples = []
        for one in reviewed:
            case = one.request.task.case
            for k in range(params.personas_per_case):
                examples.append(ConsultExample(
                    example_id=f"{case.id}:{one.reviewer}:{one.consultation_id[:8]}#p{k}", case=case,
                    persona_seed=persona_seed(self.config.seed, case.id, k), rubrics=one.request.task.rubrics))
        return examples

    async def run(self, *, show_progress: bool | None = None) -> RunSummary:
        return await execute_run(self.run_dir, self.config, self.examples(), evaluate=evaluate_case,
                                 prompts=consult_prompt_versions(self.config, DIAGNOSIS_JUDGE_VERSION),
                                 show_progress=show_progress)
