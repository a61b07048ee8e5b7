"""The clinical-language layer: what a doctor asked about, ordered or diagnosed, in any wording.

One place decides it for the simulated patient (which facts a question asks for), the measurement
responder (which results an order names) and the rule grader (which items a consultation meets), so
the environment and the reward never disagree about what the doctor did. A clinician who asks "any
burning when you pee?" has asked about urinary symptoms; one who orders a CBC has ordered the WBC,
the haemoglobin and the platelets.

The knowledge is data in this package, written by the project and tested
(tests/verifier/test_clinical.py):

* ``tests.yaml``: tests with their abbreviations and US/UK names, panels with their parts;
  methods (CT, MRI, biopsy, culture, examination, ...) that apply to sites; body sites and specimens.
* ``language.yaml``: history concepts with lay words and body-part forms; question intents
  (onset, site, character, ...) as patterns, with the patterns of a fact that answers them.
* ``diagnoses.yaml``: diagnosis names with their abbreviations and usual short forms.

Text is compared as folded words (``verifier.diagnosis.words``: accents, British/American spelling,
plurals); a phrase matches where its words appear contiguously, the longest first. Words outside
every phrase fall back to a light stemmer.

The package: ``data`` (the files, their schemas, phrase matching, what a text's words are), ``language``
(what a question asks about), ``orders`` (what an order names: the one resolver) and ``diagnoses`` (the
names a condition goes by). Callers use ``from verifier import clinical`` and the names below.
"""

from verifier.clinical.data import (
    DIAGNOSES_FILE,
    EXAM,
    INTENT,
    LANGUAGE_FILE,
    METHOD,
    SITE,
    STOPWORDS,
    TEST,
    TESTS_FILE,
    DiagnosesData,
    LanguageData,
    TestsData,
    folded,
    label,
    stem,
)
from verifier.clinical.diagnoses import (
    classes,
    condition_lines,
    considered_names,
    diagnosis_names,
    manifestations,
    mentions,
    spell_out,
    workup_tests,
)
from verifier.clinical.language import (
    answers,
    asked,
    case_questions,
    compose,
    concepts,
    found_by,
    intents,
    is_condition,
    is_generic,
    is_key,
    is_sign,
    is_sign_key,
    system_symptoms,
    term_keys,
    terms,
    told_as,
    topic,
    topics,
)
from verifier.clinical.orders import (
    Order,
    Resolution,
    carry_method,
    case_tests,
    core_of,
    is_exam,
    is_routine,
    names,
    panel_key,
    panel_of,
    parts_of,
    read_order,
    resolve,
    test_groups,
    touches,
)

__all__ = [
    "DIAGNOSES_FILE", "EXAM", "INTENT", "LANGUAGE_FILE", "METHOD", "SITE", "STOPWORDS", "TEST", "TESTS_FILE",
    "DiagnosesData", "LanguageData", "Order", "Resolution", "TestsData", "answers", "asked", "carry_method", "case_questions", "case_tests", "classes", "compose", "concepts",
    "condition_lines", "considered_names", "diagnosis_names", "folded", "found_by", "intents", "is_condition", "is_exam", "is_generic", "is_key", "is_routine", "is_sign", "is_sign_key",
    "label", "manifestations", "mentions", "names", "panel_key", "panel_of", "parts_of", "core_of", "read_order", "resolve", "spell_out", "stem", "term_keys", "terms",
    "system_symptoms", "test_groups", "told_as", "topic", "topics", "touches", "workup_tests",
]
