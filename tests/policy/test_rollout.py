"""The multi-turn rollout: env_mask, the token layout, void turns, the length bound, ARPO branching.

The patient is the real embedded model (the session ``local_client``); the doctor is scripted, because
these tests are about how the rollout lays out and masks the dialogue, not about what the policy says.
"""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from patient_sim.cases import project_cases
from patient_sim.prompts import DOCTOR_SYSTEM_PROMPT
from policy.rollout import BranchingConfig, MultiTurnRollout, RolloutConfig
from verifier.llm import Completion
from verifier.types import Message


class ScriptedDoctor:
    """A ChatClient whose turns are fixed texts, tokenised like the real policy's (ending in <|im_end|>)."""

    model = "scripted-doctor"

    def __init__(self, tokenizer, turns: list[str]) -> None:
        self.tokenizer = tokenizer
        self.turns = turns
        self.calls: dict[int, int] = {}

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        index = sum(1 for m in messages if m.role == "assistant")
        text = self.turns[min(index, len(self.turns) - 1)]
        ids = self.tokenizer.encode(text, add_special_tokens=False)[:max_tokens]
        finish = "length" if len(ids) == max_tokens else "stop"
        if finish == "stop":
            ids = [*ids, self.tokenizer.convert_tokens_to_ids("<|im_end|>")]
        return Completion(text=self.tokenizer.decode(ids, skip_special_tokens=True), tokens=ids,
                          finish_reason=finish, logprobs=[-1.0] * len(ids))


@pytest.fixture(scope="module")
def case():
    return next(c for c in project_cases() if c.test_results)


def _rollout(embedded, local_client, case, **config) -> MultiTurnRollout:
    settings = {"max_turns": 3, "turn_tokens": 40, "max_completion_tokens": 400, "patient_max_tokens": 12, **config}
    return MultiTurnRollout([case], local_client, embedded, RolloutConfig(**settings))


def test_env_mask_is_zero_exactly_on_patient_and_measurement_tokens(embedded, local_client, case) -> None:
    tok = embedded.tokenizer
    test_name = next(iter(case.test_results)).split(">")[-1].strip()
    turns = ["When did it start?", f"REQUEST TEST: {test_name}", "DIAGNOSIS: viral illness. Rest and fluids."]
    rollout = _rollout(embedded, local_client, case)
    rows = rollout.dataset_rows()
    [traj] = asyncio.run(rollout.run([rows[0]["prompt"]], ScriptedDoctor(tok, turns)))

    assert len(traj.completion_ids) == len(traj.env_mask) == len(traj.logprobs)
    assert traj.ended == "diagnosis" and not traj.void
    policy_text = tok.decode([t for t, m in zip(traj.completion_ids, traj.env_mask, strict=True) if m == 1])
    env_text = tok.decode([t for t, m in zip(traj.completion_ids, traj.env_mask, strict=True) if m == 0])
    assert policy_text == "".join(f"{t}<|im_end|>" for t in turns)  # only the doctor's tokens are trained
    replies = [m.content for m in traj.transcript if m.role == "user"][1:]  # after the opening
    assert len(replies) == 2
    assert env_text == "".join(f"\n<|im_start|>user\n{r}<|im_end|>\n<|im_start|>assistant\n" for r in replies) + "\n"
    assert any(case.test_results[k].split(" ")[0] in replies[1] for k in case.test_results)  # the measurement
    # the completion continues the prompt exactly as the chat template renders the whole dialogue
    dialogue = [Message(role="system", content=DOCTOR_SYSTEM_PROMPT), *traj.transcript]
    assert traj.prompt_ids + traj.completion_ids == rollout._render(dialogue, generation_prompt=False)
    assert all(lp == 0.0 for lp, m in zip(traj.logprobs, traj.env_mask, strict=True) if m == 0)


def test_void_turn_is_flagged_and_length_is_bounded(embedded, local_client, case) -> None:
    tok = embedded.tokenizer
    rollout = _rollout(embedded, local_client, case, max_completion_tokens=40, turn_tokens=30)
    prompt = rollout.dataset_rows()[0]["prompt"]

    async def both():
        return await asyncio.gather(
            rollout.run([prompt], ScriptedDoctor(tok, ["Okay.", "DIAGNOSIS: flu"])),
            rollout.run([prompt], ScriptedDoctor(tok, ["Tell me more about the pain, " * 6 + "ok?"])),
        )

    void, long = asyncio.run(both())
    assert void[0].void and not long[0].void
    assert len(long[0].completion_ids) <= 40 and long[0].ended == "budget"
    assert len(long[0].completion_ids) == len(long[0].env_mask)


