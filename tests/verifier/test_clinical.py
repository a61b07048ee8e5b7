"""The clinical-language layer: its data and its one resolver, checked on wordings and cases the data
was not written from. Each reward-facing behaviour comes in a pair: a good answer in other words that
must pass, and a cheap trick that must fail."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from patient_sim.cases import project_cases
from patient_sim.doctors import dialogue
from patient_sim.measurement import MeasurementResponder
from rubric_gen.case_rubric import build_case_rubric, case_tests
from verifier import clinical
from verifier.clinical import data
from verifier.rule_grader import RuleGrader
from verifier.types import Case, Demographics

LAB_KEYS = [
    "Blood Work > Complete Blood Count > WBC",
    "Blood Work > Complete Blood Count > Hemoglobin",
    "Blood Work > Complete Blood Count > Platelets",
    "Blood Work > Lactate Dehydrogenase",
    "Blood Work > Serum Sodium",
    "Blood Work > Creatinine",
    "Imaging > CT Scan Thorax and Abdomen > Findings",
    "Biopsy > Cervical Lymph Node > Findings",
    "Urine > Culture",
]


def named(order: str, labels: list[str] = LAB_KEYS, *, exam: bool = False) -> set[str]:
    return set(clinical.resolve(order, labels, exam=exam).named)


# --------------------------------------------------------------------------- orders: abbreviations, panels
@pytest.mark.parametrize("order", ["CBC", "FBC", "full blood count", "complete blood count", "blood count",
                                   "CBC with diff", "hemogram"])
def test_a_blood_count_names_its_parts(order: str) -> None:
    assert named(order) == set(LAB_KEYS[:3]), order


@pytest.mark.parametrize("order", ["Hb", "haemoglobin", "hemoglobin", "Hgb"])
def test_a_part_names_only_itself(order: str) -> None:
    assert named(order) == {LAB_KEYS[1]}


@pytest.mark.parametrize("order,keys", [
    ("BMP", {LAB_KEYS[4], LAB_KEYS[5]}), ("U&Es", {LAB_KEYS[4], LAB_KEYS[5]}),
    ("CMP", {LAB_KEYS[4], LAB_KEYS[5]}), ("urea and electrolytes", {LAB_KEYS[4], LAB_KEYS[5]}),
    ("LDH", {LAB_KEYS[3]}), ("lactate dehydrogenase", {LAB_KEYS[3]}),
    ("CT chest, abdomen and pelvis", {LAB_KEYS[6]}), ("CT C/A/P", {LAB_KEYS[6]}),
    ("CT thorax", {LAB_KEYS[6]}), ("lymph node biopsy", {LAB_KEYS[7]}),
    ("excision biopsy of the neck node", {LAB_KEYS[7]}), ("urine culture", {LAB_KEYS[8]}),
    ("MSU", {LAB_KEYS[8]}),
])
def test_us_and_uk_names_and_panels(order: str, keys: set[str]) -> None:
    assert named(order) == keys, order


@pytest.mark.parametrize("order", ["CT head", "MRI abdomen", "bone marrow biopsy", "troponin", "urinalysis",
                                   "chest X-ray", "blood cultures", "TSH"])
def test_a_different_test_is_not_named(order: str) -> None:
    assert named(order) == set(), order


def test_a_vague_order_is_answered_but_never_credited() -> None:
    resolution = clinical.resolve("CT scan", LAB_KEYS)
    assert resolution.named == () and resolution.touched == (LAB_KEYS[6],)
    assert clinical.resolve("biopsy", LAB_KEYS).named == ()


def test_an_examination_names_its_system() -> None:
    keys = ["Abdominal Examination > Palpation", "Neurological Examination > Reflexes", "Vital Signs > Heart Rate"]
    assert named("abdomen", keys, exam=True) == {keys[0]}
    assert named("tummy examination", keys) == {keys[0]}
    assert named("neuro exam", keys) == {keys[1]}
    assert named("obs", keys) == {keys[2]}
    assert named("cardiac", keys, exam=True) == set()


def test_inflammatory_markers_name_the_crp_and_esr_the_case_holds() -> None:
    keys = ["Blood tests > CRP", "Blood tests > Creatinine", "Blood Chemistry > Erythrocyte Sedimentation Rate"]
    assert named("inflammatory markers", keys) == {keys[0], keys[2]}
    assert named("blood tests for inflammation and kidney function", keys) == set(keys)
    assert named("inflammatory markers", LAB_KEYS) == set()


def test_salts_in_an_order_are_the_electrolytes_but_not_in_a_question() -> None:
    keys = ["Serum Electrolytes > Sodium", "Serum Electrolytes > Potassium", "Complete Blood Count > WBC"]
    assert named("blood count and salts", keys) == set(keys)
    assert not any(k.startswith(clinical.TEST) for k in clinical.asked("Do you add salt to your food?"))


def test_a_swab_of_a_site_names_its_culture() -> None:
    keys = ["Throat Culture > Findings", "Wound Culture > Findings", "Urine > Culture"]
    assert named("throat swab", keys) == {keys[0]}
    assert named("wound swab", keys) == {keys[1]}
    assert named("swab of the ulcer", keys) == {keys[1]}
    assert named("swab", keys) == set()  # a swab of nothing in particular is no culture
    assert named("blood test", keys) == set()


def test_an_examination_of_the_joints_names_the_joint_examined() -> None:
    keys = ["Joint exam", "Imaging > Knee X-ray"]
    assert named("knee", keys, exam=True) == {keys[0]}
    assert named("right knee examination", keys) == {keys[0]}
    assert named("hip X-ray", keys) == set()  # another joint's X-ray is another test
    assert named("knee", ["Abdominal Examination > Palpation", "Hip exam"], exam=True) == set()


def test_every_project_test_name_is_answered_and_credited_alike() -> None:
    """The measurement responder answers each recommended test, and the grader credits that order."""
    grader = RuleGrader()
    for case in project_cases():
        responder = MeasurementResponder(case)
        rubric = build_case_rubric(case)
        for test in case_tests(case):
            kind = "EXAM" if clinical.is_exam(test) else "TEST"
            found = [f for f in responder.lookup(test, exam=kind == "EXAM") if f.status == "found"]
            assert found or kind == "EXAM", f"{case.id}: {test!r} answered with nothing"
            results = grader.grade_sync(dialogue(case, [f"REQUEST {kind}: {test}"]), rubric.items)
            credited = [r for r in results if r.met and r.criterion.endswith(f"test: {test}.")]
            assert credited, f"{case.id}: ordering {test!r} is not credited"


# --------------------------------------------------------------------------- questions: lay words, intents
@pytest.mark.parametrize("question,key", [
    ("Any burning or stinging when you pee?", "urinary"),
    ("How are your waterworks?", "urinary"),
    ("Have you been sick at all?", "vomiting"),
    ("Any throwing up?", "vomiting"),
    ("Are you off your food?", "appetite"),
    ("Any pain in your testicles?", "testicular"),
    ("Can you show me where it first hurt?", "intent:site"),
    ("How long has this been going on?", "intent:onset"),
    ("Have you had this before?", "intent:previous"),
    ("Can you show me exactly where the pain is?", "intent:site"),
    ("Has the pain been there for more than six hours?", "intent:onset"),
    ("Sore or red eyes?", "conjunctivitis"),
    ("Any bloodshot eyes?", "conjunctivitis"),
    ("Are you on anything that lowers your immunity, like steroids or chemo?", "immunosuppression"),
    ("Any HIV?", "immunosuppression"),
    ("How long have you had the cough, and what are you bringing up?", "sputum"),
    ("Have you had lots of chest infections over the years?", "bronchitis"),
    ("Have you had lots of chest infections over the years?", "intent:previous"),
    ("Is he more sleepy than usual?", "drowsiness"),
    ("Worse lifting the baby?", "lifting"),
    ("Anything help?", "intent:relief"),
])
def test_a_lay_question_asks_what_the_clinical_one_does(question: str, key: str) -> None:
    keys = clinical.asked(question)
    clinical_word = {"urinary": "urinary symptoms", "vomiting": "vomiting", "appetite": "loss of appetite",
                     "testicular": "testicular pain"}.get(key)
    if clinical_word is None:
        assert key in keys, (question, sorted(keys))
    else:
        wanted = {k for k in clinical.asked(clinical_word) if not clinical.is_generic(k)}
        assert wanted & keys, (question, sorted(keys), sorted(wanted))


def test_different_complaints_stay_apart() -> None:
    def specific(text: str) -> set[str]:
        return {k for k in clinical.asked(text) if not clinical.is_generic(k)}

    assert not specific("Any chest pain?") & specific("Any tummy pain?")
    assert not specific("Any headaches?") & specific("Any back pain?")
    assert not specific("Any cough?") & specific("Any vomiting?")
    assert "sputum" not in specific("Are you bringing up food?")
    assert "conjunctivitis" not in specific("Any eye pain or blurred vision?")
    assert "immunosuppression" not in specific("Any cancer in the family?")
    assert "bronchitis" not in specific("Any recent cold or flu?")
    assert "bronchitis" not in specific("Any chest pain?")


def test_a_negated_finding_is_asked_about_as_the_finding() -> None:
    assert clinical.topic("No fever") == "fever"
    assert clinical.topic("Denies chest pain") == "chest pain"


# --------------------------------------------------------------------------- diagnosis names
def _case(diagnosis: str, differential: list[str] | None = None) -> Case:
    return Case(id="x", chief_complaint="Unwell", history_of_present_illness="Unwell for a day.",
                demographics=Demographics(age=50, sex="female"), final_diagnosis=diagnosis,
                differential=differential or [])


@pytest.mark.parametrize("diagnosis,stated", [
    ("Chronic obstructive pulmonary disease exacerbation", "COPD exacerbation"),
    ("Thrombotic thrombocytopenic purpura", "TTP"),
    ("Central retinal artery occlusion", "CRAO"),
    ("Vasovagal syncope", "vasovagal faint"),
    ("Deep vein thrombosis", "DVT"),
    ("Diffuse large B-cell lymphoma", "DLBCL"),
    ("Myasthenia gravis", "MG"),
    ("Pancreatic adenocarcinoma", "pancreatic cancer"),
    ("Pancreatic adenocarcinoma", "cancer of the head of the pancreas"),
    ("Pneumonia", "CAP"),
    ("Pneumonia", "community-acquired pneumonia"),
    ("Chronic venous insufficiency", "venous leg ulcer due to chronic venous insufficiency"),
])
def test_a_diagnosis_in_its_usual_short_name_is_right(diagnosis: str, stated: str) -> None:
    case = _case(diagnosis)
    results = RuleGrader().grade_sync(dialogue(case, [f"DIAGNOSIS: {stated}"]), build_case_rubric(case).items)
    accuracy = next(r for r in results if r.criterion.startswith("States the correct final diagnosis"))
    assert accuracy.met, accuracy.explanation


@pytest.mark.parametrize("diagnosis,rival", [
    ("Transient ischaemic attack", "stroke"),
    ("Diffuse large B-cell lymphoma", "Hodgkin lymphoma"),
    ("Deep vein thrombosis", "PE"),
    ("Thrombotic thrombocytopenic purpura", "ITP"),
    ("Pancreatic adenocarcinoma", "chronic pancreatitis"),
    ("Pancreatic adenocarcinoma", "cholangiocarcinoma"),
    ("Pneumonia", "bronchitis"),
    ("Pneumonia", "lung cancer"),
    ("Chronic venous insufficiency", "deep vein thrombosis"),
    ("Venous leg ulcer", "chronic venous insufficiency"),
])
def test_a_rival_condition_never_gets_in_through_an_alias(diagnosis: str, rival: str) -> None:
    case = _case(diagnosis)
    results = RuleGrader().grade_sync(dialogue(case, [f"DIAGNOSIS: {rival}"]), build_case_rubric(case).items)
    accuracy = next(r for r in results if r.criterion.startswith("States the correct final diagnosis"))
    assert not accuracy.met, accuracy.explanation


def test_aliases_never_join_two_conditions() -> None:
    """No name stands on two lines, and no line holds two of the matcher's distinct conditions."""
    from verifier.clinical.diagnoses import _diagnosis_index
    from verifier.diagnosis import _builtin, words

    _, lines = _diagnosis_index()
    owner: dict[str, int] = {}
    for number, line in enumerate(lines):
        for name in line:
            key = " ".join(words(name))
            assert owner.setdefault(key, number) == number, f"{name!r} on lines {owner[key]} and {number}"
    builtin = {alias: cid for cid, aliases in _builtin() for alias in aliases}
    for line in lines:
        ids = {builtin[" ".join(words(n))] for n in line if " ".join(words(n)) in builtin}
        assert len(ids) <= 1, (line, ids)


