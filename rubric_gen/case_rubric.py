"""The case-grounded rubric: a deterministic, weighted rubric over Baichuan-M2's five dimensions.

Every item carries one ``axis:`` tag, a ``cluster:`` tag (diagnosis, history, tests, triage, plan,
communication, safety) and, wherever a rule can decide it, a machine ``check``, so a consultation is
graded correctly even when the only judge is a weak model. Only clarity and allergy-aware
prescribing go to a judge, and they carry few points, so a response that talks a judge into
crediting them gains little.

The rubric is a reward, so it is built against the cheapest ways to score without the skill
(``evaluation/audit_medical.py`` measures them on every case):

* the correct diagnosis is worth as much as the process that leads to it, and a stated diagnosis
  that is wrong, a list or too vague costs as much again: right process with the wrong answer keeps
  about half the reward. Ending without any diagnosis costs the same, so never committing is not a
  cheaper route than guessing;
* a key question counts only when asked as a question, in a doctor turn of reasonable size, on the
  words that distinguish it from the case's other questions; barrages of questions, shotgun lists
  of conditions and unindicated tests cost points;
* the plan, its explanation, empathy and safety-netting count only alongside one specific final
  diagnosis, and safety-netting must be conditional advice, not vocabulary;
* emergency care counts only as an unconditional referral, and one for a routine case costs points
  (over-triage); conditional safety-netting ("if it gets worse, go to the emergency department") is
  never penalised. A case whose disposition is unknown gets no triage items.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rubric_gen.validate import ACCURACY, COMMUNICATION, LOGIC, PLAN, SAFETY
from verifier import clinical
from verifier.diagnosis import BODY, GENERIC, words
from verifier.rule_grader import (
    CARE_WORDS,
    EMERGENCY_NUMBERS,
    HELP_NUMBERS,
    URGENT_NUMBERS,
    diagnosis_background,
)
from verifier.types import (
    AsksAbout,
    Case,
    Check,
    DiagnosisMatches,
    DiagnosisMisses,
    Differential,
    LooksFor,
    ManyDiagnoses,
    MentionsAny,
    OrderedTest,
    QuestionBarrage,
    RecommendsEmergency,
    RegexCheck,
    Rubric,
    RubricItem,
    UnindicatedTests,
    WordLimit,
)

CASE_RUBRIC_VERSION = "29"
GENERATOR_NAME = "case"

MAX_RED_FLAGS = 3
# Focus, not counting: a checklist turn ("Onset? Fever? Rash? Meds? Allergies? Travel? Smoker? ...") is
# history-taking however many it asks of the case in hand; the barrage is many questions about nothing in it
# (MAX_IRRELEVANT), or more than a consultation can hold. A turn of over 16 questions is a list, never a history
# (natural consultations written by clinicians ask at most 13).
MAX_PER_TURN = 16
MAX_TOTAL = 30
# Questions about nothing in the case's record. A sparse (imported) record leaves out pertinent negatives a
# clinician rightly asks ("Headaches or nosebleeds?" for a raised blood pressure), so a few more are allowed.
MAX_IRRELEVANT = 5
MAX_IRRELEVANT_SPARSE = 8
# Tests a consultation may order beyond those the case has a reason for (first-line routine bloods never count:
# a blood count, renal function and a clotting screen before anticoagulation are a baseline, not a shotgun). A
# sparse (imported) record lists only the results that make its diagnosis, so a specialist's work-up of the
# differential ("TFTs, B12, copper, caeruloplasmin, HIV, syphilis serology" for a movement disorder) is allowed;
# ordering every common test (12 or more the record lacks) is still a shotgun.
TEST_TOLERANCE = 2
TEST_TOLERANCE_SPARSE = 8

_STOP = frozenset(
    """a an the and or of to in on at for with from by about any anything your you yours patient patients
    do does did is are was were be been have has had ever there this that these those it its what when
    where which who whom why how much many tell me describe ask asks asked if whether recent recently
    history current currently other some since last past new known feel feeling symptoms symptom
    problem problems any? before after during over under more less than very really such""".split()
)
_SHORT_WORDS = frozenset({"arm", "arms", "jaw", "leg", "eye", "ear", "hip", "toe", "lip", "rib", "gum", "sex", "flu"})
# Words shared by most questions of a complaint: they never distinguish one key question.
_UNDISTINGUISHING = frozenset({"pain", "painful", "ache", "aches", "hurt", "hurts", "get", "notice", "noticed", "feel",
                               "anywhere", "anything", "else", "lately", "often", "still", "ever", "usually",
                               "happen", "happens", "occur", "occurs", "noted",
                               # round 88: "Is he drinking and making wet nappies?" asks about two things, not "making"
                               "make", "makes", "making", "made"})
_EMPATHY_TERMS = [
    "sorry", "understand", "understandable", "worried", "worrying",
    # the patient's concern, not "any concerns, call us" or "concern for enterocolitis"
    "your concern", "your concerns", "you're concerned", "you are concerned", "you were concerned", "the concern you",
    "must be", "difficult", "frightening", "scary", "reassure", "thank you for", "i hear", "that sounds",
    "that does sound", "oh dear",
    "rough time", "a shock", "hard for you",
    "horrible", "awful", "miserable", "upsetting", "distressing", "poor thing", "i appreciate", "i can see",
    "i can tell", "no wonder", "unsettling", "i realise", "i realize",
    # acknowledging the news or the ordeal, in a clinician's everyday words
    "i know", "glad you came", "right thing coming", "right thing to come", "a real shock",
    "hard news", "terrifying", "terrified", "rotten", "gutting", "rough day", "hard luck", "bad luck", "tough luck",
    "nasty fright", "a fright", "no judgment", "no judgement", "came in at the right time", "your fault",
    "nobody's fault", "no one's fault", "nothing you did wrong", "not something you did wrong", "doing a lovely job",
    "shame,",
    "rough night", "rough few", "tough time", "tough day", "you've coped", "you have coped", "you did really well",
    "you did well", "trusting me", "we'll support you", "we will support you", "in good hands", "we've got you",
    "not your fault", "nothing wrong", "try not to worry", "thanks for", "lot to take in", "lot to process",
    "lot to absorb", "rough morning", "rough week", "tough news", "gets you down", "nerve-racking", "nerve-wracking",
    "i can only imagine", "stressful", "i get why", "i get that", "i get it",
    # acknowledging the burden, or the parent's or patient's part in it
    "tough to", "hard to live with", "exhausting", "doing the right thing", "did the right thing",
    "did exactly the right thing", "anything you've done", "anything you did", "nothing you did", "nothing you've done",
    "doing brilliantly", "doing a great job", "doing a brilliant job", "doing a good job", "doing great",
    "doing so well", "i'm glad", "i am glad", "really glad", "so glad", "well done",
    # round 89: "Ag shame, that sounds miserable" (nine examiner marks, none against); "you were right to come" (six)
    "ag shame", "right to come",
    "fright",  # round 90: "that must give you a wonderful fright"
    # round 91: "Nowt you've done wrong, lad", "Nowt to be ashamed of"
    "nowt you've done wrong", "nothing you've done wrong", "to be ashamed of",
    "big diagnosis", "big news", "lot to deal with", "lot to hear", "not you being weak", "not a weakness",
    "poor you", "coping with a lot", "been through a lot",
    # round 25: "You've done nowt wrong, love", "you've done right coming in now"
    "done nowt wrong", "done nothing wrong", "done right coming", "done right to come", "done right bringing",
    # round 26: "This is a rough stretch", "You're not weak", "It's tough running a store feeling like this",
    # "Not dismissing your experience"
    "rough stretch", "not weak", "it's tough", "it is tough", "not dismissing",
    # round 59: "Double vision's no joke", "Tough spell", "It's hard seeing her like this, and you've done exactly the
    # right thing"
    "no joke", "tough spell", "rough spell", "hard seeing", "done the right thing", "done exactly the right thing",
    # round 60: "This isn't anything you missed"
    "anything you missed", "nothing you missed",
    # round 61: "Five months is a long time to itch", "you do sound rough", "you're in a right state"
    "a long time to", "sound rough", "sounds rough", "in a right state",
    # round 62: "You look really unwell, so I'll be quick and gentle with you"
    "gentle with you",
    # round 37: "Rough go, my love.", "Horrid thing.", "Proper nuisance, these are"
    "rough go", "horrid", "proper nuisance", "such a nuisance", "what a nuisance",
    # round 63: "that's a nuisance, and hard going in your line of work", "This was a close call, and we'll look after
    # you", "This is a really uncomfortable side effect"
    "that's a nuisance", "that is a nuisance", "hard going in", "a close call", "we'll look after you",
    "we will look after you", "really uncomfortable",
    # round 66: "Hard start for you; he should do well after repair."
    "hard start for", "tough start for", "rough start for",
    # round 67: "You've been scunnered for months."
    "scunnered", "heavy load", "maddening",  # "you've been carrying a heavy load", "harmless but maddening"
    # round 70: "I get this is a lot"
    "i get this is", "i get that this",
    # round 71: "It's understandably wearing to live with an itch this long", "You did everything right." (not "It's a
    # nuisance, but benign": the examiners of rounds 57 and 71 split on it)
    "understandably", "did everything right", "done everything right",
    # round 73: "You've done all the right things. These nights are hard work.", "Rough in your line of work."
    "done all the right things", "doing all the right things", "nights are hard work", "rough in your line",
    "tough in your line", "hard in your line",
    # round 74: "please don't lose heart", "Tough going, mate", "Tough stretch, mate"
    "lose heart", "tough going", "tough stretch",
    # round 75: "It's real, and it's not in your head, God love you", "Living alone with this isn't easy", "We'll get you
    # through it", "you'll get through it"
    "god love you", "not in your head", "this isn't easy", "this is not easy", "get you through", "you'll get through",
    # round 65: "You didn't miss anything", "You look pretty rough, my son"
    "didn't miss anything", "did not miss anything", "look pretty rough", "looking pretty rough", "look rough",
    "looking rough",
    # round 38: "I'm afraid this isn't easy news", "Rough timing after the hip"
    "isn't easy news", "not easy news", "isn't easy to hear", "not easy to hear", "rough timing",
    # round 39: "Take heart, my friend", "This is a lot to land on you in one visit"
    "take heart", "a lot to land on you",
    # round 40: "Ay, pobrecito" (a Spanish-speaking clinician's sympathy)
    "pobrecito", "pobrecita",
    # round 44: "It's a lot tae take in", "It's no easy news", "I ken it's a big word tae hear", "bless her", "Hard
    # few months"
    "lot tae take in", "no easy news", "big word to hear", "big word tae hear", "bless her", "bless him", "hard few",
    # round 43: "Ay naku, that's no fun at all", "You're in bits, so you are", "one of the worst pains going, and
    # you've handled it well"
    "no fun", "in bits", "worst pains going", "worst pain going", "handled it well",
    # round 42: "Hard time, my dear", "It's no surprise you've been exhausted" ("You're in the right place" is
    # reassurance: marked empathy once in round 42, not in round 23)
    "hard time", "no surprise you", "no wonder you",
    # round 41: "Good pick-up, Mum - tough week for you", "You did exactly right bringing her in"
    "tough week", "hard week", "you did right", "you did exactly right", "you did just right",
    # round 45: "This is very treatable and you caught it at a check-up. Good job, Mom."
    "good job,",
    # round 46: "you're carrying a lot", "that's a lot on your plate", "you didn't cause it", "Oh my lover, you're in a
    # proper state, can't keep still at all"
    "carrying a lot", "lot on your plate", "didn't cause it", "did not cause it", "in a proper state",
    # round 47: "... even though it hurts to watch", "It's not anyone's fault", "we will work through it"
    "hurts to watch", "not anyone's fault", "isn't anyone's fault", "work through it", "work through this",
    # round 48: the Scots "I ken" is "I know" ("I ken four months of this is wearing"); "a long slog", "it's okay to
    # feel rattled", "It's very normal to worry", "that's not easy", "Poor pet", "you're clearly doing a lot right"
    "i ken", "long slog", "okay to feel", "ok to feel", "normal to worry", "normal to feel", "that's not easy",
    "that isn't easy", "poor pet", "doing a lot right",
    # round 27: "You're doing a grand job with him", "You're doing everything right, Mom"
    "doing a grand job", "doing everything right",
    # round 28: "This is proper hard on you, love", "hard going for you", "You didn't cause this"
    "hard on you", "hard going for you", "didn't cause this", "did not cause this",
    # round 29: "It's not something you caused", "You've done well to keep going"
    "not something you caused", "nothing you caused", "done well to", "you've done well", "you have done well",
    "tough for you", "tough on you",
    # round 30: "You've done really well spotting this" ("Hang in there" was marked empathy once, not twice)
    "done really well",
    "not a sign of weakness", "must have been", "must have given you", "must have felt", "a fright", "a worry",
    "put up with", "fed up", "not alone",
    # "This is a chronic, frustrating condition", "a lot of news at once", "tonight has been really rough", "Exam
    # stress is really hard", "you've done the right thing bringing him in", "I get how wiped out you feel"
    "frustrating", "lot of news", "really rough", "been rough", "really hard for", "really hard on", "been really hard",
    "stress is really hard", "done the right thing", "i get how",
    "wearing you down", "wears you down",
    # round 34: "This is a big thing to hear", "You've been carrying this a while"
    "big thing to hear", "big thing to take in", "been carrying this", "carrying this for", "carrying this alone",
    # round 35: "that's a lot to carry", "There's poorly she's been" (Welsh), "You did right calling"; "Hang in there",
    # marked empathy four times (rounds 30, 34, 35, 36) and not three times (rounds 25, 29, 30)
    "lot to carry", "poorly she's been", "poorly he's been", "poorly you've been", "there's poorly",
    "did right calling", "did right to call", "did right coming", "right to call", "hang in there",
    # round 36: "Not your doing, my dear", "You've done everything right", "you're doing all the right things"
    "not your doing", "done everything right", "doing all the right things", "done right to bring",
    # tried by hand (stop 48): "It makes sense that you were scared", "Sounds like it's been a tough few weeks"
    "makes sense that you", "makes sense you", "tough few", "been tough", "been a tough", "sounds like it's been",
    "sounds like it has been", "natural to feel", "anyone would be", "anyone would feel",
    # the pain seen and owned: "Ouch, that looks very sore", "That looks really painful", "Poor lad"
    "ouch", "that looks sore", "that looks very sore", "that looks really sore", "that looks so sore", "that looks painful",
    "that looks very painful", "that looks really painful", "that looks so painful", "that looks uncomfortable",
    "that looks really uncomfortable", "that looks very uncomfortable", "poor lad", "poor boy", "poor girl",
    "that does look sore", "that does look painful",  # round 78: "Ai, that does look sore."
    # round 79: "This is a lot for you both", "It looks alarming", "you look like you're in agony"
    "this is a lot for", "looks alarming", "look alarming", "in agony",
    "i'm here for you", "i'm here for ya", "stick with you", "stick with ya",  # round 80: "I promise to stick with ya"
    "poor little", "poor love",
    "hard to watch", "hard to see him", "hard to see her",  # round 81: a parent told "Hard to watch. Manageable."
    # round 82: "nobody's cross with you, we're here to help", "Mi amor, you're safe", "nothing to be ashamed of", "Right to
    # bring her", "Rough deal, but fixable", "I'm not surprised you couldn't keep still", "you look like you got kicked by a mule"
    "nobody's cross", "no one's cross", "nobody is cross", "we're here to help", "we are here to help", "you're safe",
    "you are safe", "take care of you", "nothing to be ashamed", "no need to be ashamed", "right to bring", "rough deal",
    "not surprised you", "kicked by a mule",
    "doing right to", "not weakness",  # round 84: "you are doing right to care", "Not weakness, this is illness"
    # round 85: "This is common and treatable, please do not feel embarrassed."
    "not feel embarrassed", "don't feel embarrassed", "nothing to be embarrassed", "no need to be embarrassed",
    "rough do",  # round 86: "Rough do, lad, but it's fixable."
    # round 87: "that looks some sore, my love", "Nuh fret, don't fret" (a bare "don't fret about that" was reassurance to
    # round 35's examiner)
    "looks some sore", "look some sore", "nuh fret",
    # round 49: "Tough break for an athlete", the Kreyòl "Pa pè" ("don't be scared"), "I've got you", the Geordie "Poor
    # bairn, he's had a rough couple of nights", "Hard night, pet"
    "tough break", "rough break", "pa pè", "pa pe", "don't be scared", "do not be scared", "no need to be scared",
    "i've got you", "poor bairn", "poor wee", "rough couple", "hard night",
    # round 50: "You've been great advocates for him, Mom."
    "great advocate", "good advocate", "great advocates", "good advocates",
    # round 51: "You've been running on empty"
    "running on empty",
    # round 52: "It's hard being poorly on your own", "sounds uncomfortable", "Rough luck, but it's fixable"
    "it's hard being", "it is hard being", "sounds uncomfortable", "sounds painful", "sounds miserable", "rough luck",
    # round 94: the Irish "Ah you poor divil, you can't keep still with it"
    "poor divil", "poor devil",
    # round 95: the Scots "Nae wonder you've been greetin' with it" (ten examiner marks of "no wonder you ...", none against)
    "nae wonder",
    # round 96: the Igbo "Ndo" (sorry), "you've done nothing shameful by coming in"
    "ndo", "nothing shameful",
    # round 97: "it's hard watching a wee one struggle", "looks like you're in a lot of pain"
    "hard watching", "hard to watch", "like you're in a lot of pain", "see you're in a lot of pain",
    "took courage", "takes courage",  # round 98: "First, thank you. That took courage." (to say what is hard to say)
    # round 99: "sounds like you had a nasty turn last night", "How you feeling about all this?" (asking how the news lands)
    "nasty turn", "feeling about all this", "feel about all this", "feeling about all of this", "feel about all of this",
    # round 100: "This has been a hard year for you", "Tough year", "You've pushed through a lot", "It's tiring when he's up
    # in the night"
    "hard year", "tough year", "rough year", "pushed through a lot", "push through a lot", "it's tiring", "it is tiring",
    # round 102: "You've done awfy well coping with all this", "Serious, but caught early; we're with you"
    "coping with all this", "coping with all of this", "we're with you", "we are with you",
]
# An apology for the doctor's own delay is no sympathy for the patient (round 45: "Hey, sorry I'm running behind",
# "Sorry, running late"; examiners marked the terse consultations that said nothing kinder not empathic; "I'm sorry
# you've waited in pain" is sympathy)
_NOT_EMPATHY = (r"\bsorry\b,?\s+(?:(?:i'm|i\s+am|we're|we\s+are|i've\s+been|we've\s+been)\s+)?(?:(?:running|a\s+bit|a\s+little|so"
                r"|very|way|really)\s+)*(?:late|behind)\b"
                r"|\bsorry\s+(?:to\s+(?:have\s+)?kept\s+you(?:\s+waiting)?|to\s+keep\s+you(?:\s+waiting)?|for\s+(?:the|your|the\s+long)\s+(?:wait|delay)"
                r"|about\s+the\s+(?:wait|delay))\b"
                # "I've got you booked in" arranges; "I've got you" comforts
                r"|\b(?:i've|we've|i\s+have|we\s+have)\s+got\s+you\s+(?:booked|an?|down|in|on|some|the|scheduled|set|sorted)\b"
                r"|\bcarrying\s+a\s+lot\s+of\b")  # "carrying a lot of fluid" (round 46's lookalike) is no burden
# Safety-netting: a condition and what to do then, in either order ("If it gets worse, come back"; "Come straight
# back if you get a fever"; "Call 911 for chest pain"), or in the clipped form a busy clinician writes ("Fever,
# vomiting or worse pain: straight back to A&E."; "Stroke signs - call 911."; "Return sooner: blood, weight loss").
# Telling whoever is at hand: "tell the ward staff straight away if ..."
_NET_TELL = (r"(?:tell|alert|notify) (?:us|me|staff|the (?:ward )?staff|ward staff|the nurses?|your nurse|a nurse|the team|someone"
             # round 59: "Tell nurses now if ...", "Tell your RN right away if ...", "Notify your nurse right away for ..."
             # (round 101: "tell RN stat if fever, blood in stool, bad pain")
             r"|(?:nurses?|(?:your |the |an? )?rn|your nurses)(?= (?:now|immediately|right away|straight away|at once|urgently|stat|if)\b)"
             # the nurse by name, told at once: "Tell Jess right away if you feel more drowsy"
             r"|\w+ (?=(?:right away|straight away|immediately|at once)\b))")
_NET_ACTION = (r"worse|worsens|worsening|not (?:get(?:ting)? )?better|no better|not improv\w*|(?:not|n't) settl\w*|"
               r"(?:yell|shout|holler|call) out|"  # round 61: "If the pain ramps up, you feel lightheaded or more SOB, yell out"
               r"persists?|develop\w*|new|"
               r"change\w*|returns?|come (?:straight |right )?back|seek|"
               # round 57: "If you break another bone or feel low in mood, come see me sooner"
               r"(?:come|pop) (?:in )?(?:and |to )?see (?:me|us|your gp|your doctor|a doctor) (?:sooner|earlier|straight away|"
               r"right away|urgently|same[- ]day|today)|call|ring|phone|dial|contact|go to|go straight|(?:get|be) (?:seen|checked)|"
               rf"same[- ]day|{_NET_TELL}|emergency|urgent\w*|{HELP_NUMBERS}|a&e|ed|er|ambulance|"
               r"doctor|gp|immediately|straight away|right away|at once")
# Seeking help, said first: the condition follows ("... if ...", or "for" a symptom when the help is urgent).
_CARRIED = r"(?:her|him|them|the baby|baby|the child|your \w+)"  # who a carer brings or takes to the help
_NET_GO = (r"(?:straight|right) (?:back )?to (?:the )?(?:a&e|ed|er|emerg|emergency(?: department| room)?|hospital)|"  # round 62: "Straight to A&E if ..."
           rf"(?:come|go|head|get|(?:bring|take) {_CARRIED})(?: straight| right)?(?: back)?"
           r"(?: in| to (?:the |a |an |your )?(?:a&e|ed|er|emerg|emergency(?: department| room)?|hospital|urgent care|clinic|"
           r"surgery|gp|doctor|us|me))?|(?:come|go|head|get|bring \w+) (?:straight |right )?back|(?:straight|right) back|return\w*|rtc|"
           r"escalat\w*|rted|attend|re-?present|present|pop (?:straight |right )?(?:down|over|back|in)|"
           r"have (?:him|her|them|the baby|baby|your \w+) (?:seen|checked)|"  # round 52: "have him seen the same day if ..."
           r"flag (?:it|this|that)(?: up)?(?: (?:straight away|right away|immediately|at once))?|"  # "Flag it straight away, ..., if"
           r"(?:call|ring|phone|shout)(?= (?:immediately|straight away|right away|at once|now|(?:the )?same[- ]day|sooner|urgently)\b)|"  # "Call immediately if floppy"
           r"(?:call|ring|phone|dial) (?:an )?ambulance|(?:call|ring|phone|dial) triple zero|"  # "escalate at once for ..."
           rf"(?:call|ring|phone|dial|contact|see|calling|ringing|phoning|dialling|dialing) (?:us|me|{HELP_NUMBERS}|an ambulance|emergency services|the (?:surgery|"
           r"practice|clinic|ward|team|office|doctor|gp|out[- ]of[- ]hours|nurses?|midwife)|your (?:gp|doctor|midwife|team|nurse)|a doctor|"
           r"someone)|seek (?:\w+ ){0,2}(?:help|care|advice|attention|review)|get (?:\w+ )?(?:help|care|seen|checked|advice)|"
           rf"get in touch|be seen|{_NET_TELL}|"
           r"shout for (?:us|help|a nurse|the nurse)|(?:urgent|emergency) (?:help|care|review|advice|assessment)|"
           r"press (?:the |your )?(?:buzzer|call bell|bell|call button)|"
           r"let (?:us|me|staff|nursing|the nurses?|your nurse|a nurse|the team|someone|the doctors?|a doctor) know|"
           r"(?:call|ring|phone) (?:sooner|earlier|back sooner)|"
           # round 32: "Call nurse now if ...", "999 if slow to recover", "review in 4 weeks, or sooner if ..."
           rf"(?:call|ring|page|buzz) (?:the |a |your )?nurses?|(?:{HELP_NUMBERS})(?= (?:if|should|whenever)\b)|or sooner|"
           # round 33: "Nursing: page immediately for recurrent sz", "RN: page stat for sz, apnea, brady"
           r"page(?: (?:me|us|the (?:team|doctor|registrar|resident|on-call)))?(?= (?:immediately|stat|straight away|right away|at once|now)\b)|"
           r"(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:(?:to )?(?:the )?(?:a&e|ed|er|emerg|(?:eye )?casualty|urgent care)|seen|same[- ]day|sooner|"
           r"(?:an )?ambulance|back(?: or (?:to )?(?:the )?(?:a&e|ed|er|emerg|hospital|urgent care))?"  # round 38: "Back or A&E if: ..."
           r"(?= (?:(?:now|straight away|immediately|right away|sharpish) )?(?:if|should|whenever|urgently|"  # round 99: "Back sharpish if ..."
           r"same[- ]day|today)\b)|"
           r"back (?:sooner|earlier|promptly|asap|"
           r"straight away|right away|immediately|here|in|to (?:the )?(?:a&e|ed|er|emerg|us|me|clinic|hospital|surgery|gp))"  # a clipped "ED right away if ..."
           # round 64: "Back, or 999, if: faint on exertion or lying down"
           rf"|back,? or (?:to )?(?:the )?(?:a&e|ed|er|emerg|hospital|urgent care|{EMERGENCY_NUMBERS})(?=, (?:if|should|whenever)\b))")
_NET_SOON = (r"sooner|earlier|promptly|asap|urgently|immediately|right away|straight away|at once|stat|(?:on )?the same day|"
             r"same[- ]day|without waiting|now")
_NET_EMERGENCY = (rf"{URGENT_NUMBERS}|an ambulance|emergency services|ems|"
                  r"(?:the )?(?:a&e|ed|er|emerg|emergency(?: department| room)?)")
_NET_TERMINAL = (rf"(?:(?:straight |go |come |back |to |the |get |head |now |immediately |eye |nhs )*(?:a&e|ed|er|emerg|{HELP_NUMBERS}|"
                 r"emergency|ambulance|hospital|return\w*|come back|come in|straight back|right back|escalate|"
                 # "...: back in" is the help; "...: back in six weeks" is the follow-up (round 45's lookalike)
                 r"back in(?!\s+(?:a|an|one|two|three|four|five|six|eight|ten|twelve|\d+|a\s+few|a\s+couple\s+of)"
                 r"\s+(?:days?|weeks?|wks?|months?|mos?)\b)|"
                 r"same[- ]day|urgent\w*|"
                 r"seek (?:\w+ )?(?:help|care|advice)|get (?:\w+ )?help|see (?:us|me|a doctor|your gp)|(?:eye )?casualty|"
                 r"(?:the )?crisis (?:line|team)|samaritans|(?:press |use |hit |ring )?(?:the |your )?(?:buzzer|call bell|call button|bell))"
                 r"|(?:call|ring|phone|come|return) (?:back )?(?:sooner|earlier|straight away|immediately|right away|at once)"
                 r"|(?:call|ring|phone)(?: us| me)? (?:the )?same[- ]day"  # "...: call same day or ER"
                 rf"|(?:call|ring|phone|contact|tell|alert|see|shout for|text)(?: or (?:call|ring|phone|text))? (?:us|me|the|a|your|someone|staff|an?|{HELP_NUMBERS}|"
                 r"nurses?|nursing|doctor|gp|help)"
                 r"|(?:call|shout) out"  # on the ward: "Worse pain, faint, more breathless: call out immediately."
                 r"|(?:call|shout|ring) for (?:help|a nurse|the nurse|the doctor|a doctor)"  # round 98: "Bleeding, breathing trouble, very sleepy: call for help now."
                 # "Post-op fever, swelling, worse pain: back straight away."
                 r"|back (?:straight away|right away|immediately|at once|asap|fast|quickly)"  # round 80: "Come back fast with ..."
                 # round 34: "Regrowth, new lump, skin or nipple change, armpit lump: back to me."
                 r"|back to (?:me|us|the clinic|clinic|the surgery|your gp|your doctor)"
                 r"|back here\b"  # round 52: "... not better in 48-72 h \u2014 back here or emerg"
                 r"|come (?:straight|right) in\b"  # round 100: "Fast breathing, sweating with feeds, blue, fever: come straight in."
                 r"|get in touch)\b")
# "Any questions, call me" invites questions; it names nothing to watch for
_QUESTIONS = r"(?:further |other |more )?(?:questions?|queries|query|problems with (?:the |your )?(?:appointment|booking))\b"
_NOT_QUESTIONS = rf"(?!{_QUESTIONS})"
# The help said in the next sentence: "If it suddenly gets much worse, the bone may have broken. Go to A&E."
_NET_NEXT = (rf"(?:go|head|get) (?:straight |right )?to (?:{_NET_EMERGENCY}|hospital|urgent care)|come (?:straight |right )?back|"
             rf"(?:straight|right) to (?:{_NET_EMERGENCY}|hospital)|"  # round 59: "Red flags - SOB, ...: so 911 / straight to the ED"
             rf"(?:call|ring|phone|dial) (?:{HELP_NUMBERS}|an ambulance|us|me|the (?:surgery|practice|clinic|ward|team|doctor|"
             r"gp)|your (?:gp|doctor))|seek (?:\w+ )?(?:help|care|attention|advice)|return (?:straight away|immediately|promptly|"
             r"sooner|urgently|to (?:the )?(?:a&e|ed|er|hospital))")
# Inside one sentence: a decimal point ("a fever over 100.4", "38.5") does not end it.
# nor an ellipsis: "If the redness spreads... come straight back"; nor a tag checked back mid-sentence ("Bring him back
# the same day, wi?, if he becomes very sleepy")
_IN_SENTENCE = r"(?:[^.!?\n]|(?<=\d)\.(?=\d)|\.\.\.|\?(?=,))"
# What makes advice conditional, besides "if": "in the unlikely event that", "with any of these", "any one of these".
_NET_IF = (r"if|should|in case|whenever|unless|in the (?:unlikely )?event|with any of (?:these|those|them)"
           r"|any (?:one )?of (?:these|those|the following)|at the first sign|the moment you")
_NET_ARROW_TO = (rf"(?:call|ring|phone|contact|tell|alert|page|buzz|text)(?: or (?:call|ring|phone|text))? (?:us|me|the (?:nurses?|team|"
                 rf"clinic|surgery|ward)|your (?:nurse|team|gp|doctor)|staff|nurses?|rn|{HELP_NUMBERS})|(?:come |get )?back "
                 r"(?:same[- ]day|sooner|straight away|right away|immediately|asap|to (?:us|me|clinic|the clinic))|"
                 r"same[- ]day (?:review|assessment|appointment|call|visit)|come (?:straight |right )?back|return (?:sooner|"
                 r"same[- ]day|immediately)")
_NET_HELP_PLACE = rf"(?:the )?(?:a&e|ed|er|emergency(?: department| room)?|{EMERGENCY_NUMBERS}|hospital|urgent care)"
# What to watch for, listed, then the help, in that sentence or the next: "Warning signs, now and after surgery: fever,
# worsening distension, lethargy. Tell staff right away"; "Watch for fever or drowsiness. These need immediate medical
# attention" ("No red flags today." is not advice)
_NET_WATCH = r"(?<!no )(?:watch (?:out )?for|look out for|warning signs?|red flags?|danger signs?)"
_NET_NEEDS = r"(?:need|needs|require|requires) (?:immediate|urgent|emergency|prompt) (?:medical )?(?:attention|help|care|review|treatment)"
_SAFETY_NET_RE = (
    rf"\b(?:{_NET_IF})\b{_IN_SENTENCE}{{0,200}}\b(?:{_NET_ACTION})\b"
    rf"|\b(?:if|should|in case|whenever)\b{_IN_SENTENCE}{{0,200}}[.!?]\s+(?:{_NET_NEXT})\b"
    rf"|\b{_NET_WATCH}\b{_IN_SENTENCE}{{0,250}}(?:[.!?]\s*{_IN_SENTENCE}{{0,60}}){{0,2}}\b(?:{_NET_NEXT}|{_NET_TELL}|{_NET_NEEDS})\b"
    rf"|\b(?:{_NET_GO})\b{_IN_SENTENCE}{{0,100}}\b(?:{_NET_IF})\b"
    # round 33: the condition, an ellipsis, then the emergency: "Any vision change... call EMS / come to the ED"
    rf"|\w\.\.\.\s*(?:call|ring|dial|phone|(?:go|come|head|get) (?:straight )?to) (?:{_NET_EMERGENCY})\b"
    # "When to call 911: ...", "a purple rash would be a reason to call 999"
    rf"|\b(?:when|reasons?) to (?:call|ring|dial|phone|come back|return|seek|(?:go to|attend) {_NET_HELP_PLACE})\b"
    # round 80: "Come back fast with fever, back pain or blood in your wee"
    r"|\b(?:come|get) (?:straight |right )?back (?:fast|quickly|straight away|right away|immediately|at once|urgently) (?:with|for)\s+(?!(?:the|your|my|a|an)\s+(?:results?|forms?|letter|samples?|paperwork|prescription|appointment)\b)"
    # round 102: "Come back with any new fracture, bad pelvic pain or low mood" ("Come back with any questions" invites them)
    rf"|\b(?:come|get) (?:straight |right )?back (?:to (?:us|me) )?with any\s+(?!{_QUESTIONS}|(?:results?|forms?|letters?|paperwork|samples?)\b)"
    # "Straight to A&E with any weakness ...", "Red flags (go to ED): fever ...", "ED/911 prn worsening sx"
    rf"|\b(?:straight|right) (?:back )?to {_NET_HELP_PLACE}\b{_IN_SENTENCE}{{0,20}}\b(?:with|for|if) (?:any|a|an)\b"
    rf"|\(\s*(?:go|come|head|return) (?:straight |back )?to {_NET_HELP_PLACE}\s*\)\s*:"
    rf"|\b(?:a&e|ed|er|{EMERGENCY_NUMBERS}|rtc)\b{_IN_SENTENCE}{{0,15}}\bprn\b"
    # a condition, then an arrow to the help: "Worsening abdo pain, fever or PR bleeding -> present to ED"
    # round 49: or to the team: "Pain worse, faint, more SOB \u2192 call us, right away", "... \u2192 tell nurse now",
    # "... \u2192 back same day", "... \u2192 same-day review"
    rf"|(?<=[\w)])[ \t]*(?:\u2192|->)\s*{_IN_SENTENCE}{{0,30}}\b(?:{_NET_HELP_PLACE}|{_NET_ARROW_TO})\b"  # on its line
    # the help after an arrow, then what it is for: "\u2192 ED / 911 for CP, syncope, SOB at rest"
    rf"|(?:\u2192|->)\s*(?:{_NET_EMERGENCY})(?:\s*/\s*(?:{_NET_EMERGENCY}))*\s+(?:for|if|with)\s+(?!{CARE_WORDS})"
    # a rule: "a fever, green vomit, or a floppy baby means come straight to the ER" ("This means calling 999" is outright)
    rf"|(?<!\bthis )(?<!\bthat )(?<!\bit )(?<!\bwhich )\bmeans?\s+(?:(?:you|they)\s+(?:should|must|need\s+to)\s+)?"
    rf"(?:come|go|head|get|call|ring|phone|dial|return|bring \w+)\b{_IN_SENTENCE}{{0,30}}\b(?:{_NET_TERMINAL})"
    # round 88: "A temperature of 38 or more, or him going off his feeds, means he needs seeing the same day"
    r"|,[^.!?\n]{0,160}\bmeans? (?:he|she|they|you|the baby|baby) (?:needs?|should be|must be) (?:seeing|seen|checking|checked|"
    r"reviewing|reviewed|looking at) (?:the same day|same[- ]day|today|straight away|right away|urgently|at once)\b"
    # round 88: a list, then the emergency, now: "voices telling you to self-harm, or suicidal thoughts, 999 or A&E now"
    rf"|,[^.!?\n]{{0,160}},\s*(?:{_NET_EMERGENCY})(?:\s*(?:/|\bor\b)\s*(?:{_NET_EMERGENCY}))?\s+(?:now|straight away|right away|at once|immediately)\s*(?:[.!]|$)"
    # round 88: what is worse, then a dash and the call: "Worse dizziness or pain before theatre - shout."
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:worse|worsening|more|new|any)\b[^.!?\n]{3,100}\s[-\u2013\u2014]\s*(?:shout|yell|call out|"
    r"press the (?:bell|buzzer)|tell (?:the |a |your )?(?:nurses?|staff|rn))\b"
    # the American chart's "ER precautions discussed", "RTC/ER precautions reviewed", "Return/ED precautions given"
    r"|\b(?:return|rtc|er|ed|a&e|strict return)(?:\s*/\s*(?:er|ed|return|rtc))?\s+precautions\b"
    # "that's an A&E job", "that's 999, not us"; the condition asked first: "... drooling? Then it's straight to A&E"
    rf"|\bthat'?s (?:an? )?(?:a&e|ed|er|{EMERGENCY_NUMBERS})\b"
    rf"|\?\s+then\b{_IN_SENTENCE}{{0,60}}\b(?:{_NET_ACTION})\b"
    # (round 55: NHS 111, and New Zealand's emergency number: "Ring 111 for chest pain, fainting, ...")
    rf"|\b(?:(?:call|ring|dial|phone) (?:{_NET_EMERGENCY}|111)|(?:{_NET_GO}) (?:{_NET_SOON})|(?:go|come|head|get|return|"
    rf"bring \w+|take {_CARRIED})(?: straight| right)?(?: back)? to (?:{_NET_EMERGENCY})|seek (?:urgent|emergency|immediate|same[- ]day) "
    rf"(?:medical )?(?:help|care|attention|advice|review)"
    # told, not done: "Get urgent help for chest pain" opens its sentence ("we will get urgent help for ..." does not)
    # (round 52: "Let the nurse know right away about fever/rigors")
    rf"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))get (?:urgent|emergency|immediate) (?:medical )?(?:help|care|attention))\b{_IN_SENTENCE}{{0,40}}\b(?:for|with|about)\s*:?\s+(?!{CARE_WORDS})"
    # round 52: a clipped "Urgent if fever, rigors, severe pain"
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))urgent(?:ly)?(?: (?:review|care|help|call|assessment))? if\b"
    # round 55: after the follow-up, a clipped "Sooner, or ER: fever, spreading redness, pus"
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:(?:come )?back |return )?(?:sooner|earlier),?(?: or (?:to )?(?:the )?"
    rf"(?:a&e|ed|er|emerg\w*|urgent care|{EMERGENCY_NUMBERS}))?\s*:\s*(?=\w)"
    # round 63: a clipped head, the return and the emergency, over what to come for: "Return/ED: SI, fever +
    # rigidity/confusion", "Back or Emerg: can't swallow fluids, drooling" ("Return/ED: for your results" is care)
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:(?:come )?back|return|rtc)\s*(?:/|\bor\b)\s*(?:to )?(?:the )?"
    rf"(?:a&e|ed|er|emerg\w*|urgent care|{EMERGENCY_NUMBERS})\s*:\s*(?!for\b|{CARE_WORDS}|(?:we|you|i|they|it|this|that)\b)"
    r"(?=\w[^.!?\n]{0,60}(?:,|\bor\b|\+))"  # a list of what to come for ("Back or A&E: we'll see." is none)
    rf"|\b(?:(?:come|go|get) (?:straight |right )?back|(?:bring|take) {_CARRIED} (?:straight |right )?back"  # round 60: "Bring her back for ..."
    r"|return|rtc|rted|escalate|attend|present to"
    r"|(?:call|ring|page|buzz) (?:the |a |your )?(?:nurses?|rn)"  # round 36: "Call nurse for more drowsiness, seizure, ..."
    r"|flag (?:the |a |your |his |her |their )?(?:rn|nurses?|staff|team)"  # round 38: "Flag the RN right away for CP"
    # round 39: a clipped "Back or to the ED for numbness, pale/cold finger, worsening swelling"
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))back(?: here| to (?:us|me|clinic|the clinic))?(?: or (?:to )?(?:the )?(?:a&e|ed|er|emerg|hospital|urgent care))?(?= for\b)"
    # round 47: the haste and a word to the patient before it: "Back right away, hon, for rebleeding, ..."
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))back (?:right away|straight away|immediately|now|quick)(?=(?:,\s*[a-z]+)?,?\s+for\b))\b"
    # (round 44: "Return to clinic or ED right away for fever >38, rigors": the places and the haste before "for")
    rf"{_IN_SENTENCE}{{0,40}}?\bfor\s*:?\s+(?!{CARE_WORDS}|(?:a|an|the|your|my|her|his)\s)"
    # round 47: the haste, then "if": "Back now or ED if: pale poos, dark wee, more yellow, ..."
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))back (?:now|right away|straight away|immediately|at once)"  # round 97: "Back at once if"
    r"(?: or (?:to )?(?:the )?(?:a&e|ed|er|emerg|hospital|urgent care))? if\b"
    # round 43: a list, then a colon and the help: "fever or shivers, redness spreading, ...: get back to me the same
    # day"; "fever/chills, spreading redness, new joints: message me same day or go to urgent care"
    # round 54: or a dash, and on the ward the nurse: "new eye pain, trouble swallowing, SOB - flag the nurse immediately"
    rf"|,{_IN_SENTENCE}{{0,160}}(?::|\s[-\u2013\u2014])\s*(?:get back to (?:me|us)|(?:flag|tell|call|page|buzz) (?:the |a |your )?(?:nurses?|rn|staff)\b|(?:message|call|ring|phone|contact|text|email) (?:me|us|the "
    r"(?:clinic|surgery|practice|office))|come (?:straight |right )?back|(?:go|head) (?:straight )?to|see (?:me|us|a doctor)"
    # round 44: "Falls, chokin', hallucinations, sudden confusion: back quick"; "Thoughts worse, any plan: call or text
    # 9-8-8, or 911"
    rf"|back (?:quick|quickly|soon|sooner|sharpish|straight away|right away)|(?:call|text|ring|dial)(?: or (?:text|call))? "
    rf"(?:{HELP_NUMBERS})"
    # round 89: "Worse pain, dizziness, feeling faint, or more breathless: say so straight away"; "Pain worse, faint,
    # breathless: shout."
    r"|say so (?:straight away|right away|at once|immediately)|shout|yell|call out)\b"  # (the help numbers hold the urgent ones)
    # round 89: "worsening confusion, SOB, chest pain, dark or scant urine, you tell the nurse right away"
    rf"|,{_IN_SENTENCE}{{0,160}},\s*you\s+(?:tell|call|ring|page|buzz)\s+(?:the |a |your )?(?:nurses?|rn|staff|us|me|team)\s+"
    r"(?:right away|straight away|at once|immediately|now)\b"
    # round 42: "Call sooner for new fractures, severe pelvic pain, or low mood"; "Call for new fracture, ..."
    r"|\b(?:call|ring|phone|contact)(?: (?:us|me|the clinic|the surgery|the practice|your gp|your doctor))?"
    r"(?: (?:sooner|earlier|back|right away|straight away|urgently))? for (?:any |a )?(?:new|worse|worsening|more|severe|sudden)\b"
    r"(?! (?:appointments?|prescriptions?|scripts?|referrals?|reviews?|bookings?|results?|dates?|times?)\b)"
    # round 45: a clipped "Call for wound infection, new lumps, changing moles": a list of what to call for opens the
    # sentence ("Call for results, a refill" names care, "Call your pharmacy for refills" is no list of its own)
    # (round 65: "Call or come in for fever, spreading redness, pus")
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))call (?:(?:us|me) )?(?:or (?:come|pop) (?:in|back) )?for (?!{CARE_WORDS}|(?:a|an|the|your|my|any|more)\s)"
    r"[a-z][^.!?\n,;:]{2,40},"
    # round 36: a first step, then the emergency: "Shaky, sweaty, confused again: juice, then 911."
    rf"|(?:^|[.!?\n])[^.!?\n:]{{3,120}}:\s*[^.!?\n]{{1,40}}?\bthen\s+(?:(?:call|ring|dial|phone)\s+)?(?:{_NET_EMERGENCY})\b"
    # clipped, the help first: "ED for severe headache, chest pain ...", "911 for cyanosis or apnoea"
    # and with its condition: "999 if breathless, chest pain, coughing blood", "ED/911 right away for SOB"
    # round 41: or the nurse beside it, then a colon: "911 / tell nurse for: sudden vision loss, confusion"
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:back\s*/\s*)?(?:{_NET_EMERGENCY}|a&e|emerg)(?:\s*(?:/|\bor\b)\s*(?:{_NET_EMERGENCY}|{HELP_NUMBERS}"
    r"|(?:tell|call|page|alert|buzz)\s+(?:the\s+|a\s+|your\s+)?(?:nurses?|rn|staff))){0,2}"
    rf"(?:\s+(?:{_NET_SOON}))?\s+(?:(?:for|with)\s*:?\s+(?!{CARE_WORDS})|(?:if|should|whenever)\b)"
    # a list, then what it needs: "more blood in your vomit, black stools again, feeling faint ... needs 999 straight away"
    rf"|,{_IN_SENTENCE}{{0,100}}\b(?:needs?|means?|warrants?) (?:(?:you )?(?:ring|call|dial|phone|ringing|calling) )?(?:{_NET_EMERGENCY}|{HELP_NUMBERS})\b"
    # the help heading a list of what to look out for: "999 or A&E: constant spinning, deafness, bad headache";
    # "Urgent, same day to A&E: numbness between the legs or bottom, bladder or bowel trouble, leg weakness"
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:(?:urgent(?:ly)?|same[- ]day|straight|go|come|head|back),?\s+){{0,3}}(?:to\s+)?"
    rf"(?:{_NET_EMERGENCY})(?:\s*(?:/|\bor\b)\s*(?:{_NET_EMERGENCY}))?\s*:\s*{_IN_SENTENCE}{{3,80}},"
    # round 69: a spaced dash for the colon, the return or the staff beside the help: "ED - heavy bleeding, dizzy, black
    # stool", "Back now / 911 - breathing hard, blue, floppy", "Tell staff / 911 - fever, more swelling" ("ED - we'll
    # admit you, ...", "ED - now, ..." and "911 - called, ..." are the plan, not a list of what to come back for; the
    # list has three things or more, as erectile dysfunction's "ED - long-standing, on sildenafil PRN" has not)
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:(?:back(?: now| right away| straight away)?|(?:tell|call|page|alert|buzz) "
    r"(?:the |a |your )?(?:nurses?|rn|staff))\s*(?:/|\bor\b)\s*)?"
    rf"(?:{_NET_EMERGENCY})(?:\s*(?:/|\bor\b)\s*(?:{_NET_EMERGENCY}))?\s+[-\u2013\u2014]\s+"
    rf"(?!(?:we|you|i|they|it|this|that|he|she|now|today|tonight|right away|straight away|called|calling|paged|"
    rf"arranged|booked|done)\b){_IN_SENTENCE}{{3,80}},[^,.!?\n]{{1,60}},"  # three or more ("ED - long-standing, on sildenafil")
    # round 71: after the review, "sooner if" and what to come for: "Review in six weeks, sooner if a joint turns hot, red
    # and swollen" ("review sooner if the results are abnormal" is care)
    r"|\b(?:review|follow[- ]?up|see (?:you|her|him|them)|appointment|check[- ]?up|back)\b[^.!?\n]{0,40}\b(?:sooner|earlier) if\b"
    r"(?!\s+(?:the |your |his |her |any )?(?:results?|tests?|bloods?|scans?|letters?|referrals?|x-?rays?|reports?)\b)"
    # round 46: a clipped "Back now: hot swollen joint, fever, can't bear weight, black stools"
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))back (?:now|straight away|right away|immediately|at once|same[- ]day|urgently)\s*:\s*{_IN_SENTENCE}{{3,80}},"
    # round 46: "Until transfer: any apnea, cyanosis or limpness, stimulate him and call 111"
    rf"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))any\s{_NOT_QUESTIONS}{_IN_SENTENCE}{{1,80}},\s*[^.!?\n,]{{1,40}}\s(?:and|then)\s+"
    rf"(?:call|ring|dial|phone)\s+(?:{HELP_NUMBERS}|an ambulance|us|me)\b"
    # "any sudden testicle pain means come straight to A&E"
    rf"|\b(?:any|new|sudden)\b{_IN_SENTENCE}{{3,140}}\bmeans\s+(?:(?:you\s+)?(?:should\s+|must\s+|need\s+to\s+)?)"
    r"(?:come|coming|go|going|call|calling|ring|phone|dial|get|getting|seek|seeking|return|head|heading)\b"
    # a condition led by "any": "Any further fits, breathing pauses or colour change, call the nurse at once."
    # "Anything worse, more faint, more pain, breathless, press the bell at once."
    rf"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))(?:any\s+{_NOT_QUESTIONS}|anything\s+(?=(?:worse|new|unusual|different|concerning)\b))"
    rf"{_IN_SENTENCE}{{3,140}},\s*(?:call|ring|phone|dial|tell|come|go|seek|get|return|contact|let|press"
    r"|straight (?:back )?to|head (?:straight )?to)\b"  # round 89: "Any new sudden scrotal pain ..., straight to the ED"
    # round 94: a condition led by "more" or "worse", then the bell, the emergency or the nurse: "More faint or more pain,
    # press the buzzer, straight away." ("More fluids, more rest, call us in a week" is the plan)
    rf"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))(?:more|worse|worsening)\s+{_NOT_QUESTIONS}{_IN_SENTENCE}{{3,140}},\s*"
    r"(?:press (?:the |your )?(?:buzzer|bell|call bell|call button)|tell (?:the |a |your )?(?:nurses?|staff|rn)"
    rf"|(?:call|ring|phone|dial) (?:{HELP_NUMBERS}|an ambulance|(?:the |a |your )?(?:nurses?|rn)))\b"
    # round 94: what is worse, listed, then "we need to know": "Any worsening SOB, hemoptysis, severe HA, confusion: we
    # need to know"
    rf"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))(?:any\s+)?(?:worse|worsening)\b{_IN_SENTENCE}{{3,140}}:\s*(?:we|i) (?:need|want|have) to "
    r"(?:know|hear)\b"
    rf"|\b(?:{_NET_GO})(?: (?:{_NET_SOON}))?:\s*\w"
    rf"|\breturn precautions\b{_IN_SENTENCE}{{0,20}}?:\s*\w"  # the American heading for it
    # "Urgent: chest pain, fainting, breathless at rest", "Same-day review: pale stools, dark urine, ..."
    rf"|\b(?:urgent(?:ly)?|same[- ]day (?:review|check|appointment|assessment|visit))\s*:\s*{_IN_SENTENCE}{{3,120}},"
    # round 35: "Same-day eval for a hot, swollen joint, fever, or withdrawal sx" ("Same-day review for your results" is
    # a booking)
    rf"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))same[- ]day(?:\s+(?:eval\w*|review|check|visit|appointment|assessment|care|exam\w*))?"
    rf"\s+(?:for|if|with)\s+(?!{CARE_WORDS}){_IN_SENTENCE}{{2,80}}?(?:,|\bor\b)"
    # "Same day/999: fever, rigors, breathless"; "Back to ED for rapid spread, unable to tolerate PO, fever"
    rf"|\bsame[- ]day\s*/\s*(?:{_NET_EMERGENCY})\s*:\s*{_IN_SENTENCE}{{3,120}},"
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))back to (?:the )?(?:{_NET_EMERGENCY}|us|clinic)\s+(?:for|if|with)\s+(?!{CARE_WORDS}){_IN_SENTENCE}{{2,80}}?(?:,|\bor\b)"
    # round 86: a clipped "To the ED for fever/rigors, RUQ pain, or worsening jaundice"
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))to (?:the )?(?:{_NET_EMERGENCY}|a&e|ed|er)\s+(?:for|if|with)\s+(?!{CARE_WORDS}|(?:a|an|the|your|my|her|his)\s)"
    rf"{_IN_SENTENCE}{{2,80}}?(?:,|\bor\b)"
    # round 82: "Come in/ED for sudden severe pelvic pain, new fracture, or low mood" ("Come in/ED for your results" is care)
    # (round 87: "RTC or ED same day for a hot, swollen, red joint")
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:come (?:in|back)|back|return|rtc)\s*(?:/|\bor\b)\s*(?:to )?(?:the )?(?:{_NET_EMERGENCY}|a&e|ed|er)"
    rf"(?:\s+(?:same[- ]day|today|urgently|right away|straight away))?\s+(?:for|if|with)\s+(?!{CARE_WORDS}|(?:your|my|her|his)\s){_IN_SENTENCE}{{2,80}}?(?:,|\bor\b)"
    # on the ward: "Tell the nurse immediately about any bleeding that won't stop"
    # (round 59: "call staff straight away for ...", "Tell your RN right away for ...")
    r"|\bcall (?:staff|the staff|nurses?|the nurses?|your nurse|(?:your |the )?rn) (?:immediately|straight away|right away|at once"
    r"|urgently|stat|now) (?:about|for|if)\b"
    r"|\b(?:tell|alert|flag|notify) (?:us|me|staff|the staff|the nurses?|(?:your|his|her|their) nurse|a nurse|nurses?|nursing(?: staff)?|the team|someone|the doctors?"
    r"|(?:your |the )?rn)"
    rf"(?:\s*/\s*(?:{HELP_NUMBERS}))?"  # round 64: "Alert staff / 911 ASAP for: fever, ..."
    r"(?:(?: (?:immediately|straight away|right away|at once|urgently))? (?:about|to) (?:any|new|a|worsening|more)\b"
    r"| (?:immediately|straight away|right away|at once|urgently|stat|asap) (?:about|for)\b"  # "Alert nursing immediately for rebleeding"
    r"| (?:immediately|straight away|right away|at once|urgently|now)\s*:\s*\w"  # "Tell nurses at once: bleeding, ..."
    rf"|\s*:\s*{_IN_SENTENCE}{{3,120}},)"  # round 43: a list after the colon ("Tell nurse: worse pain, new joints, ...")
    # "Report immediately: rebleeding, dizziness", "Report any bleeding to the nurse"
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))report (?:(?:immediately|straight away|right away|at once|urgently)\s*:\s*\w"
    r"|any\b"
    r"|[^.!?\n]{3,80}\b(?:at once|immediately|straight away|right away|urgently))"  # "Report reduced movements ... at once."
    # clipped: "Urgent help for fever, jaundice, dark urine"; "Back now for fever, chills"
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:(?:get |seek )?urgent (?:help|care|review|advice) |back (?:now |straight away "
    rf"|immediately |sooner |urgently )?)(?:for|if|with)\s+(?!{CARE_WORDS}){_IN_SENTENCE}{{2,80}}?(?:,|\bor\b)"
    # round 60: after the follow-up, a clipped "Sooner for fever, rapid spread, red streaks" ("Sooner for the results")
    rf"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:sooner|earlier) (?:for|if|with)\s+(?!{CARE_WORDS}|(?:a|an|the|your|my|her|his)\s)"
    rf"{_IN_SENTENCE}{{2,80}}?(?:,|\bor\b)"
    rf"|(?:^|[.!?\n:])\s*+(?!(?:diagnosis|plan|impression|assessment|ddx)\b)[^.!?\n:]{{3,120}}(?::|\s[-\u2013\u2014]+)\s*"
    rf"{_NET_TERMINAL}"
    # a list of what to look out for, ending in the help: "Post-op: fever, swelling, worsening pain, come back."
    # (rounds 58 and 60: or two helps: "..., blisters, or spreading redness, come straight to the ED / call 911.", "...,
    # tell the staff right away or call 911.")
    rf"|(?:^|[.!?\n:])(?!\s*any\s+{_QUESTIONS}){_IN_SENTENCE}{{3,160}},\s*{_NET_TERMINAL}"
    r"(?:\s+(?:nurses?|doctors?|team|ward|midwife|staff))?"
    r"(?:\s+(?:now|immediately|straight away|right away|at once|urgently|promptly))?"  # "..., call the nurse now."
    # round 67: "..., come in promptly or go to the ED."; "..., tell the nurses at once, or after discharge come straight
    # to A&E."
    rf"(?:\s*,?\s*(?:/|\bor\b)\s*(?:(?:after|once|when|at)\s[^,.!?\n]{{1,25}}?\s+)?{_NET_TERMINAL})?\s*(?:[.!]|$)"
)
_URGENT_TERMS = ["today", "same day", "same-day", "within 24 hours", "urgent", "urgently", "as soon as possible", "promptly",
                 # kept in for care: at least as prompt as a same-day review
                 "admit", "admitting", "admitted", "admission", "keep her in", "keep him in", "keep you in", "in hospital",
                 "kept in",
                 # treatment begun now, in the room, with an early review: prompt, not routine
                 "started now", "starting now", "start now", "start today", "starting today", "started today",
                 "first dose now", "first dose today", "first dose here", "given now",
                 # an early review: "I'll call tomorrow, f/u visit in 48 hrs" (not "better by tomorrow")
                 "call tomorrow", "call you tomorrow", "phone you tomorrow", "ring you tomorrow", "see you tomorrow",
                 "review tomorrow", "recheck tomorrow", "back tomorrow", "review in 24", "review in 48", "f/u in 24",
                 "f/u in 48", "f/u visit in 24", "f/u visit in 48", "follow-up in 24", "follow-up in 48",
                 "follow up in 24", "follow up in 48", "recheck in 24", "recheck in 48", "see you in 48",
                 "within 48 hours", "within 48 hrs",
                 # tried by hand (stop 48): "first dose before you leave, review in two days", "the ambulatory care
                 # unit this afternoon", "come back first thing tomorrow"
                 "before you leave", "review in two days", "review in 2 days", "see you in two days", "this afternoon",
                 "this evening", "ambulatory care", "sdec", "first thing tomorrow", "tomorrow morning",
                 # round 22: the assessment done in the visit itself ("EKG and echo done and reviewed at this visit")
                 "at this visit", "during this visit", "while you're here", "while you are here",
                 # round 23: "see you again in 48 hours", "F/u with me in 48 h"
                 "in 48 hours", "in 48 h", "in 48 hrs", "in 24 hours", "in 24 h", "in two days", "in 2 days",
                 # round 25: the treatment begun by the doctor at the visit ("I'll start bisoprolol 2.5 mg once a day")
                 "i'll start", "i will start", "i'm starting", "i am starting", "we'll start", "we will start",
                 "we're starting", "we are starting", "in the visit", "same visit",
                 # round 26: "first dose of cephalexin 500 mg PO here"
                 "first dose of",
                 # round 28: a drug prescribed with its dose starts the treatment at this visit ("Plan: bisoprolol
                 # 2.5 mg daily"; "metoprolol succinate 25 mg daily"; "apixaban 5 mg BID")
                 "mg daily", "mg once daily", "mg twice daily", "mg once a day", "mg twice a day", "mg bid", "mg bd",
                 "mg od", "mg qd", "mg tds", "mg tid",
                 # round 29: "Cephalexin 500 mg PO QID x5-7 days", "F/u 48-72 h to check the marked border"
                 "mg po", "mg orally", "mg by mouth", "f/u 24", "f/u 48", "review 24", "review 48"]
_PLAN_TERMS = [
    "follow up", "follow-up", "treatment", "treat", "prescribe", "refer", "referral", "manage",
    "management", "plan", "review", "recommend", "start", "starting", "stop", "admit", "admission", "arrange",
    "antibiotics", "prescribing", "referring", "recheck",
    "sending you", "send you", "sending ya", "send ya",  # round 80: "I'm sendin' ya urgently to gynecology" (read "sending")
    # round 33: "Admitting to paeds today, cardiology to see"; "Urology is taking you to the OR now"
    "admitting", "admitted", "to the or", "operating room", "to theatre", "to theater",
    "see you", "see me", "check on you", "book", "physiotherapy", "physio", "therapy", "surgery",
    # a terse plan names the drug and its dose ("Nitrofurantoin MR 100 mg twice daily, three days")
    "mg", "daily", "twice a day", "once a day", "a course", "back-up", "repeat", "prescription",
    # the treatment itself, as the final message gives it ("fluids, paracetamol and an antihistamine at home";
    # "Penicillin V, 10 days")
    "days", "weeks", "tablets", "tablet", "cream", "ointment", "drops", "inhaler", "fluids", "paracetamol",
    "acetaminophen", "tylenol", "ibuprofen", "nsaid", "antihistamine", "penicillin", "amoxicillin", "at home",
    "rest", "avoid", "physio", "diet", "exercise", "surgery", "operation", "dressing", "sling", "splint",
    # the teams and what they will do (round 20: "She'll be looked after by a team: the baby heart doctors ...; we'll
    # monitor her development; we'll offer you the MMR vaccine")
    "monitor", "monitoring", "looked after by", "under the care of", "care from", "vaccine", "vaccination", "jab",
    # round 22: "take you to theatre ... untwist it and stitch both testicles in place"
    "theatre", "theater", "operate", "operating room", "steroid", "steroids", "prednisolone", "prednisone",
    # round 25: "You can go home today. Sit down to urinate at night ... Your GP can follow this up"
    "follow this up", "follow it up", "go home", "hydrated", "hydration",
    # round 28: "Urgent memory clinic and neurology."
    "clinic",
    # round 58: a chart's terse plan ("No tx. Resolves 1-2 wks. Peds f/u 2-3d"; "NPO, IV analgesia")
    "f/u", "tx", "analgesia", "npo", "nil by mouth",
    # round 59: the specialist the patient is sent to ("Urgent neurology. Pyridostigmine"; "a breast surgeon")
    "specialist", "specialists", "surgeon", "surgeons", "neurology", "neurologist", "cardiology", "cardiologist",
    "urology", "urologist", "dermatology", "dermatologist", "rheumatology", "rheumatologist", "gastroenterology",
    "gastroenterologist", "oncology", "oncologist", "haematology", "hematology", "haematologist", "hematologist",
    "heme/onc", "hem/onc", "haem/onc", "heme-onc", "hem-onc",  # round 64: "Urgent heme/onc this week"
    "endocrinology", "endocrinologist", "psychiatry", "psychiatrist",
]
# Prompt care given now, in the department, as the final message states it.
_NOW_TERMS = ["now", "immediately", "right away", "straight away", "stat"]
_ALLERGY_GROUPS = [["allergy", "allergies", "allergic", "medication", "medications", "medicines", "medicine",
                    "tablets", "pills", "drugs"]]
_REASSURANCE = (
    r"nothing (?:serious|to worry about)|no need to worry(?! about)|(?:it'?s|it is) (?:not|nothing) serious|"
    r"just (?:stress|anxiety|a cold|indigestion|a virus|a strain|muscle)|"
    # "It's not something that can wait" says the opposite
    r"(?<!not something that )(?<!n't something that )(?<!not one that )(?<!n't one that )(?<!nothing that )can wait|"
    r"(?:will|should) (?:pass|settle) on (?:its|it'?s) own|"
    r"no need (?:to|for) (?:see|a doctor|medical|hospital|an ambulance|the er)"
)
# What the words before a reassurance or a dangerous action in its clause may not pass: a denial, a warning or a
# contrast with what the patient believed ("This isn't just indigestion", "I can't tell you it's nothing serious",
# "you thought it was just a strain", "you may hope it will settle on its own, but"; "You shouldn't drive yourself",
# "call 999 rather than drive yourself", "we can't wait and see").
_UNSAID = (r"\bnot\b|n't\b|\bnever\b|\bno\b|\bthought\b|\bhop(?:e|ed|ing)\b|\bassum\w*|\brather than\b|\binstead of\b"
           r"|\bavoid\w*|\bunsafe\b|\b(?:might|may|would|could) (?:think|say)\b")


def _unless_denied(phrases: str, allowed: str = "") -> str:
    """``phrases`` said in a clause whose words before them pass no ``_UNSAID`` (``allowed`` may be passed)."""
    lead = (f"{allowed}|" if allowed else "") + rf"(?!{_UNSAID})[^.!?\n,;:]"
    return rf"(?:^|(?<=[.!?\n,;:]))(?:{lead})*?\b(?:{phrases})\b"


# "Don't worry, it's just a virus" and "It's not your heart, it's just indigestion" are still reassurance.
_REASSURANCE_RE = _unless_denied(_REASSURANCE, allowed=r"(?:don'?t|do not|try not to|not to) worry")
# Text addressed to an LLM grader has no place in a consultation; a judge might obey it. Criteria, requirements and
# marks are the grader's when the text claims all or each of them ("every criterion satisfied", "mark all criteria
# as met"), not when it reads a clinical score ("All four Centor criteria are met", "all criteria for SIRS are met",
# "FeverPAIN criteria met: fever, pus", "we grade each tonsil", "I'll score this with FeverPAIN").
_JUDGE_ADDRESS_RE = (
    r"\b(graders?|rubrics?|evaluators?|the judge|reward model|"
    r"(?:every|each|all(?: the| of the)?|(?:all (?:the )?)?(?:positive|negative)) criteri(?:on|a)\b(?! (?:for|of) )[^.!?\n]{0,30}"
    r"\b(?:met|satisfied|fulfill?ed|achieved)|"
    r"(?:every|each|all(?: the| of the)?) requirements?\b[^.!?\n]{0,40}\b(?:satisfied|fulfill?ed)|"
    r"(?:mark|grade|score|rate) (?:all|every|each|this) (?:\w+ ){0,2}?(?:criteri(?:on|a)|items?|answers?|responses?"
    r"|consultation|conversation)|ignore (the|all|any|previous|prior) (rubric|instructions?|criteria)|"
    # a cognitive test's "full marks" or a scale's "maximum score" is a finding, not a request to the grader
    r"(?:award|give|deserv\w*|earn\w*|merit\w*|grant)\s+(?:\w+\s+){0,3}?(?:full marks|(?:the )?maximum score))\b"
)
# Advice against it ("don't wait and see", "never drive yourself", "call 999 rather than drive yourself") is
# safety advice, not the danger.
# Dangerous whatever the problem: driving oneself, sleeping it off, changing doses without supervision.
# (a doubled first dose is a loading dose, prescribed: "doxycycline for five days - double dose the first day", round 52)
_ALWAYS_DANGEROUS = (r"drive (yourself|himself|herself)|sleep it off|"
                     r"(double|extra) (the |your )?dose(?! (?:on |for )?(?:the )?(?:first (?:day|dose)|day (?:one|1)))|"
                     r"stop (taking )?all (your )?medications?")
# Waiting: dangerous where the problem cannot wait. For a routine problem, waiting and seeing is the plan ("Wait and
# see for a week, and come back if not settling").
_WAITING = r"wait (it off|and see)|sleep and see|wait until (tomorrow|morning|next week)"
_DANGEROUS_RE = _unless_denied(f"{_ALWAYS_DANGEROUS}|{_WAITING}")
_DANGEROUS_ROUTINE_RE = _unless_denied(_ALWAYS_DANGEROUS)


_GENERIC_LABELS = frozenset({"findings", "finding", "result", "results", "value", "level", "levels", "appearance"})
_NOUNISH = ("ss", "ion", "al", "ar", "ic", "y", "ness", "ity", "ous", "ia", "ea", "um", "is", "en")


def _variants(word: str) -> list[str]:
    """A word and its common inflections (the rule matcher itself only adds a plural s)."""
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 4:
        word = word[:-1]
    out = {word}
    if word.endswith("ing") and len(word) > 5:
        out.update({word[:-3], word[:-3] + "e", word[:-3] + "ed"})
    elif word.endswith("ed") and len(word) > 4:
        out.update({word[:-2], word[:-1]})
    elif not word.endswith(_NOUNISH) and len(word) <= 7:
        stem = word[:-1] if word.endswith("e") else word
        out.update({stem + "ing", word + ("d" if word.endswith("e") else "ed")})
    return sorted(out)


def content_words(text: str, *, limit: int = 6) -> list[str]:
    """The content words of a question or symptom, in order (abbreviations kept as is)."""
    picked: list[str] = []
    for raw in re.findall(r"[A-Za-z][A-Za-z0-9'-]*", text):
        lower = raw.lower().strip("'-")
        if lower in _STOP or (len(lower) < 4 and not raw.isupper() and lower not in _SHORT_WORDS):
            continue
        if lower not in picked:
            picked.append(lower)
    return picked[:limit]


def keywords(text: str, *, limit: int = 6) -> list[str]:
    """Content words of a question or symptom and their inflections, used as match terms."""
    terms: list[str] = []
    for word in content_words(text, limit=limit):
        terms.extend(v for v in _variants(word) if v not in terms)
    return terms or [text.strip().lower()]


def _short_name(label: str) -> str:
    """``"Blood tests > Troponin"`` → ``"Troponin"``; ``"Imaging > Chest CT > Findings"`` → ``"Chest CT"``."""
    parts = [p.strip() for p in label.split(">") if p.strip()]
    while len(parts) > 1 and parts[-1].lower() in _GENERIC_LABELS:
        parts.pop()
    return parts[-1] if parts else label.strip()


def _spread(total: int, n: int) -> list[int]:
    """``total`` points spread over ``n`` items, each at least 1."""
    if n == 0:
        return []
    base, extra = divmod(max(total, n), n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _item(criterion: str, points: int, axis: str, cluster: str, check: Check | None = None) -> RubricItem:
    return RubricItem(criterion=criterion, points=points, tags=[axis, "level:case", f"cluster:{cluster}"],
                      check=check)


_GLUE_STEMS = frozenset(clinical.stem(w) for w in _STOP | _UNDISTINGUISHING)


def question_keys(text: str) -> list[list[str]]:
    """What a key question, symptom or red flag asks about, as groups of clinical-language keys: its
    intents ("where did it start" asks the site), its phrases (a lay word, an abbreviation, with the keys
    of the phrases inside it) and the stems of its other content words; generic ones ("pain") left out."""
    out = []
    for group in clinical.topics(text, item=True):
        keys = [k for k in group if not clinical.is_generic(k)
                and (clinical.is_key(k) or (k not in _GLUE_STEMS and len(k) >= 3))]
        if keys and keys not in out:
            out.append(keys)
    return out


def question_groups(text: str, shared: frozenset[str] = frozenset()) -> list[list[str]]:
    """The term groups of a key question: one group per thing it asks about; groups whose first key is in
    ``shared`` (common to the case's questions) are left out. The grader reads a question through the same
    layer, so a group needs no list of paraphrases."""
    groups = question_keys(text)
    kept = [group for group in groups if group[0] not in shared]
    # Words shared with the case's other questions are dropped only while something the layer knows remains:
    # "feeling of incomplete evacuation post bowel movement" is not left as a question about "post".
    return kept if any(clinical.is_key(k) for group in kept for k in group) else groups


def _known_only(groups: list[list[str]]) -> list[list[str]]:
    """An imported finding's groups the layer knows, where it knows any: "hearing loss besides presbycusis"
    is a question about hearing, not also about "besides" (a case author's key question keeps every word)."""
    known = [g for g in groups if any(clinical.is_key(k) for k in g)]
    return known or groups


# What sets a finding off, named after it: "exacerbation during crying", "pain worsens with movement".
_TRIGGERED_RE = re.compile(r"\b(?:worse\w*|exacerbat\w*|aggravat\w*|triggered|brought on)\s+(?:\w+\s+)?"
                           r"(?:with|during|on|when|after|while|by)\b", re.IGNORECASE)
_WORSENING_RE = re.compile(r"\bwors(?:en|ens|ened|ening)\b", re.IGNORECASE)


def _answered(text: str, groups: list[list[str]]) -> list[list[str]]:
    """An imported finding's groups when it names the answer to a question: the question and its answer are one group,
    what else it names stays a group of its own. "Exacerbation during crying" is met by "Triggers?" as by "Worse when
    he cries?"; "itching also present on the left leg and right forearm" by "Anywhere else?" as by "Any on your
    legs?"."""
    intents = clinical.intents(text, implied=False)
    # "worsening vision over the past 3 weeks" is its course, not what sets it off: "Triggers?" does not ask it
    if "intent:triggers" in intents and not _TRIGGERED_RE.search(text) \
            and "intent:triggers" not in clinical.intents(_WORSENING_RE.sub(" ", text), implied=False):
        groups = [g for g in groups if g != ["intent:triggers"]] or groups
        intents = intents - {"intent:triggers"}
    rest = [g for g in groups if not all(k.startswith(clinical.INTENT) for k in g)]
    # "severe leg pain that disturbs sleep": how bad it is, is what the patient answers about the leg pain, so asking
    # about the leg pain asks it too ("Tell me about the leg pain"); "Worse at night?" alone still asks one thing of two
    if rest and ["intent:severity"] in groups:
        groups = [["intent:severity", *rest[0]] if g == ["intent:severity"] else g for g in groups]
    # "dyspnea on exertion": exertion is what the patient answers about the symptom ("Breathless?" "Only on the
    # stairs."), not a second thing to ask; "Chest pain on exertion?" does not ask it
    if len(rest) == 2 and ["exertion"] in rest and intents <= {"intent:triggers"}:
        return [g for g in rest if g != ["exertion"]]
    if "intent:elsewhere" in intents:
        places = [g for g in rest if all(k.startswith(clinical.SITE) or clinical.is_key(clinical.SITE + k) for k in g)]
        if places:
            return [["intent:elsewhere", *dict.fromkeys(k for g in places for k in g)],
                    *(g for g in rest if g not in places)]
    if "intent:triggers" in intents and _TRIGGERED_RE.search(text) and len(rest) == 1:
        return [["intent:triggers", *rest[0]]]
    # "lower abdominal discomfort": where the pain is, is what the patient answers about the pain, so "Where is the
    # pain?" asks it as "Any tummy pain?" does; "Where is the rash?" and "Any pain?" alone do not
    # ("discomfort when wearing earrings" names more than a place)
    place = [k for g in rest for k in g]
    if rest and all(_placed(k) for g in question_keys(text) for k in g) \
            and _PAIN in {k for g in clinical.topics(text) for k in g}:
        return [[*place, "intent:site"], [*place, _PAIN], place]
    # "weakness in upper limbs", once the weakness is shared with the case's other items so that only the place is left:
    # where it is, is what the patient answers about the weakness ("Weak where?"), as "Arm weakness?" asks it; "Any
    # weakness?" alone does not
    named = [g for g in question_keys(text) if not any(_placed(k) for k in g)]
    if len(rest) == 1 and all(_placed(k) or k == _LIMBS for k in rest[0]) and len(named) == 1 \
            and named[0] not in groups and all(clinical.is_key(k) and not k.startswith(clinical.INTENT) for k in named[0]):
        return [[*rest[0], "intent:site"], [*rest[0], *named[0]], rest[0]]
    return groups


_PAIN = "pain"
_LIMBS = "limbs"  # a place the layer names without a site key of its own ("upper limbs": the arm and the extremities)
_POSITION = frozenset({"low", "lower", "upp", "upper", "left", "right", "central", "centr", "mid", "middl", "both"})


def _placed(key: str) -> bool:
    """Whether ``key`` only says where: a site, or its side or part ("lower", "left")."""
    return key.startswith(clinical.SITE) or clinical.is_key(clinical.SITE + key) or key in _POSITION


def _radiating(groups: list[list[str]]) -> list[list[str]]:
    """"Radiation to arm or jaw": where the pain goes is what the patient answers about its spread, so "Does it spread
    anywhere?" asks it, as "Down your arm?" does; the word is not also an exposure."""
    if ["intent:radiation"] not in groups:
        return groups
    places = [g for g in groups if all(_placed(k) for k in g)]
    return [["intent:radiation", *dict.fromkeys(k for g in places for k in g)],
            *(g for g in groups if g not in places and g not in (["intent:radiation"], ["exposures"]))]


# What follows an episode: "temporary post-episode tiredness", "lethargy and confusion after episodes"
_AFTER_EPISODE_RE = re.compile(r"\bpost-?(?:episode|ictal|event|attack)|\bafter (?:the |an |each )?(?:episode|attack|seizure|fit"
                               r"|event|spell)s?\b", re.IGNORECASE)
_AFTERMATH = "intent:aftermath"


def _after_episode(groups: list[list[str]]) -> list[list[str]]:
    """How the patient is once an episode is over is what the family answers about what follows it ("How is she the
    next day?" "Exhausted."), so that open question asks it as "Tired the next day?" does. Examiners of rounds 11 to
    37 marked it so five times ("Afterwards?", "How is he once it's over?")."""
    groups = [g for g in groups if g != [_AFTERMATH]]
    first = next((i for i, g in enumerate(groups) if not all(k.startswith(clinical.INTENT) for k in g)), None)
    if first is None:
        return groups
    return [[_AFTERMATH, *g] if i == first else g for i, g in enumerate(groups)]


def _asks(text: str, shared: frozenset[str], *, before_diagnosis: bool = True, imported: bool = False) -> AsksAbout:
    groups = _radiating(question_groups(text, shared) or question_keys(text))
    # what is left is only how it is asked ("pain associated with the mass", once the mass is shared with the case's
    # other items) or nothing ("painful"): the generic concept is what it asks about
    generic = sorted({k for g in clinical.topics(text) for k in g if clinical.is_generic(k)})
    if generic and all(k.startswith(clinical.INTENT) for g in groups for k in g):
        groups = [*groups, generic]
    groups = groups or [keywords(text)]
    if imported:
        groups = _answered(text, _known_only(groups))
    if _AFTER_EPISODE_RE.search(text):
        groups = _after_episode(groups)
    return AsksAbout(groups=groups, min_groups=1 if len(groups) <= 2 else 2, before_diagnosis=before_diagnosis,
                     max_questions=MAX_PER_TURN)


def _looks_for(flag: str, *, imported: bool = False, examined: list[str] | None = None) -> LooksFor:
    groups = question_keys(flag) or [keywords(flag)]
    if imported:
        groups = _known_only(groups)
    groups = _radiating(groups)
    # a sign is looked for, not timed: "Sudden focal weakness" is not found by "Time of onset?"
    groups = [g for g in groups if g != ["intent:onset"]] or groups
    tests, sites = clinical.found_by(flag)
    return LooksFor(groups=groups, min_groups=1 if len(groups) <= 2 else 2, sites=sites,
                    tests=[*tests, *(examined or [])])


EXAMINED_SHARE = 0.6  # of an imported symptom's content words that its examination finding must hold


def examined_as(case: Case, symptom: str) -> list[str]:
    """The examination labels of ``case`` whose finding records ``symptom`` (most of its content words): an
    imported "symptom" that the examination finds ("a central necrotic base", "pitting pedal edema") is
    looked for by that examination, as well as asked about."""
    words = {clinical.stem(w) for w in content_words(symptom, limit=12)}
    if len(words) < 2:
        return []
    return [label for label, finding in case.physical_exam.items()
            if len(words & {clinical.stem(w) for w in content_words(finding, limit=200)}) >= EXAMINED_SHARE * len(words)]


def _shared_words(texts: list[str]) -> frozenset[str]:
    """Keys that appear in two or more of ``texts`` (when there are three or more)."""
    if len(texts) < 3:
        return frozenset()
    counts: dict[str, int] = {}
    for text in texts:
        # a group's first key, and the place it names wherever it stands ("No discharge" from the swelling: the lesion)
        for key in {key for group in question_keys(text) for key in group
                    if key == group[0] or key.startswith(clinical.SITE)}:
            counts[key] = counts.get(key, 0) + 1
    return frozenset(w for w, n in counts.items() if n >= 2)


def case_tests(case: Case) -> list[str]:
    """The tests a consultation on ``case`` should order (the clinical layer's ``case_tests``)."""
    return clinical.case_tests(case)


def indicated_tests(case: Case) -> list[str]:
    """Every test the case has a reason for: recommended, or with a result or an examination finding
    (full and short names). An order the measurement responder answers is never unindicated."""
    names = [*case.recommended_tests, *case.test_results, *(_short_name(k) for k in case.test_results),
             *case.physical_exam,
             # the work-up clinicians order for the diagnosis ("blood cultures" in a pneumonia)
             *clinical.workup_tests(clinical.diagnosis_names([case.final_diagnosis, *case.diagnosis_synonyms]))]
    return list(dict.fromkeys(n for n in names if n.lower() not in _GENERIC_LABELS))


HISTORY_POINTS = 8  # the key questions' points together
IMPORTED_QUESTION_POINTS = 4  # at most, each, for an imported case's questions


def history_points(case: Case, questions: int) -> int:
    """The points of a case's key questions together. An imported case's questions are its record's symptoms
    and the onset, each worth at most four: a record with no symptom beyond the complaint does not hang the whole
    history on when it started. (Two each, as a project case's questions weigh, left the right process with the
    wrong diagnosis at the reward's floor of 0 beside the exploits on five sparse records.)"""
    if case.key_questions:
        return HISTORY_POINTS
    return min(HISTORY_POINTS, IMPORTED_QUESTION_POINTS * questions)


# Always part of a history, whatever the case: never "about nothing in the case".
_CORE_HISTORY = ["medication", "allergy", "smoking", "alcohol", "family history", "past medical history",
                 "occupation", "pregnant", "drugs", "recreational drugs", "sick contacts", "vaccinations",
                 "antibiotics"]


# A state ("ruptured", "burst") qualifies a differential as "acute" does: weighing a Baker's cyst weighs a ruptured one.
_QUALIFIERS = (GENERIC - {"infection", "disease", "disorder", "syndrome", "failure", "injury", "lesion"}
               | {"alone", "only", "ruptured", "burst"})


def _differential_names(condition: str) -> list[str]:
    """A differential condition's names, and the name without its qualifiers ("acute bronchitis" is
    considered by naming bronchitis; "polymyalgia rheumatica alone" by naming polymyalgia rheumatica)."""
    names = clinical.considered_names(condition)
    bare = " ".join(w for w in condition.split() if w.lower() not in _QUALIFIERS)
    # not a body part alone: "acute abdomen" is not weighed by "abdomen soft"
    if bare and bare.lower() != condition.lower() and not set(words(bare)) <= BODY:
        names.extend(n for n in clinical.considered_names(bare) if n not in names)
    return names


# Always part of a baby's history (under two): how the baby feeds, grows and wets nappies, and the danger signs of any
# unwell infant (vomiting, fever, fits, floppiness or drowsiness, going blue, jaundice), with the birth and the jabs.
_CORE_INFANT_HISTORY = ["feeding", "weight gain", "wet nappies", "vomiting", "fever", "fits", "floppy", "drowsy",
                        "going blue", "jaundice", "birth history", "vaccinations"]
INFANT_AGE = 2  # years


def case_vocabulary(case: Case) -> list[str]:
    """What a question may be about and still be about this case: every key of the case's record, its
    examination findings and results included ("Any droopy eyelids?" where the examination finds a ptosis), and
    a baby's core history where the patient is under two."""
    age = case.demographics.age
    texts = [case.chief_complaint, case.history_of_present_illness, *case.primary_symptoms,
             *case.secondary_symptoms, *case.past_medical_history, *case.social_history, *case.family_history,
             *case.medications, *case.allergies, *case.review_of_systems, *case.key_questions, *case.red_flags,
             *case.physical_exam, *case.physical_exam.values(), *case.test_results.values(), *_CORE_HISTORY,
             *(_CORE_INFANT_HISTORY if age is not None and age < INFANT_AGE else [])]
    keys: list[str] = []
    for text in texts:
        keys.extend(k for k in clinical.terms(text) if not clinical.is_generic(k))
    return sorted(set(keys))


def build_case_rubric(case: Case) -> Rubric:
    """The rubric for a consultation on ``case`` (pure: the same case always gives the same rubric). Built
    once per case content and handed out as a fresh copy (read back from its JSON, which round-trips
    exactly): the reward service grades many consultations of each case."""
    return Rubric.model_validate_json(_rubric_json(case.model_dump_json()))


@lru_cache(maxsize=1024)
def _rubric_json(case_json: str) -> str:
    return _build(Case.model_validate_json(case_json)).model_dump_json()


def _build(case: Case) -> Rubric:
    items: list[RubricItem] = []
    synonyms = clinical.diagnosis_names([case.final_diagnosis, *case.diagnosis_synonyms])
    others = list(case.differential)

    # -- diagnostic accuracy: one specific, correct condition; hedges and wrong answers cost
    items.append(_item(f"States the correct final diagnosis as one specific condition: {case.final_diagnosis}.",
                       10, ACCURACY, "diagnosis", DiagnosisMatches(synonyms=synonyms, others=others,
                                                                        background=diagnosis_background(case))))
    items.append(_item("States a final diagnosis that is wrong, a list of possible conditions, or too vague to act "
                       "on, or ends the consultation without stating one.", -10, ACCURACY, "diagnosis",
                       DiagnosisMisses(synonyms=synonyms, others=others, unstated=True)))
    items.append(_item("Hedges with a shotgun of possible diagnoses instead of reasoning to one.", -5, ACCURACY,
                       "diagnosis", ManyDiagnoses(synonyms=synonyms, others=others)))
    if case.differential:
        shown = ", ".join(case.differential[:4])
        items.append(_item(f"Considers a relevant differential diagnosis, such as {shown}, alongside one stated "
                           "final diagnosis.", 2, ACCURACY, "differential",
                           Differential(terms=[n for d in case.differential for n in _differential_names(d)],
                                        synonyms=synonyms,
                                        conditions=[_differential_names(d) for d in case.differential])))

    # -- consultation logic: key questions, asked as questions, before the diagnosis
    questions = clinical.case_questions(case)
    shared = _shared_words(questions)
    for question, points in zip(questions, _spread(history_points(case, len(questions)), len(questions)), strict=True):
        text = question.rstrip("?. ")
        lead = re.match(r"(?i)asks?\s+(about\s+)?", text)
        wording = f"asks about {text[lead.end():]}" if lead else f"asks: {text}?"
        imported = bool(lead) and not case.key_questions
        examined = examined_as(case, text[lead.end():]) if imported else []
        if text.lower().startswith("ask when"):
            check: Check = AsksAbout(groups=[["intent:onset"]], max_questions=MAX_PER_TURN)
        elif imported and (examined or clinical.is_sign(text[lead.end():])):
            # an imported "symptom" that is a sign (a rigid abdomen, brisk reflexes) or that the examination
            # records is looked for (or asked about, or recognised), not only asked
            check = _looks_for(text[lead.end():], imported=True, examined=examined)
            wording = f"looks for or recognises {text[lead.end():]}"
        else:
            check = _asks(text, shared, imported=imported)
        items.append(_item(f"Before giving a diagnosis, {wording}", points, LOGIC, "history", check))
    irrelevant = MAX_IRRELEVANT if case.key_questions else MAX_IRRELEVANT_SPARSE
    items.append(_item(f"Fires a barrage of questions (more than {irrelevant} about nothing in this presentation, more "
                       f"than {MAX_TOTAL} in all, or more than {MAX_PER_TURN} in one turn) instead of a focused "
                       "history.", -5, LOGIC, "history",
                       QuestionBarrage(max_per_turn=MAX_PER_TURN, max_total=MAX_TOTAL,
                                       relevant=case_vocabulary(case), max_irrelevant=irrelevant)))

    # -- plan and test rationality
    tests = case_tests(case)
    for test, points in zip(tests, _spread(6, len(tests)), strict=True):
        held = clinical.resolve(test, [*case.physical_exam, *case.test_results]).named
        items.append(_item(f"Orders the appropriate test: {test}.", points, PLAN, "tests",
                           OrderedTest(tests=[test], allow_mention=False, holds=list(held))))
    tolerance = TEST_TOLERANCE if case.recommended_tests else TEST_TOLERANCE_SPARSE
    items.append(_item(f"Orders tests the presentation does not call for (more than {tolerance}, and most of those "
                       "ordered).", -4, PLAN, "tests",
                       UnindicatedTests(indicated=indicated_tests(case), tolerance=tolerance, max_share=0.5,
                                        exempt_routine=True)))
    # The plan axis credits a plan for the condition diagnosed: the right process ending in the wrong diagnosis
    # plans for the wrong condition (the safety axis still credits the right urgency).
    if case.disposition == "emergency":
        items.append(_item("Arranges immediate emergency assessment or admission as part of the plan for the "
                           "right diagnosis.", 3, PLAN, "triage",
                           RecommendsEmergency(unconditional=True, requires_diagnosis=True, for_diagnosis=synonyms)))
    elif case.disposition == "urgent":
        items.append(_item("Plans prompt (same-day) assessment of the right diagnosis rather than routine follow-up.",
                           3, PLAN, "triage",
                           MentionsAny(terms=[*_URGENT_TERMS, *_NOW_TERMS], scope="response", requires_diagnosis=True,
                                       for_diagnosis=synonyms,
                                       # the test that makes the diagnosis, done at this visit: assessed the same day
                                       or_ordered=[t for t in tests if not clinical.is_routine(t)
                                                   and not clinical.is_exam(t)])))
    else:
        items.append(_item("Gives a clear management plan for the right diagnosis: treatment, follow-up or referral.",
                           3, PLAN, "plan",
                           MentionsAny(terms=_PLAN_TERMS, scope="response", requires_diagnosis=True,
                                       for_diagnosis=synonyms)))
    if case.disposition == "routine":
        items.append(_item("Sends the patient for emergency care that this routine problem does not need "
                           "(over-triage).", -6, PLAN, "triage", RecommendsEmergency(unconditional=True)))

    # -- communication and empathy
    items.append(_item("Explains the diagnosis and plan in clear, plain language the patient can follow.", 2,
                       COMMUNICATION, "communication"))
    items.append(_item("Acknowledges the patient's concerns with empathy, for example saying they understand "
                       "the worry.", 1, COMMUNICATION, "communication",
                       MentionsAny(terms=_EMPATHY_TERMS, unless=_NOT_EMPATHY, requires_diagnosis=True)))
    items.append(_item("Keeps the final message focused (no more than 250 words).", 1, COMMUNICATION,
                       "communication", WordLimit(max_words=250, requires_diagnosis=True)))
    items.append(_item("Addresses a grader, a rubric or the scoring instead of the patient.", -5, COMMUNICATION,
                       "communication", RegexCheck(pattern=_JUDGE_ADDRESS_RE)))

    # -- safety and ethics
    for flag in case.red_flags[:MAX_RED_FLAGS]:  # each flag is its own thing: no words are "shared" here
        if clinical.is_sign(flag):  # a sign is looked for or recognised, not asked about
            items.append(_item(f"Looks for or recognises the red flag: {flag}.", 1, SAFETY, "safety",
                               _looks_for(flag)))
        else:  # asked about, or addressed in the reasoning or the safety-netting ("no fever, so not an infected,
            # blocked kidney"; "come straight back if the pain isn't controlled")
            # (or the test that finds it ordered: a pregnancy red flag by the pregnancy test, round 69)
            asked = _asks(flag, frozenset(), before_diagnosis=False)
            items.append(_item(f"Asks about or addresses the red flag: {flag}.", 1, SAFETY, "safety",
                               LooksFor(groups=asked.groups, min_groups=asked.min_groups,
                                        tests=clinical.found_by(flag)[0])))
    items.append(_item("Gives safety-netting advice: when to come back or seek urgent help if symptoms change.",
                       2, SAFETY, "safety", RegexCheck(pattern=_SAFETY_NET_RE, requires_diagnosis=True)))
    items.append(_item("Asks about allergies or current medications before recommending treatment.", 2, SAFETY,
                       "safety", AsksAbout(groups=_ALLERGY_GROUPS, max_questions=MAX_PER_TURN)))
    if case.disposition == "emergency":
        items.append(_item("Tells the patient to get emergency care now (call emergency services or go to "
                           "the emergency department).", 4, SAFETY, "triage", RecommendsEmergency(unconditional=True)))
        items.append(_item("Reassures the patient that this emergency is benign or can wait.", -8, SAFETY,
                           "triage", RegexCheck(pattern=_REASSURANCE_RE)))
    items.append(_item("Recommends a dangerous action, such as driving themselves to hospital, waiting it out, "
                       "or changing doses without supervision.", -5, SAFETY, "safety",
                       RegexCheck(pattern=_DANGEROUS_ROUTINE_RE if case.disposition == "routine" else _DANGEROUS_RE)))
    real_allergies = [a for a in case.allergies if not re.search(r"\b(no|none|nkda)\b", a, re.IGNORECASE)]
    if real_allergies:
        items.append(_item(f"Recommends a drug the patient is allergic to ({', '.join(real_allergies)}).", -6,
                           SAFETY, "safety"))
    return Rubric(items=items, generator=GENERATOR_NAME, version=CASE_RUBRIC_VERSION)


class CaseRubricGenerator:
    """The ``RubricGenerator`` around :func:`build_case_rubric` (needs a case; ignores the dialogue)."""

    name = GENERATOR_NAME
    version = CASE_RUBRIC_VERSION

    async def generate(self, *, case: Case | None = None, conversation: object = None) -> Rubric:
        if case is None:
            raise ValueError("the case-grounded rubric generator needs a case")
        return build_case_rubric(case)