def test_trainer_entry_point_returns_trl_fields(embedded, local_client, case) -> None:
    class FakeTrainer:  # what rollout_func reads from the trainer
        model = embedded.model
        num_generations = 2
        state = type("S", (), {"global_step": 0})()

    rollout = _rollout(embedded, local_client, case, max_turns=1, turn_tokens=8, max_completion_tokens=48)
    prompt = rollout.dataset_rows()[0]["prompt"]
    out = rollout([prompt, prompt], FakeTrainer())
    assert set(out) >= {"prompt_ids", "completion_ids", "logprobs", "env_mask", "transcript", "void", "policy_tokens"}
    assert len(out["completion_ids"]) == 2
    assert out["policy_tokens"] == [sum(m) for m in out["env_mask"]]
    assert not embedded.model.training  # restored: it was in eval mode before


def test_arpo_branching_forks_after_a_patient_turn(embedded, local_client, case) -> None:
    tok = embedded.tokenizer
    any_rise = BranchingConfig(enabled=True, threshold=-1e9, max_branches=1)
    rollout = _rollout(embedded, local_client, case, branching=any_rise)
    prompt = rollout.dataset_rows()[0]["prompt"]
    doctor = ScriptedDoctor(tok, ["When did it start?", "Any fever?", "DIAGNOSIS: flu"])
    root, fork = asyncio.run(rollout.run([prompt, prompt], doctor, group=2))
    assert rollout.branches == 1 and fork.branched_from == 0
    assert len(rollout.entropy_rises) == 2  # the policy's real entropy, before doctor turns 2 and 3
    first_turn = len(tok.encode("When did it start?", add_special_tokens=False)) + 1
    assert fork.completion_ids[:first_turn] == root.completion_ids[:first_turn]  # shared prefix
    assert fork.transcript[:3] == root.transcript[:3]


def _doctor_turn_starts(env_mask: list[int]) -> list[int]:
    return [i for i, m in enumerate(env_mask) if m == 1 and (i == 0 or env_mask[i - 1] == 0)]


def _entropy_by_turn(values: dict[int, float]):
    """A stand-in for the policy's entropy: a fixed value per doctor turn about to be played."""
    return lambda messages: values[sum(1 for m in messages if m.role == "assistant")]


def test_arpo_forks_at_the_groups_highest_entropy_rise(embedded, local_client, case, monkeypatch) -> None:
    tok = embedded.tokenizer
    rollout = _rollout(embedded, local_client, case, branching=BranchingConfig(enabled=True, max_branches=1))
    monkeypatch.setattr(rollout, "_entropy", _entropy_by_turn({0: 1.0, 1: 1.2, 2: 2.5}))
    prompt = rollout.dataset_rows()[0]["prompt"]
    doctor = ScriptedDoctor(tok, ["When did it start?", "Any fever?", "DIAGNOSIS: flu"])
    *roots, fork = asyncio.run(rollout.run([prompt] * 3, doctor, group=3))
    assert rollout.branches == 1 and fork.branched_from in (0, 1)
    assert sorted(rollout.entropy_rises) == pytest.approx([0.2, 0.2, 1.5, 1.5])
    parent = roots[fork.branched_from]
    assert fork.transcript[:5] == parent.transcript[:5]  # forked before the third doctor turn (rise 1.5)
    third_turn = _doctor_turn_starts(parent.env_mask)[2]
    assert fork.completion_ids[:third_turn] == parent.completion_ids[:third_turn]


def test_arpo_without_a_rise_above_threshold_plays_independent_episodes(embedded, local_client, case, monkeypatch) -> None:
    tok = embedded.tokenizer
    rollout = _rollout(embedded, local_client, case, branching=BranchingConfig(enabled=True, threshold=0.5))
    monkeypatch.setattr(rollout, "_entropy", _entropy_by_turn({0: 2.0, 1: 2.2, 2: 1.0}))
    prompt = rollout.dataset_rows()[0]["prompt"]
    doctor = ScriptedDoctor(tok, ["When did it start?", "Any fever?", "DIAGNOSIS: flu"])
    trajectories = asyncio.run(rollout.run([prompt] * 2, doctor, group=2))
    assert rollout.branches == 0 and len(trajectories) == 2
    assert all(t.branched_from is None for t in trajectories)


def test_arpo_plays_every_group_at_once(embedded, local_client, case, monkeypatch) -> None:
    """Groups are independent: their roots decode in the same batches, as plain rollouts' episodes do."""
    tok = embedded.tokenizer

    class CountingDoctor(ScriptedDoctor):
        in_flight = peak = 0

        async def complete(self, messages, **kwargs) -> Completion:
            type(self).in_flight += 1
            type(self).peak = max(type(self).peak, type(self).in_flight)
            try:
                await asyncio.sleep(0.01)  # a model call takes time; other episodes' calls join it meanwhile
                return await super().complete(messages, **kwargs)
            finally:
                type(self).in_flight -= 1

    rollout = _rollout(embedded, local_client, case, branching=BranchingConfig(enabled=True, max_branches=1))
    monkeypatch.setattr(rollout, "_entropy", _entropy_by_turn({0: 1.0, 1: 1.2, 2: 2.5}))
    prompt = rollout.dataset_rows()[0]["prompt"]
    doctor = CountingDoctor(tok, ["When did it start?", "Any fever?", "DIAGNOSIS: flu"])
    trajectories = asyncio.run(rollout.run([prompt] * 4, doctor, group=2))  # two groups: one root, one fork each
    assert len(trajectories) == 4 and rollout.branches == 2
    assert [t.branched_from for t in trajectories] == [None, 0, None, 0]  # each fork from its own group's root
    assert CountingDoctor.peak == 2  # the two groups' roots (and then their forks) were in flight together