def test_an_abbreviation_that_is_a_word_counts_only_in_capitals() -> None:
    case = _case("Acute lymphoblastic leukemia")
    rubric = build_case_rubric(case).items

    def accurate(stated: str) -> bool:
        results = RuleGrader().grade_sync(dialogue(case, [f"DIAGNOSIS: {stated}"]), rubric)
        return next(r for r in results if r.criterion.startswith("States the correct final diagnosis")).met

    assert accurate("B-cell ALL")
    assert not accurate("all of it is fine")


def test_every_imported_test_is_answered_and_credited_alike(agentclinic_path) -> None:
    """The AgentClinic cases (the layer's data was not written from their orders): ordering each test the
    rubric asks for, by the rubric's own name, is answered and credited."""
    from patient_sim.cases import import_agentclinic

    grader = RuleGrader()
    for case in import_agentclinic(agentclinic_path):
        rubric = build_case_rubric(case)
        for test in case_tests(case):
            assert [f for f in MeasurementResponder(case).lookup(test) if f.status == "found"], (case.id, test)
            results = grader.grade_sync(dialogue(case, [f"REQUEST TEST: {test}"]), rubric.items)
            assert any(r.met for r in results if r.criterion.endswith(f"test: {test}.")), (case.id, test)


def test_the_reference_doctor_orders_the_rubric_s_tests_and_earns_them(agentclinic_path) -> None:
    """The audit's reference is the exact-wording yardstick of the recall figures: on every case of both sets it
    orders the tests the rubric asks for (the layer's ``case_tests``), and earns every test item."""
    from patient_sim.cases import import_agentclinic
    from patient_sim.doctors import reference, reference_tests

    grader = RuleGrader()
    for case in [*project_cases(), *import_agentclinic(agentclinic_path)]:
        assert reference_tests(case) == case_tests(case) == clinical.case_tests(case), case.id
        results = grader.grade_sync(dialogue(case, reference(case)), build_case_rubric(case).items)
        unmet = [r.criterion for r in results if r.criterion.startswith("Orders the appropriate test") and not r.met]
        assert not unmet, (case.id, unmet)


