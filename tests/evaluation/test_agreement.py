"""Agreement statistics against numbers worked out by hand.

Grader vs clinician on five items, grader = [T, T, F, F, T], clinician = [T, F, F, T, T]:
  agreement on items 0, 2, 4 -> accuracy 3/5 = 0.6
  met:   both 2 (items 0, 4), one only 2 (items 1, 3)   F1 = 2*2 / (2*2 + 2) = 4/6
  unmet: both 1 (item 2), one only 2                    F1 = 2*1 / (2*1 + 2) = 2/4
  macro F1 = (2/3 + 1/2) / 2 = 7/12
  chance agreement = 0.6*0.6 + 0.4*0.4 = 0.52           kappa = (0.6 - 0.52) / 0.48 = 1/6
"""

from __future__ import annotations

import pytest

from evaluation.agreement import (
    accuracy,
    agreement_report,
    bootstrap_interval,
    cohen_kappa,
    f1,
    macro_f1,
)
from evaluation.reviews import CriterionReview, GradedCriterion, GradedRubric, Review

GRADER = [True, True, False, False, True]
CLINICIAN = [True, False, False, True, True]


def test_hand_computed_figures() -> None:
    assert accuracy(GRADER, CLINICIAN) == pytest.approx(0.6)
    assert f1(GRADER, CLINICIAN, True) == pytest.approx(2 / 3)
    assert f1(GRADER, CLINICIAN, False) == pytest.approx(0.5)
    assert macro_f1(GRADER, CLINICIAN) == pytest.approx(7 / 12)
    assert cohen_kappa(GRADER, CLINICIAN) == pytest.approx(1 / 6)
    # Symmetric in the raters.
    assert macro_f1(CLINICIAN, GRADER) == pytest.approx(7 / 12)
    assert cohen_kappa(CLINICIAN, GRADER) == pytest.approx(1 / 6)


def test_degenerate_cases() -> None:
    assert accuracy([], []) is None and macro_f1([], []) is None and cohen_kappa([], []) is None
    # One class only: F1 of the absent class is undefined and left out; kappa is undefined.
    assert macro_f1([True, True], [True, True]) == 1.0
    assert cohen_kappa([True, True], [True, True]) is None
    # Complete disagreement on two balanced items: kappa = (0 - 0.5) / 0.5 = -1.
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    assert macro_f1([True, False], [False, True]) == 0.0
    with pytest.raises(ValueError, match="different numbers"):
        accuracy([True], [True, False])


def test_bootstrap_interval() -> None:
    same = bootstrap_interval([True, False, True], [True, False, True], accuracy)
    assert same is not None and same.low == same.high == 1.0
    interval = bootstrap_interval(GRADER * 4, CLINICIAN * 4, accuracy, seed=1)
    assert interval is not None and interval.low < 0.6 < interval.high
    assert 0.0 <= interval.low and interval.high <= 1.0
    assert bootstrap_interval([True], [True], accuracy) is None
    assert bootstrap_interval(GRADER * 4, CLINICIAN * 4, accuracy, seed=1) == interval  # seeded


def _review(reviewer: str, consultation: str, marks: list[str | None], met: list[bool | None],
            graders: list[str] | None = None) -> Review:
    graders = graders or ["rule"] * len(met)
    criteria = [GradedCriterion(id=f"v{i + 1}", criterion=f"criterion {i + 1}", points=5,
                                tags=["axis:accuracy" if i % 2 == 0 else "axis:completeness"], met=m,
                                grader=graders[i])
                for i, m in enumerate(met)]
    rubric = GradedRubric(generator="case@2", case_id="c", messages=4, criteria=criteria)
    return Review(consultation_id=consultation, reviewer=reviewer, rubric=rubric,
                  criteria=[CriterionReview(id=f"v{i + 1}", verdict=mark) for i, mark in enumerate(marks)])


def test_report_per_axis_grader_and_clinician_pairs() -> None:
    # Ames on consultation x: items v1..v5 with the grader's verdicts GRADER, marks that make her verdicts
    # CLINICIAN; v1, v3, v5 are on the accuracy axis, v2, v4 on completeness; v4 and v5 were judged.
    ames = _review("dr-ames", "x", ["agree", "disagree", "agree", "disagree", "agree"], GRADER,
                   ["rule", "rule", "rule", "judge:m", "judge:m"])
    # Bell on x: agrees everywhere (her verdicts = GRADER) except v1 (not reviewed); an unscored item on y.
    bell = _review("dr-bell", "x", [None, "agree", "agree", "agree", "agree"], GRADER,
                   ["rule", "rule", "rule", "judge:m", "judge:m"])
    unscored = _review("dr-bell", "y", ["agree"], [None])
    report = agreement_report([ames, bell, unscored])

    assert report.reviews == 3 and report.consultations == 2 and report.reviewers == ["dr-ames", "dr-bell"]
    # Grader vs clinicians: Ames' five (accuracy 3/5) and Bell's four agreements -> 7/9.
    assert report.grader.n == 9 and report.grader.accuracy == pytest.approx(7 / 9)
    # Accuracy axis: Ames v1 T/T, v3 F/F, v5 T/T and Bell v3, v5 -> all agree.
    assert report.by_axis["accuracy"].n == 5 and report.by_axis["accuracy"].accuracy == 1.0
    # Completeness: Ames v2 T/F, v4 F/T, Bell v2 T/T, v4 F/F -> 2/4; kappa: grader T-rate 1/2, clinicians 1/2,
    # chance 1/2, kappa 0.
    assert report.by_axis["completeness"].accuracy == 0.5 and report.by_axis["completeness"].kappa == 0.0
    # Judge: Ames v4 F/T, v5 T/T, Bell v4 F/F, v5 T/T -> 3/4; rule: 4 of 5.
    assert report.by_grader["judge"].n == 4 and report.by_grader["judge"].accuracy == 0.75
    assert report.by_grader["rule"].n == 5 and report.by_grader["rule"].accuracy == 0.8
    # Clinician pairs on x: v2 (Ames F, Bell T), v3 (F, F), v4 (T, F), v5 (T, T) -> 2/4.
    assert report.clinicians is not None and report.clinicians.n == 4 and report.clinicians.accuracy == 0.5
    # Most disagreed: v2 and v4 each with 1 grader + 1 clinician disagreement (of 3 comparisons).
    top = report.most_disagreed
    assert [(d.criterion, d.disagreements, d.compared) for d in top] == [("criterion 2", 2, 3), ("criterion 4", 2, 3)]
    assert top[0].grader_disagreements == 1 and top[0].clinician_disagreements == 1


def test_no_reviews() -> None:
    report = agreement_report([])
    assert report.grader.n == 0 and report.grader.accuracy is None and report.clinicians is None
