"""The search backend: SQuAD F1/EM by hand, every shipped task, tool budget, and the real BM25 index."""

from __future__ import annotations

import pytest

from verifier.backends.search import (
    SearchBackend,
    all_answers,
    answer_credit,
    best_scores,
    candidates,
    exact_match,
    f1_score,
    final_answer,
    load_search_tasks,
    normalize_answer,
    score_answer,
    tool_calls,
)
from verifier.registry import Registry
from verifier.search_index import SearchTool, default_index
from verifier.types import Message, SearchOptions, SearchTask, SearchVerifyRequest


def _m(role: str, content: str) -> Message:
    return Message(role=role, content=content)  # type: ignore[arg-type]


def test_normalisation_drops_case_punctuation_and_articles() -> None:
    assert normalize_answer("The  Broad-Street, pump!") == "broadstreet pump"
    assert normalize_answer("An aspirin") == "aspirin"


@pytest.mark.parametrize(
    ("prediction", "gold", "f1", "em"),
    [
        # 3 shared tokens; precision 3/3, recall 3/4 -> 2 * 1 * 0.75 / 1.75 = 6/7
        ("the Broad Street pump", "Broad Street water pump", 6 / 7, 0.0),
        ("Fleming, Alexander", "Alexander Fleming", 1.0, 0.0),  # same bag of tokens, other order
        ("factor IX", "factor VIII", 0.5, 0.0),  # 1 shared of 2 and 2 -> P = R = 0.5
        ("Canberra.", "canberra", 1.0, 1.0),
        ("Sydney", "Canberra", 0.0, 0.0),
        ("the", "a", 1.0, 1.0),  # both normalise to empty
    ],
)
def test_f1_and_exact_match_by_hand(prediction: str, gold: str, f1: float, em: float) -> None:
    assert f1_score(prediction, gold) == pytest.approx(f1)
    assert exact_match(prediction, gold) == em


def test_best_over_aliases() -> None:
    assert best_scores("NAC", ["N-acetylcysteine", "acetylcysteine", "NAC"]) == (1.0, 1.0)
    f1, em = best_scores("acetylcysteine infusion", ["N-acetylcysteine", "acetylcysteine"])
    assert f1 == pytest.approx(2 / 3) and em == 0.0  # P = 1/2, R = 1 -> 2/3


def test_index_finds_the_gold_passage_for_every_shipped_query() -> None:
    index = default_index()
    assert len(index.passages) >= 200
    for record in load_search_tasks():
        query = tool_calls(record.trajectory)[0]
        hits = index.search(query, k=3)
        text = normalize_answer(" ".join(h.text for h in hits))
        assert normalize_answer(record.task.answers[0]) in text, record.task.id
    assert index.search("zzzqqq", k=3) == []


async def test_every_shipped_task_correct_scores_one_wrong_scores_less() -> None:
    records = load_search_tasks()
    assert len(records) >= 20
    backend = SearchBackend()
    for record in records:
        good = await backend.verify(record.request())
        bad = await backend.verify(record.request(wrong=True))
        assert good.reward == 1.0 and good.scores["exact_match"] == 1.0, record.task.id
        assert bad.reward < 1.0, record.task.id
        assert good.meta["tool_calls"] == 1 and good.meta["retrieval_hit"] is True


TASK = SearchTask(id="t", question="Capital of Australia?", answers=["Canberra"])