# --------------------------------------------------------------------------- the issue's own examples
def test_the_web_page_appendicitis_consultation_earns_the_reference_s_credit() -> None:
    """Issue 28's clinician, in their own words, on acute-appendicitis: every key question, the tests by
    their everyday names, the right diagnosis with an emergency plan and safety-netting."""
    from patient_sim.cases import find_case
    from patient_sim.doctors import reference

    case = find_case("acute-appendicitis")
    turns = [
        "I'm sorry you're in pain. Can you show me where it first hurt, and where it hurts now?",
        "Have you been sick at all, and are you off your food?",
        "Any burning or stinging when you pee? And any pain in your testicles?",
        "Do you take any medicines, and are you allergic to anything? Is your tummy very hard or rigid? Any high fever?",
        "I'd like to examine your tummy.\nREQUEST EXAM: abdomen\nREQUEST TEST: Blood count\n"
        "REQUEST TEST: C-reactive protein\nREQUEST TEST: Urine dipstick\nREQUEST TEST: Ultrasound of the abdomen",
        "DIAGNOSIS: Appendicitis\nI know this is worrying. Your pain moved to the right side and the scan shows an "
        "inflamed appendix; I considered mesenteric adenitis but the scan points to the appendix. This needs "
        "emergency treatment now: I am sending you to the emergency department straight away for the surgeons. "
        "If the pain gets much worse before you are seen, call 999.",
    ]
    rubric = build_case_rubric(case).items
    grader = RuleGrader()
    natural = grader.grade_sync(dialogue(case, turns), rubric)
    exact = grader.grade_sync(dialogue(case, reference(case)), rubric)

    def score(results: list) -> float:
        positive = sum(i.points for i in rubric if i.points > 0 and i.check is not None)
        return sum(r.points for r in results if r.met) / positive

    missed = [r.criterion for r in natural if r.points > 0 and r.met is False]
    harms = [r.criterion for r in natural if r.points < 0 and r.met]
    assert not harms, harms
    assert not [m for m in missed if "test" in m or "asks" in m.lower()], missed
    assert score(natural) >= 0.95 * score(exact), (score(natural), score(exact), missed)


