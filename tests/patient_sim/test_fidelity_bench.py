"""``bench/patient_fidelity.py`` with a patient model behind an OpenAI-compatible server: the bench reaches
the server, names the model, and a patient model that restyles well is measured as one (few fallbacks),
while one that leaks is caught by the checker and shows as fallbacks and rejections. And its natural-question
part without a model: the questions of natural consultations (a small fixture under ``data/natural/``) and the
case's own wording, asked of the template patient and counted (rates checked for consistency, not as targets)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from patient_sim import fidelity as fd
from patient_sim.cases import project_cases
from patient_sim.facts import Fact
from tests.openai_server import OpenAICompatibleServer

_ASKED = re.compile(r'What you want to say: "(.*)"\Z', re.DOTALL)


def _restyle(messages: list[dict]) -> str:
    asked = _ASKED.search(messages[0]["content"])
    reply = asked.group(1) if asked else ""
    return f"Well, doctor, {reply[:1].lower()}{reply[1:]}"


def _bench(repo_root, server: OpenAICompatibleServer) -> dict:  # noqa: ANN001
    done = subprocess.run(
        [sys.executable, "bench/patient_fidelity.py", "--quick", "--patient-model", server.model,
         "--patient-base-url", server.base_url, "--concurrency", "4"],
        cwd=repo_root, capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(repo_root)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_bench_measures_a_served_patient_model(repo_root) -> None:  # noqa: ANN001
    with OpenAICompatibleServer(model="served-patient", responder=_restyle) as server:
        figures = _bench(repo_root, server)
    model = figures["model"]
    assert "served-patient" in model["patient_model"] and server.requests
    assert model["replies"] > 20 and model["leaks"] == 0 and model["traceability"] == 1.0
    assert model["fallback_share"] < 0.2 and model["reworded_share"] > 0.8, model


def test_a_leaky_served_patient_is_caught_not_measured_as_fluent() -> None:
    # The bench's model part alone, in this process, on the cases its --quick run gives the model (two project and two
    # AgentClinic cases): the command around it is the test above's, and its template, persona and natural-question
    # parts (four fifths of a --quick run) say nothing about this patient model.
    from patient_sim.cases import import_agentclinic
    from policy.clients import ClientSpec, build_client

    bench = _bench_module()
    agentclinic = import_agentclinic(bench.AGENTCLINIC) if bench.AGENTCLINIC.is_file() else []
    cases = [case for found in (project_cases(), agentclinic) for case in bench._pick(bench._pick(found, 8), 2)]
    leaky = lambda messages: "Honestly I think it's cancer, my blood test said 42."  # noqa: E731
    with OpenAICompatibleServer(model="leaky-patient", responder=leaky) as server:
        client = build_client(ClientSpec(model=server.model, base_url=server.base_url, max_batch_size=4))
        model = asyncio.run(bench.run_patient(cases, client, 1, 4))
    assert server.requests and model["consultations"] == len(cases)
    assert model["leaks"] == 0 and model["fallback_share"] == 1.0 and model["reworded_share"] == 0.0
    assert model["rejections"].get("number", 0) + model["rejections"].get("diagnosis", 0) > 0, model["rejections"]


# --------------------------------------------------------------------------- natural questions
NATURAL_FIXTURE = Path(__file__).parent / "data" / "natural"


def _bench_module():  # noqa: ANN202 - the bench script, loaded as a module (bench/ is not a package)
    path = Path(__file__).resolve().parents[2] / "bench" / "patient_fidelity.py"
    spec = importlib.util.spec_from_file_location("patient_fidelity_bench", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_history_questions_stop_at_the_diagnosis_and_leave_out_orders() -> None:
    turns = ["Sorry to hear that. Where does it hurt? Any vomiting?", "REQUEST TEST: FBC\nREQUEST EXAM: Abdomen",
             "Thanks.", "Allergies? Any meds?", "DIAGNOSIS: Appendicitis\nAny questions?", "Anything else?"]
    assert fd.history_questions(turns) == [
        ("Sorry to hear that. Where does it hurt? Any vomiting?", ["Where does it hurt?", "Any vomiting?"]),
        ("Thanks.", []), ("Allergies? Any meds?", ["Allergies?", "Any meds?"])]
    assert fd.points(0.8, 0.92) == -12.0 and fd.points(None, 0.5) is None
    assert fd.share(1, 3) == 0.3333 and fd.share(1, 0) is None


def test_natural_questions_are_measured_beside_the_cases_own_wording() -> None:
    bench = _bench_module()
    consultations = bench.load_natural(NATURAL_FIXTURE / "project.yaml")
    assert [(c.case, c.heldout) for c in consultations] == [("acute-appendicitis", False)] * 2 + [("upper-gi-bleed", True)] * 2
    cases = {c.id: c for c in project_cases() if c.id in {c.case for c in consultations}}
    figures = asyncio.run(bench.run_natural_set(cases, consultations, bench.NoModel()))
    histories = {(c.case, c.register): fd.history_questions(c.turns) for c in consultations}
    for register in ("gp_lay", "terse"):
        group = figures["registers"][register]
        mine = [h for (_, r), h in histories.items() if r == register]
        assert group["consultations"] == 2 and group["cases"] == 2
        assert group["questions"] == sum(len(qs) for h in mine for _, qs in h)  # one reply per question sentence
        assert group["turns"] == sum(len(h) for h in mine)  # and one per history turn, orders left out
    assert figures["questions"] == sum(figures["registers"][r]["questions"] for r in ("gp_lay", "terse"))
    # each half apart: the tune half (heldout: false) and the held-out half add up to the whole
    splits = figures["splits"]
    assert set(splits) == {"tune", "heldout"}
    assert (splits["tune"]["cases"], splits["heldout"]["cases"]) == (1, 1)
    assert splits["tune"]["questions"] + splits["heldout"]["questions"] == figures["questions"]
    assert set(splits["tune"]["registers"]) == {"gp_lay", "terse"}
    for group in [figures, *figures["registers"].values(), *splits.values(), *splits["tune"]["registers"].values()]:
        for rate in ("fact_rate", "fact_rate_all", "dont_know_rate", "turn_fact_rate", "turn_dont_know_rate",
                     "own_fact_rate", "own_turn_fact_rate", "own_history_fact_rate", "traceability"):
            assert 0.0 <= group[rate] <= 1.0, (rate, group)
        assert group["unreplied"] == 0
        # the project's cases record their allergies, medicines and family: no question is silent
        assert group["silent_questions"] == 0 and group["answerable_questions"] == group["questions"]
        refused = group["misread_as_probe"] / group["answerable_questions"]
        assert abs(group["fact_rate"] + group["dont_know_rate"] + refused - 1.0) < 1e-3  # every reply is one kind
        assert group["difference_points"] == round(100 * (group["fact_rate"] - group["own_fact_rate"]), 1)
        assert group["turn_difference_points"] == round(100 * (group["turn_fact_rate"]
                                                               - group["own_turn_fact_rate"]), 1)
        assert group["leaks"] == 0 and len(group["invented_examples"]) == min(3, group["invented"])
    # the question no case can answer is answered "don't know", and listed with its case, register and half
    assert {(d["case"], d["register"], d["heldout"]) for d in figures["dont_know"]
            if d["question"] == "What's your favourite colour?"} == {("acute-appendicitis", "gp_lay", False),
                                                                     ("upper-gi-bleed", "gp_lay", True)}
    assert figures["own_leaks"] == 0


def test_a_clinician_s_annotation_decides_which_questions_the_record_answers(tmp_path: Path) -> None:
    """Where the natural questions are annotated (data/natural/answerable/<set>.jsonl), the annotation, not the
    heuristic, says which are silent; the figures say how many were judged so and how often the two agree."""
    bench = _bench_module()
    consultations = [c for c in bench.load_natural(NATURAL_FIXTURE / "project.yaml") if c.case == "acute-appendicitis"]
    cases = {c.id: c for c in project_cases() if c.id == "acute-appendicitis"}
    plain = asyncio.run(bench.run_natural_set(cases, consultations, bench.NoModel()))
    assert plain["judged_by_annotation"] == 0 and plain["heuristic_agreement"] == {}
    assert plain["silent_questions"] == 0  # the heuristic: a question about nothing it knows counts as answerable
    calls = tmp_path / "project.jsonl"
    calls.write_text(
        json.dumps({"case": "acute-appendicitis", "register": "gp_lay", "question": "What's your favourite colour?",
                    "answerable": False, "evidence": ""}) + "\n"
        + json.dumps({"case": "acute-appendicitis", "register": "gp_lay", "question": "Are you off your food?",
                      "answerable": True, "evidence": "loss of appetite"}) + "\n")
    annotated = asyncio.run(bench.run_natural_set(cases, consultations, bench.NoModel(),
                                                  annotation=bench.load_answerable(calls)))
    assert annotated["judged_by_annotation"] == 2
    assert annotated["heuristic_agreement"] == {"annotation_answerable_heuristic_answerable": 1,
                                                "annotation_silent_heuristic_answerable": 1}
    # the colour question is now silent: its "don't know" is the right reply, out of the fact rate
    assert annotated["silent_questions"] == 1 and annotated["answerable_questions"] == plain["answerable_questions"] - 1
    assert not [d for d in annotated["dont_know"] if d["question"] == "What's your favourite colour?"]
    assert [d for d in plain["dont_know"] if d["question"] == "What's your favourite colour?"]
    assert annotated["fact_rate"] > plain["fact_rate"]


def test_a_bad_annotation_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    bench = _bench_module()
    calls = tmp_path / "agentclinic.jsonl"
    calls.write_text('{"case": "x", "register": "terse", "question": "Fever?", "answerable": true}\n'
                     '{"case": "x", "register": "terse", "question": "Cough?", "answerable": "yes"}\n')
    with pytest.raises(SystemExit, match=r"agentclinic\.jsonl:2: 'answerable' must be true or false"):
        bench.load_answerable(calls)
    calls.write_text("not json\n")
    with pytest.raises(SystemExit, match=r"agentclinic\.jsonl:1: not an annotation"):
        bench.load_answerable(calls)


def test_every_shipped_natural_question_is_annotated() -> None:
    """The shipped natural consultations and their annotation files are kept together: every history question of
    data/natural/<set>.yaml has a clinician's call, so the shipped figures never fall back to the heuristic."""
    bench = _bench_module()
    natural = Path(__file__).resolve().parents[2] / "data" / "natural"
    for name in ("project", "agentclinic"):
        calls = bench.load_answerable(natural / "answerable" / f"{name}.jsonl")
        missing = [(c.case, c.register, q) for c in bench.load_natural(natural / f"{name}.yaml")
                   for _, qs in fd.history_questions(c.turns) for q in qs if (c.case, c.register, q) not in calls]
        assert not missing, (name, missing[:5])


