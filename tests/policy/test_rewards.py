"""Reward functions: the rule reward's matching and format term, the verifier-backed rewards."""

from __future__ import annotations

import asyncio
import json

import pytest

from policy.rewards import (
    ConsultationReward,
    RubricReward,
    RuleRewardWeights,
    answer_matches,
    extract_answer,
    make_rule_reward,
    rubric_rows,
)
from policy.rule_data import build_rule_items, load_rule_items, rule_rows
from verifier.graders import HybridGrader
from verifier.types import Case, MentionsAny, RubricItem, WordLimit

ACCEPTED = ["Acute inferior ST-elevation myocardial infarction", "STEMI", "heart attack"]


@pytest.mark.parametrize(
    ("text", "letter", "expected"),
    [
        ("Classic presentation.\nANSWER: B", "B", 1.0),  # match + format
        ("ANSWER: (b)", "B", 1.0),
        ("ANSWER: C", "B", 0.2),  # format only
        ("B) Heart attack", "B", 0.8),  # lenient read of an option line, no format term
        ("I think the answer is B.", "B", 0.8),
        ("no idea", "B", 0.0),
        ("ANSWER: heart attack", "B", 0.8),  # the option's text (or a synonym): a match, not the asked form
        ("ANSWER: B) Heart attack", "B", 1.0),
        ("ANSWER: Myocardial infarction, acute inferior ST-elevation", None, 1.0),  # word order
        ("ANSWER: stemi.", None, 1.0),
        ("ANSWER: pneumonia", None, 0.2),
        ("It looks like a\nheart attack", None, 0.8),  # a line that is exactly an accepted name
        ("It looks like a heart attack to me", None, 0.0),  # not an exact match
    ],
)
def test_rule_reward(text: str, letter: str | None, expected: float) -> None:
    reward = make_rule_reward(RuleRewardWeights())
    logged: dict[str, float] = {}
    out = reward(["q"], [[{"role": "assistant", "content": text}]], accepted=[ACCEPTED], letter=[letter or ""],
                 log_metric=logged.__setitem__)
    assert out == [pytest.approx(expected)]
    assert set(logged) == {"rule/format_rate", "rule/accuracy"}


def test_format_letter_can_accept_any_answer_line() -> None:
    lenient = make_rule_reward(RuleRewardWeights(format_letter=False))
    assert lenient(["q"], ["ANSWER: heart attack"], accepted=[ACCEPTED], letter=["B"]) == [pytest.approx(1.0)]
    assert lenient(["q"], ["ANSWER: pneumonia"], accepted=[ACCEPTED], letter=["B"]) == [pytest.approx(0.2)]
    strict = make_rule_reward(RuleRewardWeights())
    assert strict(["q"], ["ANSWER: pneumonia"], accepted=[ACCEPTED], letter=["B"]) == [0.0]
    assert strict(["q"], ["ANSWER: pneumonia"], accepted=[ACCEPTED], letter=[""]) == [pytest.approx(0.2)]


def test_extract_answer_takes_the_last_marker() -> None:
    assert extract_answer("ANSWER: A\nwait\nFinal answer: C") == "C"
    assert extract_answer("no marker") is None
    assert not answer_matches("D) something", ACCEPTED, "B")


def test_rule_data_from_project_cases(repo_root) -> None:
    train = load_rule_items(repo_root / "data" / "rule" / "train.jsonl")
    heldout = load_rule_items(repo_root / "data" / "rule" / "heldout.jsonl")
    assert len(train) + len(heldout) >= 300
    assert {i.case_id for i in train}.isdisjoint({i.case_id for i in heldout})  # split by case
    for item in train[:50]:
        if item.letter:
            options = [line for line in item.prompt[-1].content.splitlines() if line[:2] in ("A)", "B)", "C)", "D)")]
            correct = next(o for o in options if o.startswith(item.letter + ")"))[3:]
            assert answer_matches(correct, item.accepted)  # the keyed option is an accepted name
            for other in options:
                if not other.startswith(item.letter + ")"):
                    assert not answer_matches(other[3:], item.accepted), (item.id, other)
    rows = rule_rows(train[:3])
    assert rows[0]["prompt"][0]["role"] == "system" and rows[0]["accepted"]