def test_the_lymphoma_case_credits_a_cbc_and_asks_for_the_tests_that_make_the_diagnosis(agentclinic_path) -> None:
    """Issue 28's AgentClinic example (diffuse large B-cell lymphoma): a CBC is the WBC, haemoglobin and
    platelets, the LDH the case holds is indicated, and the rubric asks for the CT and the node biopsy."""
    from patient_sim.cases import import_agentclinic

    case = next(c for c in import_agentclinic(agentclinic_path) if c.id == "agentclinic-0004")
    tests = case_tests(case)
    assert any("biopsy" in t.lower() for t in tests) and any("ct" in t.lower().split() for t in tests), tests
    orders = "\n".join(f"REQUEST TEST: {t}" for t in ["CBC", "LDH", "CT chest/abdomen/pelvis",
                                                       "Excisional biopsy of the neck node"])
    results = RuleGrader().grade_sync(dialogue(case, [orders]), build_case_rubric(case).items)
    test_items = [r for r in results if r.criterion.startswith("Orders the appropriate test")]
    assert test_items and all(r.met for r in test_items), [(r.criterion, r.explanation) for r in test_items]
    unindicated = next(r for r in results if r.criterion.startswith("Orders tests the presentation"))
    assert not unindicated.met, unindicated.explanation
    assert unindicated.explanation.startswith("0 of 4 tests ordered unindicated"), unindicated.explanation


