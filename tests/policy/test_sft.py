"""The ``sft`` warm start: protocol-valid dialogues from the loop, a loss on doctor tokens only, a stage that
trains and hands its checkpoint on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from patient_sim.cases import find_case, project_cases
from patient_sim.loop import SamplingConfig
from policy.sft import DIALOGUES, SUMMARY, doctor_view
from policy.sft_data import MAX_ORDERS, heard_orders, is_complete, varied_reference, warm_start_dialogues
from policy.stage_config import StageConfig
from policy.stages import run_stage, run_stages
from policy.tokens import sft_tokens
from verifier.llm import Completion
from verifier.markers import is_void_turn, parse_diagnoses, parse_orders
from verifier.types import Message

SAMPLING = SamplingConfig()  # the shared defaults: what the GRPO stages and the consultation eval use
# for the stages that train on real-model dialogues: three doctor turns, short patient replies
SHORT_DIALOGUES = {"max_turns": 3, "patient_max_tokens": 12}


class PlainPatient:
    """A scripted patient model; the simulator checks its drafts and falls back to its templates."""

    model = "plain-patient"

    async def complete(self, messages, **_: object) -> Completion:
        return Completion(text="It started two days ago and it is getting worse.")


def test_warm_start_dialogues_follow_the_protocol_for_every_project_case(embedded) -> None:
    tokenizer = embedded.tokenizer
    cases = project_cases()

    def fits(text: str) -> bool:
        return len(tokenizer.encode(text, add_special_tokens=False)) < SAMPLING.turn_tokens

    results = asyncio.run(warm_start_dialogues(cases, PlainPatient(), SAMPLING, variants=2, fits=fits))
    assert len(results) == 2 * len(cases)
    by_case = {c.id: c for c in cases}
    for result in results:
        case = by_case[result.case_id]
        doctor = [m.content for m in result.transcript if m.role == "assistant"]
        assert is_complete(result), (case.id, result.termination_reason)
        assert len(doctor) <= SAMPLING.max_turns
        assert not any(is_void_turn(turn) for turn in doctor), case.id
        assert all(not parse_diagnoses(turn) for turn in doctor[:-1])  # one diagnosis, at the end
        assert parse_diagnoses(doctor[-1]) == [case.final_diagnosis]
        assert all(turn.count("?") <= 2 for turn in doctor)  # one or two questions at a time
        assert all(fits(turn) for turn in doctor), case.id  # nothing the model learns is cut at evaluation
        ordered = [name for turn in doctor for _kind, name in parse_orders(turn)]
        if case.recommended_tests:
            assert ordered and set(ordered) <= set(case.recommended_tests)
            assert len(ordered) <= MAX_ORDERS  # what the history points to, not the case's whole list
            assert any(m.role == "user" and m.content.startswith("RESULTS:") for m in result.transcript) or not any(
                t in case.test_results for t in ordered)
    # the wording, order and pacing vary between a case's dialogues; the persona does too
    first, second = results[0], results[1]
    assert first.case_id == second.case_id
    assert [m.content for m in first.transcript if m.role == "assistant"] != [
        m.content for m in second.transcript if m.role == "assistant"]
    assert first.persona != second.persona


def test_the_teachers_orders_follow_what_the_patient_has_said() -> None:
    """A clinician orders what the history points to; a student copying a case's whole list orders a test
    shotgun on the next case."""
    appendicitis = find_case("acute-appendicitis")  # tests: exam, FBC, CRP, urinalysis, abdominal ultrasound
    assert heard_orders(appendicitis, "The pain is in my tummy, low on the right.") == [
        "Abdominal exam", "Full blood count", "Abdominal ultrasound"]
    assert heard_orders(appendicitis, "It started yesterday and it is getting worse.") == [
        "Abdominal exam", "Full blood count"]  # no body part spoken of: the complaint's own tests only
    cystitis = find_case("cystitis")  # urinalysis, urine pregnancy test, urine culture
    assert heard_orders(cystitis, "It stings when I pee.") == ["Urinalysis", "Urine pregnancy test", "Urine culture"]
    assert heard_orders(cystitis, "No, nothing like that.") == ["Urinalysis", "Urine pregnancy test"]


def test_varied_reference_fits_a_short_turn_limit() -> None:
    case = find_case("acs-stemi")
    for limit in (2, 3, 4):
        turns = varied_reference(case, seed=3, max_turns=limit)
        assert len(turns) <= limit and parse_diagnoses(turns[-1]) == [case.final_diagnosis]
    with pytest.raises(ValueError, match="at least two turns"):
        varied_reference(case, seed=3, max_turns=1)


def _labelled_spans(ids: list[int], labels: list[int]) -> list[list[int]]:
    spans: list[list[int]] = []
    inside = False
    for token, label in zip(ids, labels, strict=True):
        if label != -100:
            assert label == token
            if not inside:
                spans.append([])
            spans[-1].append(token)
        inside = label != -100
    return spans


@pytest.mark.parametrize("template", ["smollm2", "llama3"])
def test_the_loss_covers_only_the_doctors_tokens(embedded, template, request) -> None:
    tokenizer = embedded.tokenizer if template == "smollm2" else request.getfixturevalue("llama3_tokenizer")
    end = "<|im_end|>" if template == "smollm2" else "<|eot_id|>"
    dialogue = [
        Message(role="system", content="You are a careful doctor."),
        Message(role="user", content="Hello doctor. Chest pain."),
        Message(role="assistant", content="When did the pain start? Does it spread?"),
        Message(role="user", content="An hour ago, to my left arm."),
        Message(role="assistant", content="REQUEST TEST: ECG"),
        Message(role="user", content="RESULTS: ECG: ST elevation in II, III, aVF."),
        Message(role="assistant", content="DIAGNOSIS: Inferior STEMI\nCall an ambulance now."),
    ]
    ids, labels = sft_tokens(tokenizer, dialogue)
    assert len(ids) == len(labels)
    spans = [tokenizer.decode(span) for span in _labelled_spans(ids, labels)]
    assert spans == [f"{m.content}{end}" for m in dialogue if m.role == "assistant"]
    # the unlabelled rest is the template's own rendering of everything else, in order
    assert tokenizer.decode(ids) == tokenizer.apply_chat_template([m.model_dump() for m in dialogue], tokenize=False)


def test_sft_stage_trains_on_the_loops_dialogues_and_reads_them_back(embedded, local_client, tmp_path) -> None:
    # Short dialogues (a history turn, the orders, the diagnosis; short patient replies) keep the warm start
    # and the steps on them to seconds; the protocol of full-length ones is checked above without a model.
    config = StageConfig(stage="sft", data={"cases": ["acs-stemi", "migraine"]}, warm_start={"variants": 2},
                         rollout=SHORT_DIALOGUES,
                         trainer={"max_steps": 1, "per_device_train_batch_size": 1, "learning_rate": 1e-4,
                                  "save_steps": 1, "save_total_limit": 1, "disable_tqdm": True})
    out = tmp_path / "sft"
    result = run_stage(config, out, patient=local_client)
    assert result.stage == "sft" and result.global_step == 1
    trained = load_file(str(Path(result.final_model) / "model.safetensors"))
    base = embedded.model.state_dict()
    assert sum(not torch.equal(v, base[k]) for k, v in trained.items() if k in base) > 0
    summary = json.loads((out / SUMMARY).read_text())
    assert summary["dialogues"] == 4 and summary["complete"] >= 1
    lines = (out / DIALOGUES).read_text().splitlines()
    assert len(lines) == summary["complete"]
    logged = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert any("loss" in r for r in logged)
    # the trainer's labels are the doctor's tokens of those dialogues, nothing else
    from patient_sim.loop import ConsultationResult

    first = ConsultationResult.model_validate_json(lines[0])
    ids, labels = sft_tokens(embedded.tokenizer, doctor_view(first))
    doctor = sum(len(embedded.tokenizer.encode(m.content, add_special_tokens=False)) + 1
                 for m in first.transcript if m.role == "assistant")
    assert abs(sum(label != -100 for label in labels) - doctor) <= len(first.transcript)  # tokenizer joins
    assert sum(label != -100 for label in labels) < len(ids) / 2
    # a second run with the same recipe reads the dialogues back instead of playing them again
    class NoPatient:
        model = "no-patient"

        async def complete(self, *_a, **_k):
            raise AssertionError("the dialogues should have been read back")

    # (it reads checkpoint-1; a checkpoint of its own, model and optimizer state, would never be read)
    again = run_stage(config, tmp_path / "sft", patient=NoPatient(), resume=True,
                      overrides={"max_steps": 2, "save_strategy": "no"})
    assert again.global_step == 2 and again.resumed_from


def test_sft_then_multiturn_chain_hands_the_checkpoint_on(local_client, tmp_path, monkeypatch) -> None:
    import policy.model as model_mod

    loaded: list[str] = []
    real = model_mod.load_model

    def spy(spec="embedded", **kwargs):
        loaded.append(str(spec))
        return real(spec, **kwargs)

    monkeypatch.setattr(model_mod, "load_model", spy)
    sft = StageConfig(stage="sft", data={"cases": ["acs-stemi"]}, warm_start={"variants": 1}, rollout=SHORT_DIALOGUES,
                      trainer={"per_device_train_batch_size": 1, "disable_tqdm": True, "save_strategy": "no"})
    multi = StageConfig(
        stage="multiturn", data={"cases": ["acs-stemi"]},
        rollout={"max_turns": 2, "turn_tokens": 12, "max_completion_tokens": 64, "patient_max_tokens": 12,
                 "drop_void": False},
        length_penalty={"threshold": -1.0, "weight": 0.5, "unit": "chars"},
        trainer={"num_generations": 2, "per_device_train_batch_size": 2, "save_strategy": "no", "disable_tqdm": True},
    )
    from verifier.graders import HybridGrader

    results = run_stages([(sft, tmp_path / "sft"), (multi, tmp_path / "multiturn")], overrides={"max_steps": 1},
                         patient=local_client, grader=HybridGrader(None))
    assert [r.stage for r in results] == ["sft", "multiturn"]
    assert loaded[:2] == ["embedded", results[0].final_model]  # multi-turn GRPO starts from the warm start
