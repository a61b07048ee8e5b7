"""Case loading: the project's own cases, the AgentClinic importer, lookup and error messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patient_sim.cases import (
    CaseFormatError,
    CaseNotFoundError,
    find_case,
    import_agentclinic,
    load_cases,
    project_cases,
)
from patient_sim.measurement import MeasurementResponder

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
        import_agentclinic(path)


def test_find_case_by_id_and_unknown_ids() -> None:
    assert find_case("acs-stemi").disposition == "emergency"
    with pytest.raises(CaseNotFoundError, match="unknown case 'no-such-case'"):
        find_case("no-such-case")
    with pytest.raises(CaseNotFoundError, match="no case with id 'nope'"):
        find_case(str(Path(__file__).resolve().parents[2] / "data" / "cases" / "neurology.yaml") + "#nope")