@pytest.mark.parametrize(("labels", "panel"), [
    (["Serum Laboratory Values > Na", "Serum Laboratory Values > K", "Serum Laboratory Values > Cl",
      "Serum Laboratory Values > HCO3"], "electrolytes"),
    (["Hematologic > Hematocrit", "Hematologic > Leukocyte Count", "Hematologic > Platelet Count"], "blood count"),
])
def test_results_listed_one_by_one_are_the_panel_a_clinician_orders(labels: list[str], panel: str) -> None:
    """A sparse record that lists a panel's results one by one asks for one test, named for the panel, and the
    panel's usual names credit it (US and UK), while one of its parts alone does not."""
    groups = clinical.test_groups([*labels, "Imaging > MRI Brain > Findings"])
    assert len(groups) == 2 and sorted(groups[0][1]) == sorted(labels), groups
    assert panel in groups[0][0].lower(), groups
    case = Case(id="t-panel", chief_complaint="Tired", history_of_present_illness="Tired for months.",
                final_diagnosis="Anaemia of chronic disease",
                test_results={label: "normal" for label in [*labels, "Imaging > MRI Brain > Findings"]})
    item = next(i for i in build_case_rubric(case).items if i.criterion.startswith(f"Orders the appropriate test: "
                                                                                    f"{groups[0][0]}"))
    credit = {"electrolytes": ["U&Es", "BMP", "electrolytes"], "blood count": ["CBC", "FBC"]}[panel]
    for order in credit:
        results = RuleGrader().grade_sync(dialogue(case, [f"REQUEST TEST: {order}"]), [item])
        assert results[0].met, (order, results[0].explanation)
    results = RuleGrader().grade_sync(dialogue(case, ["REQUEST TEST: Chest X-ray"]), [item])
    assert not results[0].met


@pytest.mark.parametrize(("order", "label"), [
    ("JAK2", "Genetic Testing > Findings"),  # a member fills a broad name
    ("anti-desmoglein antibodies", "Blood Tests > Autoantibodies"),
    ("Stool O&P", "Routine Stool Examination > Findings"),
    ("CA-125", "Tumour markers > Result"),
    ("left wrist aspirate for cell count", "Joint Aspiration Left Wrist > Analysis > WBC"),  # a part of the site
    ("stool culture", "Stool Test > Appearance"),  # a property of the test is the test
    ("U&Es", "Chemistry Panel > Electrolytes"),  # the smaller panel a label names, not the whole panel
    ("excisional biopsy of the cervical LN", "Biopsy > Cervical Lymph Node > Findings"),
])
def test_a_specific_order_names_the_broad_or_nested_label_that_holds_it(order: str, label: str) -> None:
    assert clinical.resolve(order, [label, "Imaging > Chest X-ray"]).named == (label,)