async def test_tool_budget_counts_calls_and_zeroes_reward_when_exceeded() -> None:
    tool = SearchTool(k=2)
    trajectory = [_m("user", TASK.question)]
    for query in ["Australia capital", "capital city Canberra", "Sydney Melbourne compromise"]:
        trajectory += [_m("assistant", f"SEARCH: {query}"), _m("tool", tool(query))]
    trajectory.append(_m("assistant", "Let me think."))  # void turn
    trajectory.append(_m("assistant", "ANSWER: Canberra"))
    assert tool.calls == 3
    backend = SearchBackend()
    within = await backend.verify(SearchVerifyRequest(task=TASK, trajectory=trajectory))
    assert within.reward == 1.0 and within.meta["tool_calls"] == 3 and within.meta["void_turns"] == 1
    tight = SearchOptions(tool_budget=2)
    over = await backend.verify(SearchVerifyRequest(task=TASK, trajectory=trajectory, options=tight))
    assert over.reward == 0.0 and over.meta["over_budget"] is True and over.scores["f1"] == 1.0
    lenient = SearchOptions(tool_budget=2, enforce_budget=False)
    assert (await backend.verify(SearchVerifyRequest(task=TASK, trajectory=trajectory, options=lenient))).reward == 1.0


async def test_search_r1_tags_and_registry_dict_requests() -> None:
    trajectory = [
        _m("user", TASK.question),
        _m("assistant", "<search>capital of Australia</search>"),
        _m("tool", "[1] Canberra: Canberra is the capital city of Australia."),
        _m("assistant", "<answer>the city of Canberra</answer>"),
    ]
    assert tool_calls(trajectory) == ["capital of Australia"]
    assert final_answer(trajectory) == "the city of Canberra"
    registry = Registry()
    registry.register(SearchBackend())
    result = await registry.verify({"domain": "search", "task": TASK.model_dump(),
                                    "trajectory": [m.model_dump() for m in trajectory],
                                    "options": {"reward": "exact_match"}})
    # SQuAD: "city of canberra" vs "canberra": P = 1/3, R = 1 -> F1 = 0.5. The reward's F1 drops the
    # question word "of" and still finds "city canberra" longer than the gold: no partial credit
    # (this test used to assert 0.5 as the F1, i.e. that padding an answer earns half the reward).
    assert result.scores["squad_f1"] == pytest.approx(0.5) and result.scores["f1"] == 0.0
    assert result.reward == 0.0


async def test_no_answer_scores_zero_with_a_reason() -> None:
    result = await SearchBackend().verify(SearchVerifyRequest(task=TASK, trajectory=[_m("assistant", "SEARCH: x")]))
    assert result.reward == 0.0 and "no ANSWER" in str(result.meta["error"])


# --------------------------------------------------------------------------- rules against gaming
def _answering(text: str, task: SearchTask = TASK) -> SearchVerifyRequest:
    return SearchVerifyRequest(task=task, trajectory=[
        _m("user", task.question), _m("assistant", "SEARCH: capital of Australia"),
        _m("tool", "[1] (p167-canberra) Canberra: Canberra is the capital city of Australia."),
        _m("assistant", text),
    ])


@pytest.mark.parametrize("text", [
    "ANSWER: Canberra, Sydney", "ANSWER: Sydney or Canberra", "ANSWER: Canberra / Sydney / Melbourne",
    "ANSWER: Canberra; Sydney", "ANSWER: Canberra and Sydney", "<answer>Canberra\nSydney</answer>",
])
async def test_a_hedged_list_of_candidates_earns_nothing(text: str) -> None:
    result = await SearchBackend().verify(_answering(text))
    assert result.reward == 0.0 and result.scores["exact_match"] == 0.0
    assert "one answer is required" in str(result.meta["error"])
    assert result.scores["squad_f1"] > 0  # plain SQuAD F1 would have paid for it


@pytest.mark.parametrize("text", [
    "ANSWER: Sydney\nANSWER: Canberra", "ANSWER: Sydney\n<answer>Canberra</answer>",
    "ANSWER: Sydney <answer>Canberra</answer>", "<answer>Sydney</answer>\nANSWER: Canberra",
])
async def test_two_different_answers_earn_nothing_whichever_is_last(text: str) -> None:
    result = await SearchBackend().verify(_answering(text))
    assert result.reward == 0.0 and "2 different answers" in str(result.meta["error"])