def test_a_question_the_record_is_silent_on_is_told_apart() -> None:
    """A question about something no fact of the case names (a pertinent negative the record never mentions,
    allergies on a record without any) has no fact to answer it: it is counted apart, for the natural and the
    own wording alike. A fact that names it, answers its intent or shares its content word answers it."""
    def facts(*rows: tuple[str, str]) -> list[Fact]:
        return [Fact(id=f"{topic}-{i}", topic=topic, text=text) for i, (topic, text) in enumerate(rows)]

    story = facts(("complaint", "Double vision"), ("hpi", "Worse after physical activity"),
                  ("history", "No past medical problems"), ("social", "Non-smoker"))
    for question in ("Any allergies?", "Meds?", "Any drug allergies, and what tablets are you on?",
                     "Anticoagulants or aspirin?", "Does anything run in the family?", "Any fever?",
                     "Fever? Meds?", "Any chest pain?", "When did it start?", "Drug allergies?"):
        assert fd.record_silent(question, story), question  # "when": no fact tells the onset; "drug": not "drug use"
    for question in ("What's your favourite colour?", "Anything else?", "Is your vision blurred or double?",
                     "Does exercise make it worse?"):
        assert not fd.record_silent(question, story), question  # nothing the layer knows, the story, or a fact names it
    assert not fd.record_silent("When did it start?", [*story, *facts(("hpi", "It started two days ago"))])
    assert fd.record_silent("Drug allergies?", [*story, *facts(("social", "No alcohol or drug use"))])
    # a fact naming the concept answers it, in the record's words or the question's
    assert not fd.record_silent("Any fever?", [*story, *facts(("hpi", "Temperature of 38.9 at home"))])
    assert not fd.record_silent("Any chest pain?", [*story, *facts(("hpi", "Denies chest pain"))])
    # a fact that answers the question's intent: "no past medical problems" answers previous episodes
    assert not fd.record_silent("Any previous episodes like this?", story)
    # a shared content word the layer reads otherwise
    assert not fd.record_silent("Can you walk?", [*story, *facts(("hpi", "Can only walk a few steps"))])
    # a medicine named anywhere in the record answers a question about medicines
    assert not fd.record_silent("Meds?", [*story, *facts(("history", "Hypertension, currently managed with enalapril"))])
    assert not fd.record_silent("Meds?", [*story, *facts(("hpi", "Has tics and is currently taking haloperidol"))])
    assert not fd.record_silent("Allergies?", [*story, *facts(("allergies", "Penicillin causes a rash"))])
    # an allergy to a medicine is not a medicine taken
    assert fd.record_silent("Meds?", [*story, *facts(("allergies", "Penicillin causes a rash"))])