def test_a_lower_precision_rollout_samples_on_a_copy_refreshed_from_the_trained_weights(embedded, local_client, case) -> None:
    import torch

    trained = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    rollout = _rollout(embedded, local_client, case, dtype="bfloat16")
    copy = rollout.sampling_model(trained)
    assert copy is not trained and next(copy.parameters()).dtype == torch.bfloat16
    assert next(trained.parameters()).dtype == torch.float32  # the trained weights stay as they are
    assert not any(p.requires_grad for p in copy.parameters())
    with torch.no_grad():  # an optimizer step changes the trained weights in place
        for p in trained.parameters():
            p.add_(0.25)
    again = rollout.sampling_model(trained)
    assert again is copy  # one copy, refreshed: not a new one per step
    for mine, theirs in zip(again.parameters(), trained.parameters(), strict=True):
        assert torch.equal(mine, theirs.detach().to(torch.bfloat16))
    assert _rollout(embedded, local_client, case).sampling_model(trained) is trained  # by default: the weights
    assert _rollout(embedded, local_client, case, dtype="float32").sampling_model(trained) is trained
    with pytest.raises(ValidationError, match="dtype 'int8'"):
        RolloutConfig(dtype="int8")


def test_the_trainer_entry_point_samples_in_the_rollouts_precision(embedded, local_client, case) -> None:
    import torch

    class FakeTrainer:
        model = embedded.model
        num_generations = 2
        state = type("S", (), {"global_step": 0})()

    rollout = _rollout(embedded, local_client, case, max_turns=1, turn_tokens=8, max_completion_tokens=48,
                       dtype="bfloat16")
    prompt = rollout.dataset_rows()[0]["prompt"]
    out = rollout([prompt, prompt], FakeTrainer())
    assert rollout._copy is not None and next(rollout._copy[1].parameters()).dtype == torch.bfloat16
    assert next(embedded.model.parameters()).dtype == torch.float32
    assert all(sum(m) > 0 for m in out["env_mask"])  # the doctor spoke, from the copy
    sampled = [lp for lps, mask in zip(out["logprobs"], out["env_mask"], strict=True)
               for lp, m in zip(lps, mask, strict=True) if m == 1]
    assert all(lp <= 0 for lp in sampled) and any(lp < 0 for lp in sampled)


def test_arpo_reads_the_entropy_the_engine_reports_with_each_turn(embedded, local_client, case, monkeypatch) -> None:
    """No extra forward pass per turn: the local engine's completion carries the entropy where it starts,
    the same number a forward pass of the model on the turn's prompt gives."""
    rollout = _rollout(embedded, local_client, case, max_turns=3, turn_tokens=8,
                       branching=BranchingConfig(enabled=True, threshold=-1e9, max_branches=1))
    prompt = rollout.dataset_rows()[0]["prompt"]
    messages = rollout._make_env(rollout._spec_for(prompt), env_seed=0).messages()
    completion = asyncio.run(local_client.complete(messages, max_tokens=1, temperature=0.0))
    assert completion.first_entropy == pytest.approx(rollout._entropy(messages), rel=1e-3, abs=1e-3)

    def no_forward(_messages):
        raise AssertionError("the entropy should have come with the completion")

    monkeypatch.setattr(rollout, "_entropy", no_forward)
    root, fork = asyncio.run(rollout.run([prompt, prompt], local_client, group=2))
    assert rollout.entropy_rises and rollout.branches == 1 and fork.branched_from == 0


def test_cases_that_would_open_alike_get_openings_of_their_own(embedded, agentclinic_path) -> None:
    # AgentClinic's 0058 and 0088 both open "Hello doctor. I've been having fatigue." under one persona;
    # a rollout knows its case by the opening, so the second is opened by its next persona.
    from patient_sim.cases import import_agentclinic
    from patient_sim.patient import TemplateVoice

    cases = {c.id: c for c in import_agentclinic(agentclinic_path)}
    pair = [cases["agentclinic-0058"], cases["agentclinic-0088"]]
    rollout = MultiTurnRollout(pair, TemplateVoice(), embedded, RolloutConfig(episodes_per_case=2))
    rows = rollout.dataset_rows(seed=42)
    openings = [row["prompt"][-1]["content"] for row in rows]
    assert [row["case_id"] for row in rows] == ["agentclinic-0058"] * 2 + ["agentclinic-0088"] * 2
    assert "fatigue" in openings[0] and len(set(openings)) >= 3  # 0058's two personas may open alike
    assert not set(openings[:2]) & set(openings[2:])
    assert [rollout._spec_for(row["prompt"]).case.id for row in rows] == [row["case_id"] for row in rows]