def test_rule_data_is_deterministic_and_needs_cases() -> None:
    from patient_sim.cases import project_cases

    cases = project_cases()[:6]
    assert build_rule_items(cases) == build_rule_items(cases)
    with pytest.raises(ValueError, match="at least 4 cases"):
        build_rule_items(cases[:2])


def test_bad_rule_file_names_line_and_field(tmp_path) -> None:
    from policy.rule_data import RuleDataError

    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "x", "case_id": "c", "kind": "diagnosis_mcq", "prompt": [], "accepted": ["a"], "split": "train"}\n')
    with pytest.raises(RuleDataError, match=r"bad.jsonl:1: field 'prompt'"):
        load_rule_items(path)


def test_rubric_reward_uses_the_verifier_and_logs_axes() -> None:
    items = [
        RubricItem(criterion="mentions rest", points=2, tags=["axis:completeness"], check=MentionsAny(terms=["rest"])),
        RubricItem(criterion="short", points=1, tags=["axis:communication"], check=WordLimit(max_words=5)),
    ]
    rubrics = json.dumps([i.model_dump(exclude_none=True) for i in items])
    reward = RubricReward(HybridGrader(None))
    logged: dict[str, float] = {}
    out = asyncio.run(reward(
        prompts=[[{"role": "user", "content": "I have a cold"}]] * 2,
        completions=[[{"role": "assistant", "content": "Get some rest."}], "Drink water and see how it goes today."],
        rubrics=[rubrics, rubrics],
        log_metric=logged.__setitem__,
    ))
    assert out == [pytest.approx(1.0), pytest.approx(0.0)]
    assert logged["rubric/axis:completeness"] == pytest.approx(0.5)


def test_unchecked_rubric_without_judge_is_unscored_not_zero() -> None:
    rubrics = json.dumps([{"criterion": "is kind", "points": 3}])
    out = asyncio.run(RubricReward(HybridGrader(None))(prompts=[[{"role": "user", "content": "hi"}]],
                                                      completions=["hello"], rubrics=[rubrics]))
    assert out == [None]


def test_only_negative_items_scored_is_unscored_not_zero() -> None:
    items = [{"criterion": "Kind", "points": 3, "tags": ["axis:x"]},
             {"criterion": "Rude", "points": -2, "tags": ["axis:x"], "check": {"kind": "mentions_any", "terms": ["idiot"]}}]
    out = asyncio.run(RubricReward(HybridGrader(None))(prompts=[[{"role": "user", "content": "hi"}]],
                                                       completions=["Hello there."], rubrics=[items]))
    assert out == [None]  # the rule decided the negative item, but nothing positive could be graded


def test_consultation_reward_drops_void_trajectories() -> None:
    case = Case(id="c1", chief_complaint="cough", history_of_present_illness="3 days", final_diagnosis="Pneumonia")
    items = [RubricItem(criterion="dx", points=1, check=MentionsAny(terms=["pneumonia"]))]
    reward = ConsultationReward(HybridGrader(None), {"c1": case}, lambda c: items)
    transcript = json.dumps([{"role": "user", "content": "I cough"}, {"role": "assistant", "content": "DIAGNOSIS: pneumonia"}])
    logged: dict[str, float] = {}
    out = asyncio.run(reward(prompts=["p", "p"], completions=["a", "b"], case_id=["c1", "c1"],
                             transcript=[transcript, transcript], void=[False, True], log_metric=logged.__setitem__))
    assert out == [1.0, None]
    assert logged["consultation/void_rate"] == 0.5
    assert logged["consultation/diagnosis_stated"] == 1.0 and logged["consultation/void_turn_share"] == 0.0
    mixed = json.dumps([{"role": "user", "content": "I cough"}, {"role": "assistant", "content": "Okay."},
                        {"role": "user", "content": "Yes"}, {"role": "assistant", "content": "When did it start?"}])
    asyncio.run(reward(prompts=["p", "p"], completions=["a", "b"], case_id=["c1", "c1"],
                       transcript=[transcript, mixed], void=[False, True], log_metric=logged.__setitem__))
    assert logged["consultation/void_turn_share"] == 1 / 3  # "Okay." of three doctor turns
    assert logged["consultation/diagnosis_stated"] == 0.5
    keep = ConsultationReward(HybridGrader(None), {"c1": case}, lambda c: items, drop_void=False)
    assert asyncio.run(keep(prompts=["p"], completions=["a"], case_id=["c1"], transcript=[transcript], void=[True])) == [1.0]