def test_the_bench_prints_the_natural_figures_without_a_model(repo_root) -> None:  # noqa: ANN001
    done = subprocess.run(
        [sys.executable, "bench/patient_fidelity.py", "--natural-only", "--natural-dir", str(NATURAL_FIXTURE)],
        cwd=repo_root, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(repo_root)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    natural = json.loads(done.stdout.strip().splitlines()[-1])["natural"]
    assert natural["agentclinic"] == {"missing": str(NATURAL_FIXTURE / "agentclinic.yaml")}
    project = natural["project"]
    assert set(project["registers"]) == {"gp_lay", "terse"} and project["consultations"] == 4
    assert project["dont_know_examples"] and all("[gp_lay]" in e or "[terse]" in e
                                                  for e in project["dont_know_examples"])


def test_a_request_for_leave_is_no_question_for_a_fact() -> None:
    """"Several questions, is OK?" asks for consent (round 90, a Romanian-trained doctor's English): the patient agrees,
    and the question is left out of the fact rate, as the clinicians' annotation leaves such requests out of the
    AgentClinic questions. A question about the case after it is still counted."""
    bench = _bench_module()
    case = next(c for c in project_cases() if c.id == "acute-appendicitis")
    answers = asyncio.run(bench.ask_history(case, ["Several questions, is OK?", "Where did the pain start?"], 0,
                                            bench.NoModel()))
    assert (answers.asked, answers.silent, answers.answerable) == (2, 1, 1)
    assert answers.facts == 1 and answers.dont_know == 0