@pytest.mark.parametrize(("order", "label"), [
    ("autoimmune screen", "Blood Tests > Anti-desmoglein antibodies"),  # a broad order never names a member
    ("genetic testing", "Blood Tests > JAK2 mutation"),
    ("U&Es", "Chemistry Panel > Liver Function Tests"),
])
def test_a_broad_order_does_not_name_a_specific_test(order: str, label: str) -> None:
    assert clinical.resolve(order, [label]).named == ()


# --------------------------------------------------------------------------- the data files themselves
def test_the_language_data_refuses_a_duplicate_id_and_an_unknown_generic_concept(tmp_path) -> None:  # noqa: ANN001
    shipped = yaml.safe_load((Path(data.__file__).parent / "language.yaml").read_text(encoding="utf-8"))
    assert data._read(Path(data.__file__).parent / "language.yaml", data.LanguageData).concepts
    twice = {**shipped, "concepts": [*shipped["concepts"], {"id": shipped["concepts"][0]["id"], "phrases": ["x"]}]}
    unknown = {**shipped, "generic": [*shipped.get("generic", []), "no-such-concept"]}
    alone = {**shipped, "alone": {**shipped.get("alone", {}), "food": ["no-such-concept"]}}
    for bad, message in ((twice, "duplicate ids"), (unknown, "unknown concept ids ['no-such-concept']"),
                         (alone, "alone: unknown concept ids ['no-such-concept']")):
        path = tmp_path / "language.yaml"
        path.write_text(yaml.safe_dump(bad), encoding="utf-8")
        with pytest.raises(ValueError, match=re.escape(message)) as error:
            data._read(path, data.LanguageData)
        assert str(path) in str(error.value)  # the error names the file


# --------------------------------------------------------------------------- what an imported case's rubric asks
def _sparse(**fields: object) -> Case:
    base: dict[str, object] = {
        "id": "agentclinic-x", "chief_complaint": "Pearly papules", "history_of_present_illness": "Two weeks.",
        "secondary_symptoms": ["Itching", "No fever", "Spreading to the arm"], "source": "agentclinic",
        "test_results": {"Skin Biopsy > Findings": "molluscum bodies", "Complete Blood Count > WBC": "7.1"},
        "final_diagnosis": "Molluscum contagiosum"}
    return Case.model_validate({**base, **fields})


def test_an_imported_case_asks_its_symptoms_and_onset_less_what_the_review_leaves_out() -> None:
    case = _sparse()
    assert clinical.case_questions(case) == ["Ask about itching", "Ask about fever", "Ask about spreading to the arm",
                                             "Ask when the symptoms started"]
    assert clinical.case_tests(case) == ["Skin Biopsy", "Complete Blood Count"]
    reviewed = _sparse(rubric_leaves_out=["No fever", "onset", "Complete Blood Count"])
    assert clinical.case_questions(reviewed) == ["Ask about itching", "Ask about spreading to the arm"]
    assert clinical.case_tests(reviewed) == ["Skin Biopsy"]
    # left out of what is asked for, the blood count is still indicated: ordering it is never penalised
    rubric = build_case_rubric(reviewed)
    assert [i.criterion for i in rubric.items if i.criterion.startswith("Orders the appropriate")] == [
        "Orders the appropriate test: Skin Biopsy."]
    grades = RuleGrader().grade_sync(dialogue(reviewed, ["REQUEST TEST: FBC, skin biopsy", "DIAGNOSIS: Molluscum"]),
                                     rubric.items)
    assert not next(g for g in grades if g.criterion.startswith("Orders tests the presentation")).met
    # the onset question stays where it is all the history left (a screening finding with no symptoms recorded)
    assert clinical.case_questions(_sparse(secondary_symptoms=[], rubric_leaves_out=["onset"])) == [
        "Ask when the symptoms started"]
    # a case with key questions of its own keeps them
    own = _sparse(key_questions=["Any contacts with the same rash?"], rubric_leaves_out=["onset"])
    assert clinical.case_questions(own) == ["Any contacts with the same rash?"]