async def test_an_answer_in_an_earlier_turn_counts_and_a_repeated_answer_is_one_answer() -> None:
    backend = SearchBackend()
    early = _answering("ANSWER: Canberra")
    early.trajectory[1] = _m("assistant", "SEARCH: capital of Australia\nANSWER: Sydney")
    assert (await backend.verify(early)).reward == 0.0
    repeated = await backend.verify(_answering("ANSWER: Canberra\n<answer>canberra.</answer>"))
    assert repeated.reward == 1.0 and repeated.meta["answers_given"] == 2 and repeated.meta["error"] is None
    assert all_answers(_answering("ANSWER:\n  Canberra").trajectory) == ["Canberra"]  # next line, as before


def test_list_separators_and_what_is_not_one() -> None:
    assert candidates("cyclooxygenase, thrombin, COX") == ["cyclooxygenase", "thrombin", "COX"]
    assert candidates("aspirin & heparin") == ["aspirin", "heparin"]
    for one in ["20,000", "140/90 mmHg", "A&E", "S. pneumoniae", "Anderson", "42.195 km"]:
        assert candidates(one) == [one]


def test_a_gold_alias_that_is_itself_a_list_is_credited_whole() -> None:
    golds = ["Geneva", "Geneva, Switzerland"]
    assert score_answer("Geneva, Switzerland", golds) == (1.0, 1.0)
    assert score_answer("Switzerland, Geneva", golds) == (1.0, 0.0)  # same words; EM wants the order
    assert score_answer("Geneva, New York", golds) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("prediction", "gold", "question", "credit"),
    [
        ("Alexander Fleming", "Alexander Fleming", "", 1.0),
        # shorter, no wrong word: P = 1, R = 1/2 -> F1 = 2/3, credit = 1 x 2/3
        ("Fleming", "Alexander Fleming", "", 2 / 3),
        # same length, one wrong word: P = R = 1/2 -> F1 = 1/2, credit = 1/2 x 1/2
        ("Dr Fleming", "Alexander Fleming", "", 0.25),
        ("Fleming Pasteur", "Alexander Fleming", "", 0.25),
        # longer than the gold: SQuAD would give 2/3 (P = 1/2, R = 1); no partial credit here
        ("cyclooxygenase thrombin", "cyclooxygenase", "", 0.0),
        ("Aspirin irreversibly inhibits cyclooxygenase reducing thromboxane", "cyclooxygenase", "", 0.0),
        # question words are neither credited nor counted
        ("chromosome", "chromosome 21", "Which chromosome is tripled in Down syndrome?", 0.0),
        ("chromosome 21", "21", "Which chromosome is tripled in Down syndrome?", 1.0),
        ("in 1980", "1980", "In what year was smallpox declared eradicated?", 1.0),
        ("Which chromosome is tripled in Down syndrome", "chromosome 21",
         "Which chromosome is tripled in Down syndrome?", 0.0),
        # a gold made only of question words is compared whole
        ("Canberra", "Canberra", "Is the capital Canberra?", 1.0),
    ],
)
def test_answer_credit_by_hand(prediction: str, gold: str, question: str, credit: float) -> None:
    assert answer_credit(prediction, gold, question) == pytest.approx(credit)


def test_hedging_never_beats_committing_at_random() -> None:
    """n answer words, one of them right, against an m-word gold: the hedge earns 2/(n(n+m)); naming
    one of the n words at random earns (1/n) x 2/(m+1) on average. SQuAD's F1 (2/(n+m)) beats it."""
    for m in range(1, 6):
        gold = " ".join(f"g{i}" for i in range(m))
        for n in range(2, m + 1):
            hedge = " ".join(["g0", *(f"w{i}" for i in range(n - 1))])
            commit = (1 / n) * answer_credit("g0", gold)
            assert answer_credit(hedge, gold) <= commit + 1e-12, (n, m)
            assert f1_score(hedge, gold) > commit, (n, m)
