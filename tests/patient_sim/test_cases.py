"""Case loading: the project's own cases, the AgentClinic importer, lookup and error messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patient_sim.cases import (
    CaseFormatError,
    CaseNotFoundError,
    apply_rubric_review,
    find_case,
    import_agentclinic,
    load_cases,
    load_rubric_review,
    project_cases,
    read_agentclinic,
)
from patient_sim.measurement import MeasurementResponder
from verifier.types import Case

REQUIRED_CONDITIONS = [
    "coronary", "stroke", "sepsis", "meningitis", "anaphylaxis", "ectopic", "ketoacidosis",
    "pulmonary embolism", "appendicitis", "subarachnoid", "gastrointestinal bleed", "urinary tract infection",
    "otitis media", "asthma", "migraine", "reflux", "depressi", "hypothyroidism", "gout",
]


def test_project_cases_are_many_complete_and_varied() -> None:
    cases = project_cases()
    assert len(cases) >= 40
    assert len({c.id for c in cases}) == len(cases)
    for case in cases:
        for field in ("diagnosis_synonyms", "differential", "red_flags", "key_questions", "recommended_tests"):
            assert getattr(case, field), f"{case.id}: {field} is empty"
        assert case.physical_exam, case.id
        assert case.demographics.age is not None and case.demographics.sex, case.id
    assert {c.disposition for c in cases} == {"emergency", "urgent", "routine"}
    assert len({c.specialty for c in cases}) >= 12
    ages = [c.demographics.age for c in cases]
    assert min(ages) < 5 and max(ages) > 75
    names = " | ".join(
        " ".join([c.final_diagnosis, *c.diagnosis_synonyms]).lower() for c in cases
    )
    missing = [cond for cond in REQUIRED_CONDITIONS if cond not in names]
    assert not missing, missing


def test_recommended_tests_are_answerable_from_each_case() -> None:
    for case in project_cases():
        responder = MeasurementResponder(case)
        for test in case.recommended_tests:
            findings = responder.lookup(test)
            assert findings[0].status == "found", f"{case.id}: {test!r} matches no exam/test entry"


def test_all_agentclinic_cases_import(agentclinic_path: Path) -> None:
    cases = import_agentclinic(agentclinic_path)
    assert len(cases) == 107
    assert cases[0].id == "agentclinic-0001" and cases[-1].id == "agentclinic-0107"
    first = cases[0]
    assert first.final_diagnosis == "Myasthenia gravis"
    assert first.demographics.age == 35 and first.demographics.sex == "female"
    assert first.physical_exam["Vital Signs > Heart Rate"] == "72 bpm"
    assert first.test_results["Imaging > Chest CT > Findings"].startswith("Normal")
    assert all(c.chief_complaint and c.physical_exam and c.source == "agentclinic" for c in cases)
    assert sum(bool(c.test_results) for c in cases) >= 100
    assert find_case(f"{agentclinic_path}#agentclinic-0002").id == "agentclinic-0002"


def test_yaml_error_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(
        "- id: ok-case\n"
        "  chief_complaint: Cough\n"
        "  history_of_present_illness: Cough for a week.\n"
        "  final_diagnosis: Viral bronchitis\n"
        "- id: broken\n"
        "  chief_complaint: Pain\n"
        "  history_of_present_illness: Pain.\n"
        "  final_diagnosis: Something\n"
        "  disposition: whenever\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseFormatError) as info:
        load_cases(path)
    error = info.value
    assert error.line == 9 and error.field == "disposition"
    assert str(path) in str(error) and ":9:" in str(error) and "'disposition'" in str(error)


def test_yaml_missing_field_and_syntax_errors(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text("id: lonely\nchief_complaint: Rash\n", encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"one\.yaml:1: field 'history_of_present_illness'"):
        load_cases(path)
    path.write_text("- id: x\n  chief_complaint: [unclosed\n", encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"one\.yaml:\d+: .*invalid YAML"):
        load_cases(path)


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    good = {"id": "a", "chief_complaint": "x", "history_of_present_illness": "y", "final_diagnosis": "z"}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "id": "b", "age": 3}) + "\n", encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"cases\.jsonl:3: field 'age'"):
        load_cases(path)
    path.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"cases\.jsonl:2: invalid JSON"):
        load_cases(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    with pytest.raises(CaseFormatError, match="duplicate case id 'a'"):
        load_cases(path)
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert find_case(str(path)).id == "a"


def test_agentclinic_errors_name_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "osce.jsonl"
    record = {"OSCE_Examination": {"Patient_Actor": {"Symptoms": {"Primary_Symptom": "Cough"}}}}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(CaseFormatError, match=r"osce\.jsonl:1: field 'OSCE_Examination.Correct_Diagnosis'"):
        import_agentclinic(path, strict=True)
    assert import_agentclinic(path) == []  # skipped, not raised
    assert str(read_agentclinic(path).skipped[0]).endswith("osce.jsonl:1: field 'OSCE_Examination.Correct_Diagnosis': missing")


def _derived_records(agentclinic_path: Path) -> list[str]:
    """Lines of a file made from the real records, some emptied, some reshaped, some broken, some
    hand-written; the comment after each says what the importer must make of it."""
    real = [json.loads(line) for line in agentclinic_path.read_text(encoding="utf-8").splitlines()[:8]]

    def osce(i: int) -> dict:
        return real[i]["OSCE_Examination"]

    osce(0)["Patient_Actor"]["Symptoms"] = {}  # asymptomatic screening: complaint from the history
    del osce(1)["Patient_Actor"]["Symptoms"], osce(1)["Patient_Actor"]["History"]  # from the objective
    for key in ("Physical_Examination_Findings", "Test_Results"):  # no exam, no tests at all
        del osce(2)[key]
    for key in ("Past_Medical_History", "Social_History", "Review_of_Systems", "Demographics"):
        osce(2)["Patient_Actor"][key] = ""
    osce(3)["Test_Results"] = "Not performed"  # a section that is only a text
    osce(3)["Patient_Actor"]["Symptoms"] = ["Fever", "Night sweats"]  # symptoms as a plain list
    del osce(4)["Correct_Diagnosis"]  # cannot be a case
    osce(5)["Correct_Diagnosis"] = "  "  # nor this
    osce(6)["Patient_Actor"] = "a 40-year-old man"  # the wrong shape for the patient
    empty = {"OSCE_Examination": {"Correct_Diagnosis": "Hypertension", "Patient_Actor": {"Symptoms": {}}}}
    return [json.dumps(r) for r in real[:7]] + [
        "",  # a blank line is no record
        '{"OSCE_Examination": {"Correct_Diagnosis": "Gout", ',  # truncated JSON
        json.dumps([1, 2]),  # not an object
        json.dumps({"question": "Which drug?", "answer": "A"}),  # another benchmark's record
        json.dumps(empty),  # a diagnosis, but nothing the patient presents with
        json.dumps(real[7]),  # untouched
    ]


def test_agentclinic_records_with_empty_sections_import_and_broken_ones_are_skipped(
    agentclinic_path: Path, tmp_path: Path
) -> None:
    path = tmp_path / "derived.jsonl"
    path.write_text("\n".join(_derived_records(agentclinic_path)) + "\n", encoding="utf-8")
    result = read_agentclinic(path)
    assert result.summary() == "5 imported, 7 skipped"
    ids = [c.id for c in result.cases]
    assert ids == ["agentclinic-0001", "agentclinic-0002", "agentclinic-0003", "agentclinic-0004", "agentclinic-0012"]
    screening, from_objective, bare, reshaped, untouched = result.cases
    assert screening.primary_symptoms == [] and screening.chief_complaint.startswith("The patient reports a 1-month")
    assert screening.chief_complaint.endswith(".") and len(screening.chief_complaint) <= 203
    assert from_objective.chief_complaint.startswith("Evaluate and diagnose") and from_objective.history_of_present_illness == ""
    assert bare.physical_exam == {} and bare.test_results == {} and bare.past_medical_history == []
    assert bare.demographics.age is None and bare.final_diagnosis
    assert reshaped.test_results == {"Test results": "Not performed"}
    assert reshaped.chief_complaint == "Fever" and reshaped.secondary_symptoms == ["Night sweats"]
    assert untouched.final_diagnosis == import_agentclinic(agentclinic_path)[7].final_diagnosis
    skipped = {(s.line, s.field): s.reason for s in result.skipped}
    assert skipped == {
        (5, "OSCE_Examination.Correct_Diagnosis"): "missing",
        (6, "OSCE_Examination.Correct_Diagnosis"): "empty",
        (7, "OSCE_Examination.Patient_Actor"): "expected an object, got str",
        (9, None): "invalid JSON: Expecting property name enclosed in double quotes (column 52)",
        (10, None): "expected a JSON object, got list",
        (11, "OSCE_Examination"): "missing (not an AgentClinic OSCE record)",
        (12, "OSCE_Examination.Patient_Actor"): "nothing the patient presents with (no symptom, history or objective)",
    }
    assert all(s.path == str(path) for s in result.skipped)
    assert [c.id for c in import_agentclinic(path)] == ids  # the list-returning API skips the same way
    with pytest.raises(CaseFormatError, match=r"derived\.jsonl:5: field 'OSCE_Examination.Correct_Diagnosis': missing"):
        read_agentclinic(path, strict=True)  # the whole file fails at the first record that cannot be a case
    assert find_case(f"{path}#agentclinic-0012").id == "agentclinic-0012"


def test_the_whole_agentclinic_file_imports_with_nothing_skipped(agentclinic_path: Path) -> None:
    result = read_agentclinic(agentclinic_path, strict=True)
    assert result.summary() == "107 imported, 0 skipped"


def test_find_case_by_id_and_unknown_ids() -> None:
    assert find_case("acs-stemi").disposition == "emergency"
    with pytest.raises(CaseNotFoundError, match="unknown case 'no-such-case'"):
        find_case("no-such-case")
    with pytest.raises(CaseNotFoundError, match="no case with id 'nope'"):
        find_case(str(Path(__file__).resolve().parents[2] / "data" / "cases" / "neurology.yaml") + "#nope")


# --------------------------------------------------------------------------- the clinicians' rubric review
def _review_line(**change: object) -> str:
    entry = {"case": "agentclinic-0001", "diagnosis": "Myasthenia gravis", "leave_out": "onset", "why": ["x", "y"]}
    return json.dumps({**entry, **change}) + "\n"


def test_the_rubric_review_applies_where_case_and_diagnosis_both_match(tmp_path: Path) -> None:
    review = tmp_path / "review.jsonl"
    review.write_text(_review_line() + _review_line(leave_out="Weakness in upper limbs")
                      + _review_line(case="agentclinic-0002", diagnosis="Migraine"))  # another record's diagnosis
    cases = [Case(id="agentclinic-0001", chief_complaint="Double vision", history_of_present_illness="A month.",
                  final_diagnosis="Myasthenia gravis"),
             Case(id="agentclinic-0002", chief_complaint="Gait", history_of_present_illness="New.",
                  final_diagnosis="Progressive multifocal leukoencephalopathy")]
    first, second = apply_rubric_review(cases, review)
    assert first.rubric_leaves_out == ["onset", "Weakness in upper limbs"]
    assert second.rubric_leaves_out == []
    assert apply_rubric_review(cases, tmp_path / "absent.jsonl") == cases
    review.write_text(_review_line() + '{"case": "agentclinic-0001", "leave_out": "onset"}\n')
    with pytest.raises(CaseFormatError, match="review.jsonl:2"):
        apply_rubric_review(cases, review)


def test_every_shipped_review_entry_leaves_out_an_item_of_its_case(agentclinic_path: Path) -> None:
    """The review was written against the rubric built from these records: each entry names a symptom, a test
    or the onset question that the unreviewed rubric asks for, and every reviewed case imports with it."""
    from verifier import clinical

    entries = load_rubric_review()
    assert len(entries) >= 80 and all(len(e.why) == 2 for e in entries)  # two clinicians agreed on each
    reviewed = {c.id: c for c in import_agentclinic(agentclinic_path)}
    for entry in entries:
        case = reviewed[entry.case]
        assert case.final_diagnosis == entry.diagnosis and entry.leave_out in case.rubric_leaves_out
        bare = case.model_copy(update={"rubric_leaves_out": []})
        asked = {"onset", *bare.secondary_symptoms[:5], *clinical.case_tests(bare)}
        assert entry.leave_out in asked, entry
        assert entry.leave_out not in clinical.case_tests(case)