def test_the_unclipped_score_keeps_the_order_among_wrong_diagnoses() -> None:
    # Both consultations name the wrong condition; one also asked about the fever. Clipped to [0, 1] both
    # rewards are 0 and GRPO learns nothing from the pair; the overall score tells them apart.
    case = Case(id="c1", chief_complaint="cough", history_of_present_illness="3 days", final_diagnosis="Pneumonia")
    items = [RubricItem(criterion="dx", points=5, check=MentionsAny(terms=["pneumonia"])),
             RubricItem(criterion="wrong dx", points=-8, check=MentionsAny(terms=["asthma"])),
             RubricItem(criterion="fever", points=2, check=MentionsAny(terms=["fever"]))]
    asked = json.dumps([{"role": "user", "content": "I cough"},
                        {"role": "assistant", "content": "Any fever?"}, {"role": "user", "content": "Yes"},
                        {"role": "assistant", "content": "DIAGNOSIS: asthma"}])
    silent = json.dumps([{"role": "user", "content": "I cough"}, {"role": "assistant", "content": "DIAGNOSIS: asthma"}])
    kwargs = {"prompts": ["p", "p"], "completions": ["a", "b"], "case_id": ["c1", "c1"], "transcript": [asked, silent]}
    clipped = asyncio.run(ConsultationReward(HybridGrader(None), {"c1": case}, lambda c: items)(**kwargs))
    overall = asyncio.run(ConsultationReward(HybridGrader(None), {"c1": case}, lambda c: items, score="overall")(**kwargs))
    assert clipped == [0.0, 0.0]
    assert overall == [pytest.approx(-6 / 7), pytest.approx(-8 / 7)]
    with pytest.raises(ValueError, match="score must be"):
        ConsultationReward(HybridGrader(None), {"c1": case}, lambda c: items, score="clipped")


def test_only_the_multiturn_stage_trains_on_the_overall_score() -> None:
    from policy.stage_config import StageConfig, default_config_path, load_stage_config

    assert load_stage_config(default_config_path("multiturn")).grading.score == "overall"
    with pytest.raises(ValueError, match="grading.score 'overall' is for the multiturn stage"):
        StageConfig.model_validate({"stage": "rule", "grading": {"score": "overall"}})


def test_rubric_rows_from_cases() -> None:
    from patient_sim.cases import project_cases

    rows = rubric_rows([], project_cases()[:2])
    assert len(rows) == 2
    items = [RubricItem.model_validate(i) for i in json.loads(rows[0]["rubrics"])]
    assert items and all(i.check is None or i.check.kind not in {"asked_before_diagnosis", "asks_about"}
                         or not getattr(i.check, "before_diagnosis", True) for i in items)


def test_validation_skips_and_counts_what_could_not_be_graded(tmp_path) -> None:
    from policy.validation import ValidationCallback, ValidationConfig

    rows = [{"prompt": [{"role": "user", "content": "q"}], "item_id": str(i)} for i in range(3)]
    outcomes = iter([[None, None, None], [None, 0.5, 1.0]])
    callback = ValidationCallback(rows, lambda **_: next(outcomes), None, ValidationConfig(every=1), tmp_path,
                                  max_tokens=8, stage="rubric")
    callback._answers = lambda model: ["a", "b", "c"]  # the policy's answers are not what is tested here
    saved: list[int] = []
    callback._save_best = lambda model: saved.append(len(saved))

    class Model:
        training = False

    callback._maybe_validate(0, Model())
    assert callback.best_reward is None and saved == []  # nothing graded: no evidence, no "best" model
    callback._maybe_validate(1, Model())
    assert callback.best_reward == 0.75 and saved == [0]  # the mean of what was graded
    logged = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [(r["val_reward"], r["val_unscored"]) for r in logged] == [(None, 3), (0.75, 1)]
