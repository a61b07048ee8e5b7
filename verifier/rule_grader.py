"""The rule grader: decides rubric items whose ``check`` is set, without an LLM.

Items without a check come back unscored (``met=None``) so that a hybrid grader can hand them to a
judge. Term matching is case-insensitive on word boundaries and tolerates a plural ``s``; simple
negations ("no need to go to the ER") do not count as recommending emergency care.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from verifier import clinical
from verifier.diagnosis import (
    Match,
    conditions_named,
    conditions_weighed,
    content,
    match_diagnosis,
    spoken,
    words,
)
from verifier.markers import parse_diagnoses, parse_diagnosis, parse_orders
from verifier.types import (
    AskedBeforeDiagnosis,
    AsksAbout,
    Case,
    Check,
    CriterionResult,
    DiagnosisMatches,
    DiagnosisMisses,
    Differential,
    LooksFor,
    ManyDiagnoses,
    MentionsAll,
    MentionsAny,
    Message,
    NotMentions,
    OrderedTest,
    QuestionBarrage,
    RecommendsEmergency,
    RegexCheck,
    RubricItem,
    Scope,
    UnindicatedTests,
    WordLimit,
)

logger = logging.getLogger(__name__)

RULE = "rule"

# The telephone numbers a plan may send the patient to, one list per meaning (regex alternations):
# an ambulance in the US and Canada, the UK, Europe, Australia and Singapore; also a crisis line (988, the US);
# also advice on where to go (NHS 111). Care now names only the first; safety-netting may name any.
EMERGENCY_NUMBERS = "911|999|112|000|995|9-1-1|9-9-9|triple zero"  # also as spelled out (Australia's "triple zero")
URGENT_NUMBERS = (f"{EMERGENCY_NUMBERS}|988|9-8-8|1-800-suicide|1-800-273-talk|1-800-273-8255"  # the US crisis lines, old and new
                  "|lifeline|13 11 14")  # and Australia's (round 50: "any plan - Lifeline 13 11 14, 000 or ED")
HELP_NUMBERS = f"{URGENT_NUMBERS}|111"
# the specialties a care-now plan hands the patient to at once ("Gynae now", "Urology paged stat", "Ortho seeing you
# now"), and the surgeons by their British and American names
ACUTE_SPECIALTIES = r"gyna?e\w*|obstetric\w*|ob[/-]?gyn|o&g|urolog\w*|orthopa?ed\w*|ortho"
SURGEONS = r"surgeons?|surgical\s+team|general\s+surgery"

_EMERGENCY_RE = re.compile(
    rf"\b(?:call(?:ing)?\s+(?:{EMERGENCY_NUMBERS}|an\s+ambulance|emergency\s+services|for\s+an\s+ambulance|ems\b)"
    r"|emergency\s+(?:room|department|services|care|treatment|medical\s+(?:care|attention|services)|help)"
    r"|(?:the|an|nearest)\s+(?:er|ed)\b|a&e\b|\bemerg\b"
    # chart shorthand: "ED now", "to ED", "ER stat", "ED transfer" (never a bare "ED", also erectile dysfunction)
    r"|(?:to|via)\s+(?:(?!the\b)[\w-]+\s+){0,2}(?:ed|er)\b|(?:^|(?<=[\s/(\-]))(?:ed|er)\s+(?:now|immediately|stat"
    r"|right\s+away|straight\s+away|transfer|referral)\b"
    rf"|(?:dial|ring|phone)\s+(?:{EMERGENCY_NUMBERS}|triple\s+zero)|\b(?:{EMERGENCY_NUMBERS}|ems)\s+(?:now|immediately|stat)\b"
    # the British and the American names of the place and the crew: "straight to casualty", "A and E", "EMS transport",
    # "a blue-light transfer"
    r"|(?:to|at|in|into)\s+(?:casualty|a\s*(?:and|\+|&)\s*e)\b|\bems\s+(?:transport|transfer)\b|\bblue[- ]lights?\b"
    rf"|\b(?:{EMERGENCY_NUMBERS}|ambulance)\s+called\b|\bcalled\s+(?:{EMERGENCY_NUMBERS}|an?\s+ambulance)\b"
    r"|\bcode\s+(?:stroke|stemi|sepsis|red)\b|\b(?:stroke|stemi|trauma)\s+call\b"
    r"|\bimmediate\s+(?:ed|er|a&e|hospital)\s+(?:attendance|review|assessment|transfer)\b"
    r"|ambulance"
    r"|(?:seek|get)\s+(?:immediate|emergency|urgent)\s+(?:medical\s+)?(?:care|help|attention|treatment)"
    r"|(?:go|get|head)\s+to\s+(?:the\s+)?(?:nearest\s+)?(?:hospital|emergency)\s*(?:right\s+away|immediately|now|urgently)?"
    r"|(?:immediately|right\s+away)\s+(?:go\s+to|visit)\s+(?:the\s+)?hospital"
    # in the emergency department already: the emergency is being treated now
    r"|this\s+is\s+an?\s+(?:[\w-]+\s+){0,2}emergency"  # "a medical emergency", "a true cardiac emergency"
    r"|(?<![-\w])emergent(?:ly)?\b"  # the American word ("Plan - emergent, starting now"; not "non-emergent")
    r"|\bstat\b[^.!?\n]{0,30}\bto\s+the\s+(?:or|operating\s+room|theatres?)\b"
    r"|emergency[,:;]?\s+(?:treat\w*\s+|treatment\s+)?(?:starts?\s+)?(?:right\s+)?(?:now|immediately|straight\s+away)"
    r"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))\s*emergency\s*[-\u2013\u2014:,.]"  # a plan headed "Emergency - ..." or "Emergency: ..."
    r"|(?:admit(?:ted|ting)?|admission)\s+(?:you\s+|her\s+|him\s+)?(?:(?:to|into)\s+(?:the\s+)?(?:hospital|ward)\s+)?"
    r"(?:now|immediately|straight\s+away|right\s+away)"  # "Admit to hospital now for monitoring"
    # what the emergency team does now: "Emergency gynaecology review - I've called them", "emergency surgery today"
    r"|emergency\s+(?:[a-z-]+\s+){0,2}?(?:review|assessment|surgery|operation|laparoscopy|laparotomy|procedure)\b"
    # round 25: "I'm sending you to hospital now to be assessed as an emergency"; "What happens now: admission, ..."
    r"|\bsend(?:ing)?\s+(?:you|her|him|them)\s+(?:in\s+)?(?:in)?to\s+(?:the\s+)?hospital\b|\bas\s+an\s+emergency\b(?![\s-]+[a-z])"  # not "as an emergency admission": the longer name is read
    r"|\bnow\s*:\s*(?:[a-z-]+\s+){0,2}?(?:admission|admit)\b"
    # round 59: the plan's "Now:" and the operation in it ("Now: gynae, theatre, laparoscopy")
    r"|\bnow\s*:\s*[^.!?\n]{0,40}?\b(?:theatres?|the\s+or|(?-i:OR)|operating\s+room|laparoscop\w*|laparotomy)\b"  # "Now: OR with gyne"
    # round 26: "Staying with us."; a critical-care bed ("... hourly glucose. ICU.")
    r"|\bstay(?:ing)?\s+with\s+us\b|\b(?:to|into)\s+(?:the\s+)?(?:icu|itu|hdu|ccu)\b"
    # round 89: "The plan: you're staying in." (not "you're staying in bed")
    r"|\b(?:you're|you\s+are|he's|he\s+is|she's|she\s+is)\s+staying\s+in(?:\s+(?:hospital|with\s+us))?(?=\s*[.;,\n]|\s*$)"
    # round 27: "The surgical team are seeing you urgently"; "taking you for clot retrieval"
    # round 49: clipped, "Surgery team seeing you now"
    r"|\b(?:team|surgeons?|registrar|consultant)\s+(?:(?:are|is|will\s+be)\s+)?(?:seeing|coming\s+to\s+see|reviewing)\s+"
    r"(?:you|her|him|them)\s+(?:urgently|now|straight\s+away|right\s+away|today)\b"
    r"|\btaking\s+(?:you|her|him|them)\s+(?:for|to)\s+(?:clot\s+retrieval|thrombectomy|theatre|theater|the\s+cath\s+lab)\b"
    # round 84: "we're takin' you straight round to the scanner"
    r"|\btaking\s+(?:you|her|him|them)\s+straight\s+(?:(?:round|over|up|down|through|across)\s+)?(?:to|into|for)\b"
    # round 86: "straight to da cath lab for primary angioplasty"; "you getting admitted"
    r"|\bstraight\s+(?:to|into)\s+(?:the\s+)?(?:cath(?:eter(?:isation|ization)?)?\s+lab|theatres?|theaters?|resus)\b"
    r"|\b(?:you're|you\s+are|you|he's|he\s+is|she's|she\s+is)\s+(?:getting|going\s+to\s+be)\s+admitted\b"
    r"|\b(?:will|'ll)\s+(?:do|perform|have)\s+(?:a\s+)?(?:clot\s+retrieval|(?:mechanical\s+)?thrombectomy)\b"
    # (round 81: or a bullet of the plan: "Plan:\n- ICU.")
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] )|(?<=\n- )|(?<=\n\u2022 )|(?<=\n\* ))(?:[mps]?icu|itu|hdu|ccu)(?:\s+(?:bed|admission|admit|now))?(?=\s*[.;\n]|\s*$)"
    # round 81: intensive care called to the patient now ("Fluid bolus. Critical care called. Isolate.")
    r"|\b(?:critical\s+care|intensive\s+care|icu|itu|outreach)(?:\s+team)?\s+(?:called|paged|bleeped|coming|on\s+(?:the|their)\s+way)\b"
    # round 32: "ICU admit, endo consult"; "You'll be in high dependency"; "Gynae, theatre now, laparoscopy"
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?\n] ))(?:[mps]?icu|itu|hdu|ccu)\s+(?:bed|admission|admit|now)(?=\s*,)"
    # round 73: "You'll be looked after in high dependency"
    r"|\b(?:you'll|you will|he'll|he will|she'll|she will|they'll|they will) be "
    r"(?:(?:looked after|cared for|nursed|monitored|managed|treated) )?(?:in|on|going to) (?:the )?"
    r"(?:high[- ]dependency|hdu|icu|itu|intensive care|ccu)\b"
    r"|\btheat(?:re|er)s? (?:now|immediately|straight away|right away|stat|today|tonight)\b"
    # round 33: a terse plan that opens with resuscitation or admission ("Resus. Two big cannulae ...", "Admit.")
    # round 39: or a bullet of the plan ("Plan:\n- Admit, telemetry, O2.")
    # round 49: or the step after one done now ("surgery now \u2192 admit, lap appy today")
    # round 57: or a dash and why ("Admit \u2014 you're hypoxic."), or a numbered step ("3. Admission to hospital because
    # of the low oxygen.")
    r"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] )|(?<=\n- )|(?<=\n\u2022 )|(?<=\n\* )|(?<=\u2192 )|(?<=-> ))"
    r"(?:resus(?:citation)?(?: (?:bay|room|area|now))?|admit(?: (?:now|today))?|admitting|admit\s+to\s+(?:the\s+)?hospital(?=\s*:)"  # round 86: "Admit to hospital: oxygen low"
    r"|admission(?:\s+to\s+(?:the\s+)?hospital)?)"  # round 63: "1. Admission, with oxygen and monitoring."
    r"(?=\s*(?:[.,;:\n]|\.\.\.|[-\u2013\u2014]\s)|\s*$|\s+(?:because|for|now|today|tonight|given)\b)"
    # round 29: "MICU admit."; a critical-care bed as an item of the plan ("Plan: IV ceftriaxone now, ICU, isolation")
    r"|(?:^|(?<=\n))\s*plan\s*[:,-][^.!?\n]*?,\s*(?:[mps]?icu|itu|hdu)(?=\s*[,.;]|\s*$)"
    r"|(?:you're\s+|you\s+are\s+)?being\s+admitted|admitting\s+you|\bresus\b|\b(?:ed|er|a&e)[- ]level\s+care"
    r"|(?:stay|staying|remain|be\s+kept|keep(?:ing)?\s+(?:you|her|him|them))\s+in\s+(?:the\s+)?hospital"  # admitted now
    # round 30: "We'll admit you, give oxygen, and start anticoagulation immediately"
    r"|(?:we'll|we\s+will|i'll|i\s+will|we're\s+going\s+to|i'm\s+going\s+to)\s+admit\s+(?:you|her|him|them)\b"
    r"|\bstay(?:ing)?\s+in\s+(?:overnight|tonight)\b"
    # round 35: remote care flies the patient out ("Medevac to an ICU in Anchorage", "RFDS retrieval"); the team comes
    # for them ("MICU is coming down to admit you")
    r"|\bmedevac\w*|\bmedical\s+evacuation\b|\b(?:flight|retrieval)\s+(?:team|crew)\b|\brfds\b|\bflying\s+doctors?\b"
    r"|\b(?:coming|come|here)\s+(?:down\s+|up\s+|over\s+)?to\s+admit\s+(?:you|her|him|them)\b"
    # admitted to a team, a ward or for observation, or today: "Admit to medicine, telemetry", "admit under the
    # respiratory team", "Direct admit to the ward tonight", "You'll need to be admitted today"
    r"|(?:admit(?:ted|ting)?|admission)\s+(?:you\s+|her\s+|him\s+|them\s+)?(?:(?:today|tonight|overnight)\b"
    r"|(?:to|under|onto)\s+(?:the\s+)?(?:medicine|medics|medical\s+team|floor|wards?|tele(?:metry)?|obs|observation"
    r"|hospitalists?|hospitalist\s+service|[\w-]+\s+(?:team|ward|service))\b|for\s+(?:observation|obs|monitoring)\b)"
    # the hospital expects the patient now: "I've rung the hospital, they're expecting you"
    r"|(?:hospital|medics|medical\s+team|surgical\s+team|surgeons|on[- ]call\s+team|registrar|casualty|a&e|ward)\b"
    r"[^.!?\n]{0,30}\bexpecting\s+(?:you|her|him|them)\b(?![^.!?\n;]*\b(?:tomorrow|morning|afternoon|evening|next|later"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day|at\s+\d|scan|appointment|clinic|weeks?|months?)\b)"  # not "on Monday"
    # to hospital, with a word of immediacy (see _unconditional): "I'm sending you straight up to the hospital",
    # "Let's get you over to the hospital right now", "seen in hospital urgently today", "an urgent hospital assessment
    # today", "I want you in hospital tonight"
    r"|(?:send(?:ing)?|get(?:ting)?)\s+(?:you|her|him|them)\s+(?:straight\s+)?(?:up\s+|in\s+|over\s+)?(?:to|into)\s+"
    r"(?:the\s+)?hospital|(?:seen|assessed|reviewed)\s+in\s+(?:the\s+)?hospital|\bhospital\s+(?:assessment|review)"
    r"|(?:you|her|him|them)\s+in\s+hospital\s+(?:tonight|today|now)"
    r"|(?:admit(?:ted|ting)?|admission)\s*[,:]?\s+(?:you\s+|her\s+|him\s+|them\s+)?(?:straight\s+)?(?:(?:to|into)\s+)?"
    r"(?:the\s+|a\s+)?(?:step[- ]?down\s*/\s*)?(?:intensive\s+care|[mps]?icu|itu|hdu|high[- ]dependency|resus\w*|stroke\s+unit"
    r"|coronary\s+care|ccu|step[- ]?down)"
    # critical care called in now: "ICU consult for likely MICU admission", "the intensive care team is coming to see you"
    r"|\b(?:icu|micu|sicu|itu|hdu|ccu|intensive\s+care|critical\s+care)\s+(?:admission|consult|referral|review|team|bed|outreach)\b"
    r"|(?:^|(?<=[.!?\n:])|(?<=[.!?\n:] ))\s*(?:plan\s*[:,-]\s*)?admit(?:ted)?\s*(?:[.!;\n]|$)"  # "Plan: admit."
    r"|(?<=\bnow, )admit(?:ted)?\s*(?:[.!;\n]|$)"  # "Plan: surgical referral now, admit."
    r"|(?:^|(?<=[.!?\n]))\s*plan\s*[:,-]\s*admit(?:ted|ting)?\b"  # "Plan: admit, O2, monitor."
    r"|(?:keeping|keep)\s+(?:you|her|him|them)\s+in(?:\s+(?:hospital|tonight|for\s+now|with\s+us))?\b(?!\s+(?:mind|touch))"
    r"|(?:you're\s+|you\s+are\s+)?staying\s+in\s+(?:with\s+us|hospital|the\s+hospital|tonight)"
    r"|(?:taking|take|rushing|going|to)\s+(?:you\s+|her\s+|him\s+)?(?:straight\s+)?(?:to|for)\s+(?:theatres?|the\s+operating\s+room"
    r"|the\s+or\b|the\s+(?:cath(?:eter)?|heart)\s+lab|emergency\s+surgery|thrombectomy)"
    # reperfusion now: "thrombolysis now", "TNK now", "straight to thrombectomy", "primary angioplasty"
    r"|(?:thromboly\w+|alteplase|tenecteplase|tnk|tpa|clot[- ]bust\w+(?:\s+drug)?|lytics?)\b[^.!?\n]{0,40}?"
    r"\b(?:now|immediately|right\s+away|straight\s+away)\b"
    r"|\b(?:now|immediately|right\s+away|straight\s+away)\b[^.!?\n]{0,30}?"  # "Plan now: IV tenecteplase", "acting now: a
    r"\b(?:thromboly\w+|alteplase|tenecteplase|tnk|tpa|clot[- ]bust\w+(?:\s+drug)?|lytics?)\b"  # clot-busting drug"
    r"|(?:straight|right|immediately)\s+to\s+(?:thrombectomy|theatres?|the\s+or\b|surgery)"
    r"|\bthrombectomy\b[^.!?\n]{0,20}?\b(?:now|immediately|right\s+away|straight\s+away)\b"  # "Neuro-IR for thrombectomy now"
    r"|primary\s+(?:pci|angioplasty|percutaneous\s+coronary\s+intervention)"
    # round 99: "we are transferring you straight away for a procedure to pull the clot out", "the stroke team is here"
    r"|transferr?(?:ing)?\s+(?:you|her|him|them)\s+(?:straight\s+away|right\s+away|immediately|now)\b"
    # round 101: "I've called the heart team. They'll take you straight to the lab" (the catheter lab, said short)
    r"|(?:take|taking|rush|rushing|wheel|wheeling)\s+(?:you|her|him|them)\s+(?:straight|right)\s+(?:up\s+|down\s+)?to\s+the\s+lab\b"
    r"|\b(?:stroke|trauma|resus\w*|cardiac\s+arrest|crash)\s+team\s+(?:is|are)\s+(?:here|with\s+(?:you|us)|on\s+(?:its|their)\s+way)\b"
    # (round 55: "the cath lab at Wellington Hospital is getting ready for you now")
    r"|(?:cath(?:eter)?|heart)\s+lab(?:\s+(?:team|staff))?(?:\s+at\s+[\w'-]+(?:\s+[\w'-]+){0,3}?)?\s+(?:is\s+|are\s+)?"
    r"(?:ready|waiting|standing\s+by|activated|getting\s+ready\s+for\s+(?:you|her|him|them)|expecting\s+(?:you|her|him|them))"
    r"|cath(?:eter)?\s+lab\s+(?:for|now|immediately)"
    # the acute team called to the bedside now ("Plan: surgeons now", "ICU now", "asking the surgical team to see you
    # right now"); a referral "urgently" may be a routine clinic's fast track, so only now and its synonyms
    r"|(?:surgeons?|general\s+surgery|gen\.?\s+surg(?:ery|eons?)?|surg(?:ery|ical)\s+consult"
    r"|surgical\s+(?:team|registrar|reg|referral|review|opinion)"
    r"|icu|itu|picu|nicu|micu|sicu"
    r"|intensive\s+care|hdu|critical\s+care"
    r")\b"
    r"[^.!?\n;]{0,60}?\b(?:now|immediately|right\s+away|straight\s+away|stat)\b"
    r"|(?:icu|itu|picu|nicu|micu|sicu|intensive\s+care|hdu|critical\s+care)\s+(?:team\s+)?(?:has|have)\s+accepted"
    # the critical-care team or unit taking over ("You're going to the ICU", "HDU referral", "the high-dependency team
    # will look after you", "asking critical care to review you")
    r"|(?:going|go|moving|move|transferr?\w*|sending\s+you|send\s+you)\s+(?:up\s+)?to\s+(?:the\s+)?(?:icu|itu|hdu|picu|nicu"
    r"|intensive\s+care|high[- ]dependency|critical\s+care)"
    r"|(?:icu|itu|hdu|picu|nicu|intensive\s+care|high[- ]dependency(?:\s+unit)?|critical\s+care)\s+(?:referral|review|admission|bed)"
    r"|(?:icu|itu|hdu|picu|nicu|intensive\s+care|high[- ]dependency|critical\s+care)\s+(?:team|unit|doctors?)\s+will\s+"
    r"(?:look\s+after|care\s+for|review|see|take)"
    r"|(?:asking|calling|referring\s+(?:you\s+)?to)\s+(?:the\s+)?(?:icu|itu|hdu|intensive\s+care|critical\s+care|high[- ]dependency)"
    # a terse plan's team or theatre now, as its own clause ("Gynae now. Theatre now, keyhole."); "refer to urology now"
    # mid-sentence may be a routine letter sent now
    rf"|(?:^|(?<=[.!?\n:;])\s*|(?<=[.!?\n:;] ))(?:{ACUTE_SPECIALTIES}|theatres?"
    r"|the\s+or)\s+(?:now|immediately|straight\s+away|stat)\b"
    r"|(?:activat\w+|alert\w*|call\w*)\s+(?:the\s+)?(?:[\w-]+\s+(?:team\s+)?and\s+(?:the\s+)?)?"  # round 61: "calling the cardiology
    r"(?:cath(?:eter)?\s+lab|stroke\s+team|trauma\s+team|code\s+stroke|resus\w*\s+team)"  # team and the cath lab this minute"
    # round 23: "you'll be staying in", "the high-dependency team are coming to see you", "Gynae on their way, theatre
    # today"
    r"|(?:you'll|you\s+will|she'll|he'll|they'll)\s+be\s+staying\s+in\b(?!\s+(?:bed|touch|the\s+house|at\s+home))"
    r"|(?:icu|itu|hdu|picu|nicu|intensive\s+care|high[- ]dependency|critical\s+care)\s+(?:team|unit|doctors?)\s+(?:are|is)\s+"
    r"(?:coming|on\s+(?:their|its)\s+way)"
    rf"|(?:{ACUTE_SPECIALTIES}|{SURGEONS})\s+(?:are\s+|is\s+)?"
    r"(?:on\s+(?:their|its)\s+way|coming\s+(?:now|down|to\s+see\s+you))"
    r"|\btheatres?\s+(?:today|tonight|this\s+(?:morning|afternoon|evening))\b"
    # round 50: "gynae called, theatre for keyhole surgery" ("a date in theatre for keyhole surgery next month" is a booking)
    r"|(?<!\bin\s)(?<!\binto\s)\btheatres?\s+for\s+(?:(?:an?|the|your|her|his)\s+)?(?:keyhole|lap\w*|laparoscop\w*|operation|surgery|\w+ectomy)\b"
    r"(?![^.!?\n;]*\b(?:tomorrow|next|clinic|appointment|list|date|weeks?|months?|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b)"
    # round 37: a terse plan's surgeons seeing the patient now, and the keyhole operation today ("Surgery seeing you now.
    # Lap appy today."); the GP surgery seeing you "today" or "next week" is an appointment
    rf"|(?:surgery|{SURGEONS}|{ACUTE_SPECIALTIES})\s+(?:are\s+|is\s+|will\s+be\s+)?"
    r"(?:seeing|reviewing|assessing)\s+(?:you|her|him|them)\s+(?:now|immediately|straight\s+away|right\s+away|urgently)\b"
    r"|\blap(?:aroscopic)?\s+(?:appy|appendic?ectomy|appendectomy|chole|cholecystectomy)\s+(?:today|tonight|now)\b"
    # round 38: the team paged at once or taking the patient to theatre ("Gyne paged stat for laparoscopy", "Gyne to OR"),
    # and resuscitation begun ("Now: two large IVs, fluids, crossmatch")
    rf"|(?:{ACUTE_SPECIALTIES}|surgery|{SURGEONS}|vascular)\s+"
    r"(?:paged|bleeped|called|consulted)\s+(?:stat|now|immediately|urgently|emergently)\b"
    rf"|(?:^|(?<=[.!?\n:;,])\s*)(?:{ACUTE_SPECIALTIES}|{SURGEONS})\s+"
    r"(?:to|for)\s+(?:the\s+)?(?:or|theatres?|operating\s+room)\b"
    r"|\b(?:two|2)\s+large(?:[- ]bore)?\s+(?:ivs?|cannula\w*|lines|access)\b"
    # round 39: admitted to a monitored bed, and kept in now ("Admission to a monitored unit", "You're staying in on a
    # closely monitored ward")
    r"|\badmi(?:t|tted|tting|ssion)\s*(?:,\s*|(?:you\s+|her\s+|him\s+|them\s+)?to\s+(?:a\s+|the\s+)?)(?:closely\s+)?"
    r"(?:monitored|telemetry|step[- ]?down|high[- ]care)\b"
    # round 45: "You'll be admitted to the hospital, a close-watch bed" (a condition before it is read apart)
    r"|\b(?:you'll|you\s+will|he'll|he\s+will|she'll|she\s+will|they'll|they\s+will)\s+(?:need\s+to\s+)?be\s+admitted\b"
    # round 44: the team already called, and the operation today ("I've already called the gynaecology team ... This
    # needs an operation today, urgently")
    # round 58: "I've spoken to the surgeons", "The general surgery team has been called and will see you shortly"
    rf"|(?:\b(?:i've|i\s+have|we've|we\s+have)\s+(?:already\s+|just\s+)?(?:called|paged|bleeped|rung|phoned|contacted"
    r"|spoken\s+(?:to|with)|talked\s+(?:to|with))\s+"
    rf"(?:the\s+)?(?:{ACUTE_SPECIALTIES}|{SURGEONS}|surgical|on[- ]call|icu|intensive\s+care)\w*"
    rf"|\b(?:{ACUTE_SPECIALTIES}|{SURGEONS}|surgical|on[- ]call|icu|intensive\s+care)\w*(?:\s+(?:team|registrar|reg|doctors?))?"
    r"\s+(?:has|have)\s+(?:already\s+|just\s+)?been\s+(?:called|paged|bleeped|contacted|rung|phoned)"
    # round 63: the team already here or on its way ("the stroke team is here and we'll give it right away")
    rf"|\b(?:{ACUTE_SPECIALTIES}|{SURGEONS}|surgical|stroke|on[- ]call|icu|intensive\s+care)\w*\s+(?:team|registrar|reg)"
    r"\s+(?:is|are)\s+(?:already\s+)?(?:here|on\s+(?:the|their|its)\s+way|coming(?:\s+(?:down|up|over|in))?\s+(?:now|to\s+see))\b"
    # round 64: "Surgeon's coming. Surgery today."
    r"|\b(?:the\s+)?surgeons?(?:'s|'re|\s+is|\s+are)\s+(?:already\s+)?(?:here|on\s+(?:the|their|his|her)\s+way"
    r"|coming(?:\s+(?:down|up|over|in))?(?=\s*[.!,;]|\s+(?:now|to\s+see)\b)))"
    # not a booking, in its sentence or the next:
    r"(?![^.!?\n]*(?:[.!?]\s*[^.!?\n]*)?\b(?:tomorrow|next|clinic|appointment|letter|referral|write|writing|weeks?|months?"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b)"  # "I've contacted the orthopaedic team, fracture clinic Monday"
    r"|\b(?:an\s+)?(?:operation|surgery)\s+(?:today|tonight|now|straight\s+away)\b"  # round 64: "Surgery today."
    # round 64: a hospital transfer by air or ambulance ("STARS or ground transfer to St. Boniface for cath")
    r"|\b(?:air|ground|ambulance|emergency|stat)\s+(?:transfer|retrieval)\b"
    r"|\b(?:you're|you\s+are|he's|she's|they're)\s+staying\s+in\b(?!\s+(?:bed|touch|the\s+house|at\s+home))"
    r"|(?:activat\w+|call\w*|put\s+out|raised?)\s+(?:a\s+|the\s+)?(?:stroke|trauma|sepsis|stemi)\s+(?:alert|call|code)"  # "We've
    r"|(?:^|(?<=[.!?\n:;])\s*)(?:stroke|trauma|stemi)\s+(?:alert|call)\s*(?:[.!;:\n]|$)"  # called a stroke alert", "Stroke alert."
    # round 75: "Stroke alert is activated", "Plan, starting now: you're admitted under the GI bleed team" (not "if you're
    # admitted", nor "you were admitted")
    r"|\b(?:stroke|trauma|sepsis|stemi)\s+(?:alert|call|code)\s+(?:is\s+|has\s+been\s+|was\s+)?(?:activated|called|put\s+out|raised)\b"
    r"|(?<!\bif )(?<!\bonce )(?<!\bwhen )\b(?:you're|you\s+are|he's|she's|they're)\s+(?:being\s+)?admitted\b"
    # round 76: "you're going straight to the cath lab now"
    r"|(?<!\bif )\b(?:you're|you\s+are|he's|she's|they're|we're|we\s+are)\s+(?:going|taking\s+(?:you|him|her))\s+"
    r"(?:straight\s+|right\s+)?(?:up\s+|down\s+)?(?:to|into)\s+(?:the\s+)?cath(?:eter)?\s+lab\b)",
    re.IGNORECASE,
)
_NEGATION_RE = re.compile(
    r"\b(?:no\s+need|not\s+need|don'?t|do\s+not|doesn'?t|does\s+not|needn'?t|not\s+necessary|unnecessary"
    r"|(?:won'?t|will\s+not)\s+(?:need|have\s+to|be\s+(?:admitted|going|sent|staying|kept))"
    r"|without|avoid|no\s+reason)\b[^.!?\n]{0,40}$",
    re.IGNORECASE,
)
# A referral denied by the word right before it or the words right after it: "not emergent", "no ambulance
# needed", "an ambulance isn't necessary" (a "not" further off is not the referral's: "not breathing? call 999")
_NEGATED_BEFORE_RE = re.compile(r"\b(?:not|no)\s+(?:an?\s+|the\s+)?$", re.IGNORECASE)
_NEGATED_AFTER_RE = re.compile(
    r"\s*[,:\u2013\u2014-]?\s*(?:(?:is|are|was)\s+)?(?:not|isn't|aren't|wasn't)\s+(?:needed|required|necessary|indicated|warranted)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def _terms_regex(terms: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = sorted({re.escape(t.strip().lower()) for t in terms if t.strip()}, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alternatives) + r")(?:e?s)?(?![a-z0-9])", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _user_regex(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE if ignore_case else 0)


# "7.1" ends no sentence, nor "esp.", "incl.", "e.g.", "i.e.", "Dr.": "Meds, esp. diuretics?"; a mark inside brackets
# keeps its bracket: "Timing (worse on waking?)?" is one question, "Pain (yes or no?)" another
_SENTENCE_RE = re.compile(
    r"(?:[^.?!\n]|\.(?=\d)|(?<=\b[Ee]sp)\.|(?<=\b[Ii]ncl)\.|(?<=\b[Ee])\.(?=[Gg]\.)|(?<=\b[Ee]\.[Gg])\."
    r"|(?<=\b[Ii])\.(?=[Ee]\.)|(?<=\b[Ii]\.[Ee])\.|(?<=\b[DM]r)\.|(?<=\bMrs)\.|(?<=\bMs)\.)+[.?!]*(?:\)[.?!]*)?")
_AND_RE = re.compile(r"\s+(?:and|plus|with)\s+", re.IGNORECASE)
MAX_ORDER_WORDS = 8  # an order longer than this is a list, not a test
MOST_OF_GROUP, MOST_OF_GROUP_MIN = 0.75, 4  # a group of 4 or more results is ordered when 3 in 4 are
_ASIDE_RE = re.compile(r"\([^()]*\)")
_PURPOSE_RE = re.compile(r"\s(?:for|to|looking for|to look for|to rule out|to exclude|r/o|with|w/)\s", re.IGNORECASE)
# "When that happens in both eyes, I start thinking of ..." is a clause, not a question (round 22, read as the onset)
_ASKING_RE = re.compile(
    r"^(?:(?:and|so|also|okay|ok|now|first|next|lastly|finally|kindly|please|hi|hello)[, ]+)?(?:when(?!\s+(?:that|this|it|you|he|she|they|we|i|the|your|his|her|there|an?)\b)|where|what|which|who|why|how(?!dy\b)|any|tell me|describe|"
    r"show me|point to|walk me through|take me through|"
    r"(?:do|does|did|are|is|was|were|have|has|had|can|could|would|will)\s+(?:you|it|the|your|there|anyone|this|that|he|she|they)\b)",
    re.IGNORECASE,
)
_CONDITIONAL_RE = re.compile(r"\b(?:if|should|in case|whenever|unless|otherwise|in an emergency|in emergencies"
                             r"|in the (?:unlikely )?event|when to|reasons? to|with any of (?:these|those|them)"
                             r"|any of (?:these|those|the following)|at the first sign|the moment you|in doubt"
                             r"|were\s+(?:you|it|things|they|she|he)\s+to)\b",  # "Were it to get worse, go to A&E"
                             re.IGNORECASE)
# (round 89: "The plan: you're staying in.")
_PLAN_HEAD_RE = re.compile(r"\s*(?:(?:the|my|our)\s+)?(?:plan|management|treatment|disposition|actions?|impression|assessment"
                           r"|diagnosis|next steps?|now"
                           r"|immediately|right now|emergency"
                           r"|what(?:'s| is)?\s+(?:happens|happening|we(?:'ll|\s+will|'re\s+going\s+to)?\s+do|"
                           r"i(?:'ll|\s+will|'m\s+going\s+to)\s+do|needs\s+to\s+happen)(?:\s+now|\s+next)?"
                           # round 35: what the place lacks, then where the patient goes ("No OR here: medevac launched")
                           r"|(?:[-*\u2022]\s*)?no\s+(?:[\w/&-]+\s+){1,3}(?:here|on\s+site|in\s+(?:this|the)\s+(?:clinic|village|practice))\s*(?=:))\b",
                           re.IGNORECASE)
# "you're staying in hospital" is decided now (round 54), unlike "some people stay in hospital for this"
_STAYING_RE = re.compile(r"(?:you're|you\s+are|he's|he\s+is|she's|she\s+is|they're|they\s+are)\s+staying\b", re.IGNORECASE)
_THAT_IS_RE = re.compile(r"\s*(?:that's|that\s+is|that\s+would\s+be|that\s+means|which\s+is|which\s+means)\b", re.IGNORECASE)
_FOR_SYMPTOMS_RE = re.compile(r"\bfor\s+(.+)$", re.IGNORECASE)
_ADMISSION_STEP_RE = re.compile(r"(?:admission|admit)\s+to\s+(?:the\s+)?hospital$", re.IGNORECASE)
_KEPT_IN_RE = re.compile(r"(?:keep(?:ing)?\s+(?:you|her|him|them)|be\s+kept)\s+in\b", re.IGNORECASE)
# round 39: "you'll stay in hospital on oxygen and a monitor" is kept in now; "After the operation you'll stay in hospital"
# is not
_YOU_WILL_RE = re.compile(r"\b(?:you'll|you\s+will)\s+$", re.IGNORECASE)
# "You need to stay in hospital" is kept in now; "You'll need to stay in hospital after the operation" is not
_NEED_TO_STAY_RE = re.compile(r"(?<!'ll )(?<!will )\bneeds?\s+to\s+$", re.IGNORECASE)
# what the doctor is doing, not where to go (round 90: "In shock: fast fluids, ICU now.")
_DONE_NOW_RE = re.compile(r"emergency|admi|thromb|alteplase|tenecteplase|tnk|tpa|clot|lytic|[mps]?icu\b|itu\b|hdu\b|ccu\b",
                          re.IGNORECASE)
_NOW_RE = re.compile(r"\b(?:now|immediately|right away|straight away|at once)\b", re.IGNORECASE)
_IMMEDIATE_RE = re.compile(r"^\W*(?:now|immediately|right away|straight away|at once|urgently|today)\b", re.IGNORECASE)
# Safety-netting written as a rule rather than an "if": "Chest pain with sweating means call 999", "For chest
# pain or breathlessness, call 911". "This means calling an ambulance now" is still outright.
_RULE_HEAD_RE = re.compile(
    r"^\s*(?:(?!(?:this|that|it|which)\b)\w[^.!?\n]{2,120}\bmeans?\s+(?:you\s+(?:should|must|need\s+to)\s+)?"
    r"(?:(?:come|go|head|get)\s+(?:straight\s+|right\s+)?(?:back\s+)?(?:to\s+)?)?"  # "... means come straight to the ER"
    r"|for\s+(?!now\b|(?:this|that|your)\b)[^.!?\n,]{3,100},\s*"
    # a clipped condition: "Any CP with exertion, sweating or SOB, call 911"
    # "..., see your GP or go to A&E"; "..., call 999 and go to the ED"
    r"|any\s+[^.!?\n]{3,160}(?:,|\s[-\u2013\u2014]+)\s*(?:[^.!?\n,]{1,30}?\s+(?:or|and)\s+)?"
    r"(?:(?:go|come|head|get)\s+(?:straight\s+|right\s+)?(?:back\s+)?(?:to"
    r"\s+(?:the\s+)?)?|call\s+|ring\s+|dial\s+)?)$",  # or between dashes: "Any of these - X, Y - go to A&E"
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped (the one splitter the grader and its recheck read)."""
    return [s.strip() for s in _SENTENCE_RE.findall(text) if s.strip()]


def questions(turn: str) -> list[str]:
    """The question sentences of a doctor turn: ending in ``?`` or opening with a question form."""
    return [s for s in sentences(turn) if s.rstrip(")").endswith("?") or _ASKING_RE.match(s)]  # "(aspirin?)" too


class _Transcript:
    """Per-conversation views computed once and shared by every item of a grading call."""

    def __init__(self, conversation: list[Message], case_names: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
                 background: tuple[str, ...] = ()) -> None:
        self.conversation = conversation
        self.case_names = case_names  # the rubric's (accepted names, differential), when it has a diagnosis item
        self.background = background  # the patient's past history: its conditions are context beside a diagnosis
        self.assistant = [m.content for m in conversation if m.role == "assistant"]
        self._texts: dict[Scope, str] = {}
        self._questions: list[list[str]] | None = None
        self._matches: dict[tuple[tuple[str, ...], tuple[str, ...]], Match] = {}

    def text(self, scope: Scope) -> str:
        if scope not in self._texts:
            if scope == "response":
                value = self.assistant[-1] if self.assistant else ""
            elif scope == "assistant":
                value = "\n\n".join(self.assistant)
            else:
                value = "\n\n".join(m.content for m in self.conversation)
            self._texts[scope] = spoken(value)  # every check reads "takin'" as "taking" (round 84)
        return self._texts[scope]

    def diagnosis_turn(self) -> int | None:
        """Index (among assistant turns) of the last turn with a ``DIAGNOSIS:`` marker."""
        for index in range(len(self.assistant) - 1, -1, -1):
            if parse_diagnosis(self.assistant[index]) is not None:
                return index
        return None

    def questions(self) -> list[list[str]]:
        if self._questions is None:
            self._questions = [questions(turn) for turn in self.assistant]
        return self._questions

    def history_questions(self) -> list[list[str]]:
        """Each turn's questions up to the ``DIAGNOSIS:`` line: what the doctor asks after stating the diagnosis is
        reasoning aloud ("Baker's cyst? Scan says no.") or safety-netting, not history-taking."""
        end = self.diagnosis_turn()
        if end is None:
            return self.questions()
        lines = self.assistant[end].splitlines()
        at = next(i for i, line in enumerate(lines) if parse_diagnosis(line) is not None)
        return [*self.questions()[:end], questions("\n".join(lines[:at]))]

    def diagnosis(self, synonyms: tuple[str, ...] = (), others: tuple[str, ...] = ()) -> Match:
        """The final ``DIAGNOSIS:`` statement matched against ``synonyms`` (one matcher for all)."""
        key = (synonyms, others)
        if key not in self._matches:
            end = self.diagnosis_turn()
            if end is None:
                self._matches[key] = Match(False, "no DIAGNOSIS: line")
            else:
                stated = [clinical.spell_out(s) for s in parse_diagnoses(self.assistant[end])]
                distinct = {content(s) for s in stated}
                # where the answer shows itself ("DGI, septic arthritis of the left wrist") is context, as its past is,
                # and so is the class it belongs to ("Double aortic arch – vascular ring", round 82)
                background = (*self.background, *clinical.manifestations(synonyms), *clinical.classes(synonyms))
                self._matches[key] = match_diagnosis(stated[0], synonyms, others=others,
                                                     extra_statements=len(distinct) - 1, background=background,
                                                     conditions=clinical.condition_lines())
        return self._matches[key]

    def single_diagnosis(self) -> bool:
        """One specific condition stated, right or wrong; read with the case's names where the rubric has them,
        so that the answer's own context ("DKA, new type 1 diabetes") is not a second condition."""
        return self.diagnosis().single or (bool(self.case_names[0]) and self.diagnosis(*self.case_names).single)

    def orders(self) -> list[tuple[str, str]]:
        return [order for turn in self.assistant for order in parse_orders(turn)]


def _mentions_any(text: str, terms: list[str]) -> str | None:
    match = _terms_regex(tuple(terms)).search(text)
    return match.group(0) if match else None


# "Call 911 for chest pain" names the condition after "for": safety-netting, not a referral now. "Go to the ED
# for antibiotics", "call an ambulance for her" name the care: a referral.
# (Blood before a comma is a sign in a list, not a test: "Call the nurse for blood, worse pain, ...", round 54.)
CARE_WORDS = (r"(?:an?\s+|the\s+|your\s+|some\s+|more\s+)?(?:treatment|antibiotics|fluids|surgery|operation|assessment"
              r"|review|monitoring|observation|admission|tests?|scans?|imaging|x-?rays?|ct|mri|bloods|blood(?!\s+(?:in|from)\b|\s*,)|blood\s+tests?|iv"
              r"|oxygen|drip|pain\s+relief|surgeons?|you|her|him|them|us|me|transport|ambulance|help|further|urgent"
              r"|emergency|immediate|specialist|care|management|results?|appointments?|follow[- ]?up|check[- ]?up"
              r"|injections?|jabs?|vaccines?|vaccinations?|dressings?|stitch(?:es)?|sutures?|removal|checks?|recheck|repeat"
              r"|prescriptions?|procedures?|physio\w*|visits?|eval\w*|work[- ]?up|w/u|r/o|rule\s+out|ctpa|angio\w*"
              r"|this|that|it|ed|er|a&e|hospital|resus\w*|theatres?|gyna?e\w*|team"  # "999 called, for ED/gynae now"
              r"|lap|\w+ectomy|\w+otomy|\w+oscopy|laparoscop\w*|repair"  # "Surgeons called now for lap appendicectomy"
              r"|key-?hole)\b")  # round 40: "Surgical team called now for keyhole removal of the appendix today"
_FOR_CONDITION_RE = re.compile(
    # round 36: a bracketed aside first, or the help inside it: "Seek urgent help (999 or A&E) for chest pain"
    r"^\s*(?:\([^()\n]{1,40}\)\s*|\)\s*)?"
    r"(?:/\s*(?:\d{3}|a&e|ed|er)\s*)*"  # round 62: a second number, "call 911/111 right away for ..."
    r"(?:(?:(?:or|and)\s+|/\s*)(?:call|ring|dial|phone|go\s+to|come\s+to)\s+(?:the\s+)?\S+\s+)?"  # "the ED or call 911 for", "the ED/call 911 for"
    r"(?:(?:,|\s[-\u2013\u2014])\s*[^.!?\n;,]{1,40}?(?:,|\s[-\u2013\u2014])\s*|,\s*)?"  # "Get urgent help, ED or call an ambulance, for ..."
    rf"(?:(?:right\s+away|immediately|straight\s+away|urgently|now|(?:the\s+)?same[- ]day)\s+)?(?:for|with)(?:\s*:)?\s+(?!{CARE_WORDS})",
    re.IGNORECASE,
)
# A visit told as history, not sent now: "She was seen in the ED last month", "the ED doctor sent you", "ED clinic".
_PAST_VISIT_RE = re.compile(
    r"\b(?:was|were)\s+(?:seen|assessed|admitted|taken|brought|sent|reviewed)\b|\b(?:went|attended|visited|presented)\s+"
    r"(?:to|at|for)\b|\blast\s+(?:week|month|year|night|time)\b|\b(?:days|weeks|months|years)\s+ago\b|\byesterday\b"
    r"|\b(?:ed|er|a&e)\s+(?:doctors?|team|nurses?|staff|notes|visits?|clinic)\b|\battenders?\b"
    r"|\b(?:took|brought)\s+(?:her|him|them|me|you)\s+(?:in\s+)?to\b|\b(?:transported|conveyed)\b|\b(?:19|20)\d\d\b"
    r"|\bambulance\s+(?:service|crew|trust|station|staff)\b|\b(?:a&e|ed|er|ambulance)\s+(?:would|wouldn't|won't|could|can)\s+only\b",
    re.IGNORECASE)
_THEN_RE = re.compile(r"\s*then\b", re.IGNORECASE)
# what to look out for, led by "for", before the help: "For chest pain when you exert yourself, ..., call 999" (not
# "For the pain you have now, ...": the complaint itself)
_FOR_LEAD_RE = re.compile(r"\s*(?:and\s+|but\s+)?for\s+(?!(?:the|your|this|that|his|her|their)\b)(?:any\s+)?([^.!?\n;]+?),"
                          r"\s*(?:please\s+|just\s+)?(?:go\s+|come\s+|head\s+|get\s+)?$", re.IGNORECASE)
# the sentence before the call, a clipped condition and a comma: "Exertional CP, or CP with SOB or diaphoresis, "
_COMMA_LEAD_RE = re.compile(r"\s*([^.!?\n;:,]+(?:,\s*(?:or|and)\s+[^.!?\n;:,]+)?),\s*(?:please\s+|just\s+)?",
                            re.IGNORECASE)
_HELP_THEN_LIST_RE = re.compile(r"^[^.!?\n:;()]{0,20}?\)\s*:\s*(?:[-*\u2022]|\d+[.)])?\s*(\S.*)", re.DOTALL)
# the help heads a list on the lines below it: "Come back or go to A&E:\n- the worst headache of your life"
_HELP_HEADS_LIST_RE = re.compile(r"^[^.!?\n:;]{0,30}?:[ \t]*\n\s*(?:[-*\u2022]|\d+[.)])\s*(\S[^\n]*)")
# ... or on the same line, as a list: "999 or A&E: constant spinning, deafness, bad headache, double vision"
# (short items: "You're being admitted: the team will treat that vessel through the scope, ..." is a plan; an item
# may hold an "or": "Urgent, same day to A&E: numbness between the legs or bottom, bladder or bowel trouble, ...")
_ITEM = r"[^\s,.!?;]+(?:[ \t]+[^\s,.!?;]+){0,5}"  # one to six words, each one way to split
_HELP_HEADS_LINE_RE = re.compile(rf"^[^.!?\n:;]{{0,30}}?:[ \t]*({_ITEM}[ \t]*,[ \t]*{_ITEM}[^\n]*)")
# ... unless the help is given whatever the answer: "Any chance you're pregnant? Either way, go to A&E now."
_WHATEVER_RE = re.compile(r"\b(?:either\s+way|anyway|regardless|in\s+any\s+case)\b", re.IGNORECASE)
# a clipped question naming what to look out for, then the help: "Worst headache of your life? Straight to A&E."
_CLIPPED_QUESTION_RE = re.compile(
    r"(?:^|[.!?\n;:]\s*)(?!(?:do|does|did|are|is|was|were|have|has|had|can|could|would|will|when|where|what|which|who"
    r"|why|how|still|and|so|ok|okay)\b)([^.!?\n;:]{3,80})\?\s*$", re.IGNORECASE)
# "Go to the ED right away if you're drooling": the immediacy belongs to the condition.
_NOW_IF_RE = re.compile(r"^\W*(?:now|immediately|right\s+away|straight\s+away|at\s+once|urgently|today)\s+"
                        r"(?:(?:or|and)\s+(?:tonight|today|overnight)\s+)?"  # "Seek urgent care today or tonight if ..."
                        # "right away or call 911 if ...", round 40: "Go to the ED now / call 911 if: stiff neck, ..."
                        r"(?:(?:(?:or|and)\s+|/\s*)(?:call|ring|dial|phone)\s+\S+\s+)?"
                        r"(?:if|should|whenever|in\s+case|unless)\b", re.IGNORECASE)


_CLIP_RE = re.compile(r":|\s[-\u2013\u2014]+\s|\u2192|->")
_STATEMENT_RE = re.compile(r"\s*(?:this|that|it|you|i|we|he|she|they|your|his|her|their|my|suspected|likely|probable"
                           r"|query)\b|\s*\?\w", re.IGNORECASE)


_FINDING_RE = re.compile(r"\s*[a-z][a-z0-9 /]{0,20}?\s*\d+(?:[.,]\d+)?\s*(?:%|/\d+|[a-z/]{0,8})\s*", re.IGNORECASE)
_THRESHOLD_RE = re.compile(r"\b(?:below|under|over|above|less|more|greater|lower|higher|drops?|falls?|rises?|if|when)\b"
                           r"|[<>\u2264\u2265]", re.IGNORECASE)


def _measured_findings(lead: str) -> bool:
    """Whether a clipped lead lists measured values ("Sats 91%, pulse 118"), not a condition or a threshold."""
    items = [p for p in lead.split(",") if p.strip()]
    return bool(items) and not _THRESHOLD_RE.search(lead) and all(_FINDING_RE.fullmatch(p) for p in items)


def _names_symptoms(lead: str) -> bool:
    """A clipped condition before a dash lists what to look out for ("Chest pain with sweating - call 999"); a
    statement does not ("This is serious - call 999 now")."""
    return not _STATEMENT_RE.match(lead) and any(not clinical.is_generic(k) for k in clinical.concepts(lead))
_CARE_START_RE = re.compile(rf"\s*(?:{CARE_WORDS}|iv\b|abx\b|admit|start|give|get|do|check|repeat|stat\b|needs?\b|requires?\b)", re.IGNORECASE)


def _warning_signs(listed: str) -> bool:
    """A list on the help's own line names what to look out for when its first two items are signs, not the care
    itself: "999 or A&E: constant spinning, deafness, ..." and not "ED: blood cultures, IV fluids, antibiotics"."""
    items = _comma_items(listed)[:2]
    if len(items) < 2:
        first = re.split(r"[.!?\n;]", listed, maxsplit=1)[0]
        items = [p for p in re.split(r",|\bor\b|\band\b", first) if p.strip()][:2]
    return len(items) == 2 and all(map(_a_sign, items))


def _comma_items(listed: str) -> list[str]:
    """The comma-separated items of a list's first clause ("fever, rash, stiff neck. Then ..." has three)."""
    return [p for p in re.split(r"[.!?\n;]", listed, maxsplit=1)[0].split(",") if p.strip()]


def _a_sign(item: str) -> bool:
    """An item of a list that names a sign to look out for, not care ("deafness", not "IV fluids" or "a CT head")."""
    if not _names_symptoms(item) or _CARE_START_RE.match(item):
        return False
    order = clinical.read_order(item)
    return not (order.tests or order.methods)


# "come back sooner, or seek urgent help, if ..."; "ring 999 or go to A&E, if you can't swallow"
# (round 89: or the place itself, "Can't swallow fluids, drooling, breathing trouble: emergency department now.")
_GO_AT_ONCE_RE = re.compile(r"emergency[,:;]?\s+(?:straight\s+away|right\s+away|immediately|at\s+once)"
                            r"|emergency\s+(?:department|room)", re.IGNORECASE)
_COMMA_IF_RE = re.compile(r"\s*(?:,?\s*(?:(?:or|and)\s+)?[^,.!?;\n]{1,40}?){0,2},\s*(?:if|should|in case|whenever|unless)\b",
                          re.IGNORECASE)
_SEND_RE = re.compile(rf"\b(?:call\w*|ring|dial|phone|{EMERGENCY_NUMBERS}|a&e|ed|er|emerg|emergency\s+(?:room|department|services)"
                      r"|(?:seek|get)\s+(?:immediate|emergency|urgent))\b",
                      re.IGNORECASE)


# round 86: what is already done, then where the patient goes: "Cardiology already called: straight to da cath lab"
_DONE_LEAD_RE = re.compile(r"\b(?:called|paged|bleeped|activated|alerted|informed|notified|aware|on\s+(?:the|their)\s+way)\s*$"
                           # round 89: "I'm calling the heart team now: you're going straight to the cath lab"
                           r"|\b(?:i'm|i\s+am|we're|we\s+are|i've|we've)\s+(?:calling|paging|ringing|bleeping|phoning|called|"
                           r"paged|rung|bleeped)\b[^.!?\n]{0,40}$", re.IGNORECASE)
_NEEDS_LEAD_RE = re.compile(r"\s*(?!(?:this|that|it|which|he|she|you|they|we|i|your|his|her|their|the|my|our)\b)"
                            r"([^.!?\n]{3,120}?)\s+(?:needs?|warrants?|requires?)\s+(?:(?:an?|urgent|immediate|same[- ]day)\s+)?",
                            re.IGNORECASE)
_IF_NEEDED_RE = re.compile(r"(?<=[a-z] )if\s+(?:needed|necessary|required|indicated|appropriate|tolerated)\b", re.IGNORECASE)
_RESULT_CHECK_RE = re.compile(r"\s*if\s+(?:your|the|his|her)\s+(?:[\w-]+\s+){0,2}?(?:clotting|bloods?|tests?|results?|scans?|ct|inr"
                              r"|platelets|glucose|sugar|kidney\s+function)\s+(?:comes?\s+back|is|are)\s+(?:fine|normal|ok|okay|clear"
                              r"|good|as\s+expected)\s*,[^,.!?\n]*", re.IGNORECASE)
_NET_HEADING_RE = re.compile(r"(?:^|(?<=[.!?]))\s*(?:[-*\u2022]\s*)?(?:return\s+precautions|red\s+flags?|warning\s+signs?|safety[- ]net(?:ting)?"
                             r"|when\s+to\s+(?:come\s+back|return|worry|seek\s+help))\s*:[^.!?\n:]+[.;]\s*$", re.IGNORECASE)
_NOW_ARROW_RE = re.compile(r"\b(?:now|immediately|stat|asap|right\s+away|straight\s+away)\s*(?:\u2192|->)\s*$", re.IGNORECASE)


# a plan announced at the end of what comes before the colon (round 99: "We are still inside the time window, so this is
# what we do now: ... we are transferring you straight away")
_PLAN_TAIL_RE = re.compile(r"\b(?:this\s+is|here's|here\s+is)\s+what\s+(?:we(?:'ll|\s+will|'re\s+going\s+to)?\s+do|happens|we're\s+doing)"
                           r"(?:\s+now|\s+next)?\s*$", re.IGNORECASE)
_DONT_WAIT_RE = re.compile(r"\b(?:don't|do\s+not)\s+wait\b", re.IGNORECASE)


def _unconditional(text: str, match: re.Match[str]) -> bool:
    """An emergency referral made outright: not inside a condition ("if it gets worse, ..."), not a
    question ("did you come by ambulance?"), and "go to hospital" only with a word of immediacy."""
    start = max(text.rfind(c, 0, match.start()) for c in ".!?\n;:") + 1
    rest = re.split(r"(?<=[.!\n;])|(?<=\?)(?!\w)", text[match.end():], maxsplit=1)[0]
    clause_after = re.split(r"[.!?\n;,]", text[match.end():], maxsplit=1)[0]
    if rest.rstrip().endswith("?"):
        return False
    # a conditional heading over its list: "If it bleeds again:\n- Admit, monitored bed."
    above = text[:start].rstrip()
    if above.endswith(":") and _CONDITIONAL_RE.search(above[above.rfind("\n") + 1 :]):
        return False
    # round 81: the help after a heading's list, in the line's next sentence: "Return precautions: fever, chills, new joint
    # involved. Come back same day or go to the ED."
    if _NET_HEADING_RE.search(text[text.rfind("\n", 0, start) + 1 : start]):
        return False
    if _PAST_VISIT_RE.search(text[start : match.end() + len(rest)]):  # "She was seen in the ED last month"
        return False
    # round 102: the condition said in the sentence before, with "don't wait": "If those thoughts get stronger, don't wait
    # for me. Ring Lifeline, call an ambulance, or go straight to the emergency department."
    before = text[max(text.rfind(c, 0, max(start - 1, 0)) for c in ".!?\n") + 1 : start]
    if _DONT_WAIT_RE.search(before) and _CONDITIONAL_RE.search(before):
        return False
    # the condition asked in the sentence before: "Trouble swallowing your own saliva? Then it's straight to the ED"
    if _THEN_RE.match(text[start : match.start()]) and text[:start].rstrip().endswith("?"):
        return False
    if len(text[start : match.start()].split()) <= 3 and not _NOW_RE.search(text[start : match.start()]) \
            and not _WHATEVER_RE.search(text[start : match.start()]):
        asked = _CLIPPED_QUESTION_RE.search(text[:start])
        if asked and _names_symptoms(asked.group(1)):
            return False
    # "Worse -> A&E" is a condition; a bare "-> ED now" is not, nor a step done now: "Surgery team seeing you now -> admit"
    if re.search(r"\w[^\n]*(?:\u2192|->)", text[start : match.start()]) \
            and not _NOW_ARROW_RE.search(text[start : match.start()]):
        return False
    # (round 87: "oxygen if needed" qualifies a step of the plan, and "If your clotting comes back fine, you'll get the
    # clot-busting drip straight away" waits on a result, not on the patient getting worse)
    condition = _IF_NEEDED_RE.sub(" ", text[start : match.start()])
    if (_CONDITIONAL_RE.search(condition) and not _RESULT_CHECK_RE.fullmatch(condition)) \
            or _RULE_HEAD_RE.match(text[start : match.start()]):
        return False
    # round 60: "that's" pointing back to a condition just named: "Come in immediately for saddle numbness, ... fever;
    # that's a medevac for MRI"
    if _THAT_IS_RE.match(text[start : match.start()]) and start > 0:
        clause = text[max(text.rfind(c, 0, start - 1) for c in ".!?\n") + 1 : start - 1]
        held = _FOR_SYMPTOMS_RE.search(clause)
        if _CONDITIONAL_RE.search(clause) or (held and _names_symptoms(held.group(1))):
            return False
    # round 82: a rule, what a bare symptom needs: "Chest pain with exertion, sweating or breathlessness needs emergency
    # care." ("Your chest pain needs emergency care" and "This needs emergency care now" are outright)
    if (needs := _NEEDS_LEAD_RE.fullmatch(text[start : match.start()])) and _names_symptoms(needs.group(1)) \
            and not _NOW_RE.search(text[match.start() : match.end() + len(rest)]):
        return False
    # round 54: "For chest pain when you exert yourself, or crushing pain that won't go, call 999"
    if (lead_for := _FOR_LEAD_RE.match(text[start : match.start()])) and _names_symptoms(lead_for.group(1)):
        return False
    # round 66: a clipped condition before a comma, then the call: "Exertional CP, or CP with SOB or diaphoresis, call
    # 911." ("Suspected heart attack, call 999 now" is outright)
    if (lead_comma := _COMMA_LEAD_RE.fullmatch(text[start : match.start()])) \
            and match.group(0).lower().startswith(("call ", "ring ", "dial ", "phone ")) \
            and _names_symptoms(lead_comma.group(1)) and not _STATEMENT_RE.match(lead_comma.group(1)) \
            and not _NOW_RE.search(clause_after):
        return False
    head = text[max(text.rfind(c, 0, match.start()) for c in ".!?\n;") + 1 : match.start()]
    # "Faint or worse pain: 999." is a condition and an action; "Low oxygen, fast pulse: emergency, admitted now."
    # states what is done now.
    # ... but "Exertional chest pain: emergency, straight away." tells where to go, at once, when that happens
    done_now = bool(_DONE_NOW_RE.match(match.group(0))) and bool(_NOW_RE.search(text[match.start() : match.end() + 40])) \
        and not _GO_AT_ONCE_RE.fullmatch(match.group(0))
    # ... unless what comes before the colon says it is an emergency ("This is a cardiac emergency: I'm ...");
    # a clipped condition ends with a dash as well as a colon ("Any chest pain with sweating - call 999")
    lead = _CLIP_RE.split(head, maxsplit=1)
    # ... and measured findings before the colon are the reason for what is done now: "Sats 91%, pulse 118: admit."
    # ("Sats below 90: admit" is a threshold, a condition)
    found = bool(_DONE_NOW_RE.match(match.group(0))) and _measured_findings(lead[0])
    if len(lead) > 1 and not _PLAN_HEAD_RE.match(head) and not _PLAN_TAIL_RE.search(lead[0]) and not done_now and not found \
            and not _EMERGENCY_RE.search(lead[0]) and not _DONE_LEAD_RE.search(lead[0]) \
            and (":" in head or _names_symptoms(lead[0])):
        return False
    if _CONDITIONAL_RE.search(clause_after) and (not _IMMEDIATE_RE.match(clause_after) or _NOW_IF_RE.match(clause_after)):
        return False
    if _COMMA_IF_RE.match(text[match.end():]):  # "come back sooner, or seek urgent help, if you get chest pain"
        return False
    if _SEND_RE.search(match.group(0)) and _FOR_CONDITION_RE.match(text[match.end():]):
        return False
    # the help as an aside to a heading, then what to look out for: "Warning signs (go straight to A&E): a
    # thunderclap headache, a stiff neck with fever"; "Call 999 now: suspected heart attack" is still outright
    listed = _HELP_THEN_LIST_RE.match(text[match.end():])
    line_end = text.find("\n", match.end())
    if not listed and not _NOW_RE.search(text[start : line_end if line_end >= 0 else len(text)]):  # not "Call 999 now:"
        listed = _HELP_HEADS_LIST_RE.match(text[match.end():]) or _HELP_HEADS_LINE_RE.match(text[match.end():])
    elif not listed and len(text[start : match.start()].split()) <= 2 and not match.group(0).rstrip().endswith(".") \
            and (line := _HELP_HEADS_LINE_RE.match(text[match.end():])) \
            and len(text[match.end() : match.end() + line.start(1)].split()) <= 3 \
            and len(signs := _comma_items(line.group(1))) >= 3 \
            and all(map(_a_sign, signs[:3])):
        # round 63: a clipped help over three signs or more is what to look out for: "Emerg right away: saddle numbness,
        # bladder or bowel change, leg weakness, fever." ("Call 999 now: suspected heart attack" is outright, and so is
        # "This is an emergency and we're treating it now: aspirin, a blood thinner, pain relief")
        listed = line
    if listed and _names_symptoms(re.split(r"[.!?\n;]", listed.group(1), maxsplit=1)[0]) \
            and (listed.re is not _HELP_HEADS_LINE_RE or _warning_signs(listed.group(1))):
        return False
    # keeping the patient in is done now; going to hospital may wait, so it needs a word of immediacy
    # (a hospital that is expecting the patient is expecting them now; a plan's step "Admission to hospital because
    # ..." admits them)
    if "hospital" in match.group(0).lower() and not _KEPT_IN_RE.match(match.group(0)) \
            and not _ADMISSION_STEP_RE.match(match.group(0)) \
            and not _STAYING_RE.match(match.group(0)) \
            and "expecting" not in match.group(0).lower() \
            and not (match.group(0).lower().startswith("stay") and (
                _NEED_TO_STAY_RE.search(text[start:match.start()])
                or (_YOU_WILL_RE.search(text[start:match.start()]) and not re.search(r"\bafter\b", text[start:match.start()],
                                                                                     re.IGNORECASE)))):
        return bool(re.search(r"\b(?:now|immediately|right away|straight away|urgently|today|tonight"
                              r"|straight\s+(?:up\s+|over\s+|in\s+)?(?:to|into|there))\b",
                              text[start : match.end() + len(rest)], re.IGNORECASE))
    return True


def _recommends_emergency(text: str, *, unconditional: bool = False) -> str | None:
    for match in _EMERGENCY_RE.finditer(text):
        before = text[max(0, match.start() - 60) : match.start()]
        if _NEGATION_RE.search(before) or _NEGATED_BEFORE_RE.search(before) \
                or _NEGATED_AFTER_RE.match(text, match.end()):
            continue
        if unconditional and not _unconditional(text, match):
            continue
        return match.group(0)
    return None


def _group_keys(groups: list[list[str]]) -> list[frozenset[str]]:
    return [frozenset().union(*(clinical.term_keys(t) for t in group)) for group in groups]


def _hits(keys: frozenset[str], groups: list[frozenset[str]]) -> int:
    return sum(1 for group in groups if keys & group)


_WITH_RE = re.compile(r"\b(?:with\b|w/)", re.IGNORECASE)
# The doctor speaking of themselves, unless reporting what they were told ("I hear you threw up blood this AM")
_FIRST_PERSON_RE = re.compile(
    r"\W*(?:(?:ok|okay|right|so|and|well)\W+)?(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|let me|let's)\b"
    r"(?!\s+(?:hear|know|see|gather|understand|note|read|am told|was told|'m told)\s+(?:that\s+)?"
    r"(?:you|he|she|they|your|his|her|their|the|mum|dad)\b)", re.IGNORECASE)
# a pronoun, or an open invitation to go on ("You said he's been forgetful. Tell me about the last six months")
_POINTS_BACK_RE = re.compile(r"\b(?:it|its|they|them|these|those|this|that|either|both|each)\b"
                             r"|\b(?:tell me|walk me through|take me through|describe)\b", re.IGNORECASE)


# A recap handed back to be confirmed asks all of it (round 51)
_CONFIRM_RE = re.compile(r"\W*(?:(?:so|and|ok|okay|right)\W+)?(?:(?:did|do)\s+i\s+(?:get|have)|have\s+i\s+got|is|was|am\s+i)\s+"
                         r"(?:that|this|it|all\s+(?:of\s+)?that|everything)\s+(?:right|correct|accurate)\b"
                         r"|\W*(?:is\s+that|that's|that\s+is)\s+(?:right|correct|accurate)\W*$", re.IGNORECASE)


def _told(sentence: str) -> frozenset[str]:
    """What a recap tells, not how, nor what came with it: "So sudden vertigo with N/V." tells the vertigo. A chart's
    opening names the patient before "w/" and the complaint after it: "63M w/ hematemesis." tells the haematemesis
    (round 57)."""
    head = _WITH_RE.split(sentence, maxsplit=1)[0]
    if not any(clinical.is_key(k) and not clinical.is_generic(k) for k in clinical.asked(head)):
        head = sentence
    return frozenset(k for k in clinical.asked(head) if not k.startswith(clinical.INTENT))


def _points_back(question: str, keys: frozenset[str], told: frozenset[str]) -> bool:
    """Whether ``question`` is about what was ``told`` just before it: a pronoun ("When did it start?"), an open
    invitation ("Tell me about ..."), nothing of its own beyond how it asks ("How long?"), or only what was told ("...
    N/V after eating. How long after meals?")."""
    own = {k for k in keys if clinical.is_key(k) and not k.startswith(clinical.INTENT) and not clinical.is_generic(k)}
    return bool(_POINTS_BACK_RE.search(question)) or own <= told


def _asks_about(check: AsksAbout, transcript: _Transcript) -> tuple[bool, str]:
    end = transcript.diagnosis_turn() if check.before_diagnosis else None
    limit = len(transcript.assistant) if end is None else end
    groups = _group_keys(check.groups)
    for turn, asked in zip(transcript.assistant[:limit], transcript.questions()[:limit], strict=True):
        if len(asked) > check.max_questions or len(turn.split()) > check.max_words:
            continue
        before: frozenset[str] = frozenset()
        told: frozenset[str] = frozenset()  # what the sentence just before said, when it was not a question
        recap: frozenset[str] = frozenset()  # all it said, intents too: what a question confirming it asks
        for sentence in (raw.strip() for raw in _SENTENCE_RE.findall(turn)):
            if sentence not in asked:
                recap = frozenset() if _FIRST_PERSON_RE.match(sentence) else clinical.asked(sentence)
                # what it tells, not how ("Sx since Monday." does not ask the onset), nor what came with it: in
                # "So sudden vertigo with N/V. Did it start as you lay down?" the question is about the vertigo. The
                # doctor speaking of themselves recaps nothing: "I understand how worrying this is. When did it start?"
                told = frozenset() if _FIRST_PERSON_RE.match(sentence) else _told(sentence)
                continue
            keys = clinical.asked(sentence)
            # a question and the one before it in the same turn ask about one thing together: a follow-up that points
            # back ("Any pain in her legs? Does it wake her at night?"), one that names nothing of its own ("How long
            # does he stop breathing? How often now?"), a pair ("Is he still drinking? Are his nappies wet?"); and a
            # question that points back to what the doctor has just recapped ("You said she had runny poo and was
            # sick after eating. How soon after food does it come on?")
            context = before | (told if _points_back(sentence, keys, told) else frozenset())
            if _CONFIRM_RE.match(sentence):  # "So: worse w/ activity, better w/ rest. Did I get that right?"
                context |= recap
            if _hits(clinical.compose(keys | context), groups) >= check.min_groups:
                return True, f"asked {sentence[:120]!r}"
            before, told = keys, frozenset()
    where = " before the diagnosis" if end is not None else ""
    return False, (f"no question about {[g[0] for g in check.groups]}{where} in a turn of at most "
                   f"{check.max_questions} questions and {check.max_words} words")


def _looks_for(check: LooksFor, transcript: _Transcript) -> tuple[bool, str]:
    tests = [clinical.read_order(t) for t in check.tests]
    # the sign itself named in an examination request is looked for: "REQUEST EXAM: pallor, petechiae, spleen"
    signs = {k for group in check.groups for k in group if clinical.is_sign_key(k)}
    for kind, order in transcript.orders():
        read = clinical.read_order(order, exam=kind == "exam")
        if clinical.EXAM in read.methods and (set(check.sites) & read.sites or signs.intersection(clinical.concepts(order))):
            return True, f"examines {order!r}"
        if any(clinical.names(read, test) for test in tests):
            return True, f"measures it: {order!r}"
    groups = _group_keys(check.groups)
    for turn in transcript.assistant:
        for raw in _SENTENCE_RE.findall(turn):
            keys = clinical.compose(clinical.asked(raw))
            if _hits(keys, groups) >= check.min_groups or keys & set(check.tests):
                return True, f"looks for it: {raw.strip()[:120]!r}"
    return False, f"neither asks about, names nor examines for {[g[0] for g in check.groups]}"


def _irrelevant(questions: list[str], relevant: frozenset[str]) -> list[str]:
    """Questions about nothing in the case's vocabulary (an intent such as "when did it start?" is
    always relevant; a generic word such as "pain" relates nothing)."""
    out = []
    for question in questions:
        keys = clinical.asked(question)
        if any(k.startswith(clinical.INTENT) for k in keys):
            continue
        specific = {k for k in keys if not clinical.is_generic(k)}
        # A question of generic words only ("Pain?", "Any more since?") follows up the topic in hand: it
        # is counted in the turn and in all, but it is not about something else.
        if specific and not specific & relevant:
            out.append(question)
    return out


def _ordered_names(check: OrderedTest, transcript: _Transcript) -> str | None:
    wanted = [clinical.read_order(t) for t in check.tests]
    together: list[str] = []
    held: set[str] = set()
    # a panel the check asks for, and the orders that name its parts one by one ("PT, aPTT, thrombin time,
    # fibrinogen" is the coagulation screen)
    panels = {p: parts for target in wanted for p in target.tests if (parts := clinical.parts_of(p))}
    parts_named: dict[str, str] = {}
    for kind, whole in transcript.orders():
        for name in _order_readings(whole):
            order = clinical.read_order(name, exam=kind == "exam")
            # An order that names the test is credited where the environment answers it: where the case holds the
            # test's results, the order must name one of them ("electrolytes" for a U&E that holds only the urea
            # and creatinine is answered "not available", so it is not credited either)
            if any(clinical.names(order, target) for target in wanted) \
                    and (not check.holds or clinical.resolve(name, check.holds, exam=kind == "exam").named):
                return name
            for test in order.tests if panels else ():
                parts_named.setdefault(test, name)
            if check.holds:
                named = set(clinical.resolve(name, check.holds, exam=kind == "exam").named)
                if named == set(check.holds):
                    return name
                if named - held:
                    together.append(name)
                    held |= named
    # The results of one group may be ordered in several lines ("BMP" and "LFTs" for a chemistry panel), and a
    # group of several results is ordered when most of them are, in the clinician's own panels ("U&Es, glucose,
    # calcium" for a basic metabolic panel that also holds the chloride and bicarbonate).
    if check.holds and (held == set(check.holds)
                        or (len(check.holds) >= MOST_OF_GROUP_MIN and len(held) >= MOST_OF_GROUP * len(check.holds))):
        return " + ".join(together)
    # A panel ordered part by part: all of it, most of four or more, or the core the data names ("PT, APTT" is the
    # coagulation screen; "PT, thrombin time" is not)
    for panel, parts in panels.items():
        named = parts & set(parts_named)
        core = clinical.core_of(panel)
        if named == parts or (len(parts) >= MOST_OF_GROUP_MIN and len(named) >= MOST_OF_GROUP * len(parts)) \
                or (core and core <= named):
            return " + ".join(dict.fromkeys(parts_named[t] for t in sorted(named)))
    return None


def _order_readings(name: str) -> list[str]:
    """What one order line may name: itself; a long one up to its purpose ("skin biopsy from the ulcer edge for
    histology and culture"), and the purpose where it names the test ("skin biopsy next to a blister for direct
    immunofluorescence"). A bracketed aside may clarify a test ("(front and frog-leg views)"), and so may what
    follows a colon ("arthrocentesis R 1st MTP: crystal analysis under polarised light")."""
    if len(name.split()) <= MAX_ORDER_WORDS:
        return [name]
    pieces = [p.strip() for p in _PURPOSE_RE.split(_ASIDE_RE.sub(" ", name).split(":")[0])]
    # and one of two pieces joined by "and" ("examination of the right big toe joint and both feet"); more are a list
    pieces += [a.strip() for p in pieces if len(p.split()) > MAX_ORDER_WORDS and len(_AND_RE.split(p)) == 2
               for a in _AND_RE.split(p)]
    readings = list(dict.fromkeys(p for p in pieces if p and len(p.split()) <= MAX_ORDER_WORDS))
    # one study described at length ("X-ray pelvis AP and frog-leg lateral of both hips"): one method, no test
    whole = clinical.read_order(_ASIDE_RE.sub(" ", name))
    if len(whole.methods) == 1 and not whole.tests and len(name.split()) <= 2 * MAX_ORDER_WORDS:
        readings.append(_ASIDE_RE.sub(" ", name).strip())
    # an aside that names only where or how ("Left shoulder X-ray (AP, axillary and scapular Y views)") is part of the
    # test: read with it; one that names tests is a list packed into brackets, and names nothing
    asides = " ".join(_ASIDE_RE.findall(name))
    if readings and asides and not clinical.read_order(asides).tests:
        readings.append(f"{readings[0]} {asides}")
    return readings


# Words that share the noun after them when joined by "and": "MRI cervical and thoracic spine", "AP and lateral views",
# "CT with and without contrast" are one study, not two.
_SHARED_HEAD_RE = re.compile(
    r"\b(?:cervical|thoracic|lumbar|sacral|left|right|upper|lower|anterior|posterior|proximal|distal|medial|lateral|ap|"
    r"pa|oblique|flexion|extension|inspiratory|expiratory|w/|with)\s+and\s+(?=(?:cervical|thoracic|lumbar|sacral|left|"
    r"right|upper|lower|anterior|posterior|proximal|distal|medial|lateral|ap|pa|oblique|flexion|extension|inspiratory|"
    r"expiratory|w/o|without)\b)", re.IGNORECASE)


def _order_parts(order: str, indicated: list[str]) -> list[str]:
    """The tests one order line names, split at "and" outside brackets ("MRI of the whole spine (cervical and
    thoracic) and craniocervical junction") and outside a shared head ("MRI cervical and thoracic spine"). A long
    order whose study the case holds is read up to its purpose, as it is credited (``_order_readings``): "Skin biopsy
    from the ulcer edge for histology and culture" is the biopsy, and how its sample is sent."""
    if len(order.split()) > MAX_ORDER_WORDS:
        head = _PURPOSE_RE.split(order, maxsplit=1)[0].strip()
        if head != order and clinical.resolve(_ASIDE_RE.sub(" ", head), indicated).labels:
            order = head
    def keep(match: re.Match[str]) -> str:  # "and" that joins nothing to split
        return re.sub(r"\s+(?:and|plus|with)\s+", " & ", match.group(0), flags=re.IGNORECASE)

    joined = _ASIDE_RE.sub(keep, _SHARED_HEAD_RE.sub(keep, order))
    return [part.replace(" & ", " and ") for part in clinical.carry_method(_AND_RE.split(joined))]


def _tests_ordered(check: UnindicatedTests, transcript: _Transcript) -> tuple[int, list[str]]:
    """How many distinct tests were ordered (examinations left out; indicated orders counted by the results
    they name, so "FBC, CBC, full blood count" is one test) and the tests matching no indicated name (the parts of
    one panel ordered one by one, "LH, FSH, estradiol", are one test)."""
    seen: set[str] = set()
    indicated: set[frozenset[str]] = set()
    panels: dict[str, list[str]] = {}
    listed: set[str] = set()  # the tests the screen just ordered lists in brackets: they follow as orders of their own
    for kind, order in transcript.orders():
        if kind == "exam" or clinical.is_exam(order):
            continue
        # a test named inside a screen's brackets ("Viral hepatitis screen (hepatitis A IgM, ...)") is a part of the
        # screen: credited where the case holds it, never another unindicated test
        inside = order.lower() in listed
        if asides := _ASIDE_RE.findall(order):
            listed = {part.strip().lower() for part in asides[-1].strip("()").split(",")}
        elif not inside:
            listed = set()
        if inside:
            if labels := clinical.resolve(order, check.indicated).labels:
                indicated.add(frozenset(labels))
            continue
        whole = clinical.resolve(order, check.indicated).labels
        split_up = not whole or len(order.split()) > MAX_ORDER_WORDS  # a list, or a name the case does not hold
        parts = _order_parts(order, check.indicated) if split_up else [order]
        for name in parts:
            if name.lower() in seen:
                continue
            seen.add(name.lower())
            labels = clinical.resolve(name, check.indicated).labels
            if labels:
                indicated.add(frozenset(labels))
            elif clinical.read_order(name).unread:
                continue  # words the layer cannot read as a test ("with counselling and consent", "B"): not judged
            elif check.exempt_routine and clinical.is_routine(name):
                indicated.add(frozenset({name.lower()}))
            else:
                panels.setdefault(clinical.panel_key(name), []).append(name.lower())
    unindicated = [" + ".join(names) for names in panels.values()]
    return len(indicated) + len(unindicated), unindicated


def _unindicated(check: UnindicatedTests, transcript: _Transcript) -> list[str]:
    return _tests_ordered(check, transcript)[1]


def _decide_consultation(check: object, transcript: _Transcript) -> tuple[bool, str] | None:
    """The checks about a whole consultation's conduct; None for the other kinds."""
    if isinstance(check, AsksAbout):
        return _asks_about(check, transcript)
    if isinstance(check, LooksFor):
        return _looks_for(check, transcript)
    if isinstance(check, QuestionBarrage):
        asked = transcript.history_questions()
        counts = [len(q) for q in asked]
        total, most = sum(counts), max(counts, default=0)
        irrelevant: list[str] = []
        if check.max_irrelevant is not None:
            relevant = frozenset().union(*(clinical.term_keys(t) for t in check.relevant))
            irrelevant = _irrelevant([q for turn in asked for q in turn], relevant)
        met = most > check.max_per_turn or total > check.max_total or (
            check.max_irrelevant is not None and len(irrelevant) > check.max_irrelevant)
        return met, (f"{total} questions, at most {most} in one turn, {len(irrelevant)} about nothing in the case"
                     + (f" (e.g. {irrelevant[0][:80]!r})" if irrelevant else ""))
    if isinstance(check, DiagnosisMisses):
        if transcript.diagnosis_turn() is None:
            return check.unstated, "no final diagnosis stated"
        match = transcript.diagnosis(tuple(check.synonyms), tuple(check.others))
        return not match.matched, match.reason
    if isinstance(check, ManyDiagnoses):
        match = transcript.diagnosis(tuple(check.synonyms), tuple(check.others))
        named = conditions_weighed(transcript.text("assistant"), check.synonyms, check.others)
        if match.statement is not None and (match.statement.listed or "different diagnoses" in match.reason):
            return True, match.reason
        return len(named) > check.max_conditions, f"names {len(named)} conditions (at most {check.max_conditions})"
    if isinstance(check, Differential):
        if not transcript.single_diagnosis():
            return False, "no single final diagnosis to weigh a differential against"
        # A list is what the doctor states: the conditions asked about in the history ("Any asthma, stroke, hernia
        # or kidney disease?") are the history. Past the cap with them, the differential must be stated, not asked
        # about, so that a question naming thirty conditions does not consider whichever the case weighs.
        stated = "\n".join(s for turn, asked in zip(transcript.assistant, transcript.questions(), strict=True)
                            for s in _SENTENCE_RE.findall(turn) if s.strip() and s.strip() not in asked)
        named = _one_per_condition(conditions_named(stated, check.synonyms, check.terms), check.conditions)
        if len(named) > check.max_conditions:
            return False, f"names {len(named)} conditions: a list, not a differential"
        everywhere = transcript.text("assistant")
        many = len(_one_per_condition(conditions_named(everywhere, check.synonyms, check.terms),
                                      check.conditions)) > check.max_conditions
        hit = clinical.mentions(stated if many else everywhere, check.terms)
        return hit is not None, f"considers {hit!r}" if hit else f"mentions none of {check.terms[:6]}"
    if isinstance(check, UnindicatedTests):
        ordered, unindicated = _tests_ordered(check, transcript)
        met = len(unindicated) > check.tolerance and (
            check.max_share is None or len(unindicated) > check.max_share * ordered)
        return met, (f"{len(unindicated)} of {ordered} tests ordered unindicated (tolerance {check.tolerance}"
                     + ("" if check.max_share is None else f", share {check.max_share:g}") + f"): {unindicated[:6]}")
    return None


def _one_per_condition(named: list[str], conditions: list[list[str]]) -> list[str]:
    """``named`` (condition ids) with the names of one differential condition counted once."""
    group = {name: f"condition:{index}" for index, names in enumerate(conditions) for name in names}
    return list(dict.fromkeys(group.get(cid.removeprefix("other:"), cid) if cid.startswith("other:") else cid
                              for cid in named))


def decide(check: Check, transcript: _Transcript) -> tuple[bool, str]:
    """Decide one check; returns (met, explanation)."""
    if check.requires_diagnosis and not transcript.single_diagnosis():
        return False, "no single, specific final diagnosis was stated"
    if check.for_diagnosis and not transcript.diagnosis(tuple(check.for_diagnosis)).matched:
        return False, "the plan is for another diagnosis than the case's"
    consultation = _decide_consultation(check, transcript)
    if consultation is not None:
        return consultation
    if isinstance(check, MentionsAny):
        text = transcript.text(check.scope)
        if check.unless:
            text = _user_regex(check.unless, True).sub(" ", text)
        hit = _mentions_any(text, check.terms)
        if hit is None and check.or_ordered \
                and (ordered := _ordered_names(OrderedTest(tests=check.or_ordered), transcript)) is not None:
            return True, f"assessed at this visit: ordered {ordered!r}"
        return (hit is not None, f"mentions {hit!r}" if hit else f"mentions none of {check.terms}")
    if isinstance(check, MentionsAll):
        text = transcript.text(check.scope)
        missing = [t for t in check.terms if _mentions_any(text, [t]) is None]
        return (not missing, "mentions all terms" if not missing else f"does not mention {missing}")
    if isinstance(check, NotMentions):
        hit = _mentions_any(transcript.text(check.scope), check.terms)
        return (hit is None, f"mentions {hit!r}" if hit else f"avoids all of {check.terms}")
    if isinstance(check, RegexCheck):
        match = _user_regex(check.pattern, check.ignore_case).search(transcript.text(check.scope))
        return (match is not None, f"matches {match.group(0)!r}" if match else "no match for the pattern")
    if isinstance(check, AskedBeforeDiagnosis):
        end = transcript.diagnosis_turn()
        turns = transcript.assistant if end is None else transcript.assistant[:end]
        for turn in turns:
            hit = _mentions_any(turn, check.terms)
            if hit:
                return True, f"asked about {hit!r} before the diagnosis"
        where = "before the diagnosis" if end is not None else "(no DIAGNOSIS: marker)"
        return False, f"never asked about any of {check.terms} {where}"
    if isinstance(check, DiagnosisMatches):
        if transcript.diagnosis_turn() is not None:
            match = transcript.diagnosis(tuple(check.synonyms), tuple(check.others))
            return match.matched, match.reason
        # No marker: the response itself may be the answer, if it names one condition and it is right.
        response = transcript.text("response")
        named = conditions_named(response, check.synonyms, check.others)
        if len(named) > 1:
            return False, f"no DIAGNOSIS: line; the response names {len(named)} conditions"
        for sentence in _SENTENCE_RE.findall(response):
            match = match_diagnosis(sentence, check.synonyms, others=check.others, conditions=clinical.condition_lines())
            if match.matched:
                return True, f"no marker; the response states {match.statement.head if match.statement else sentence!r}"
        return False, "no diagnosis stated"
    if isinstance(check, OrderedTest):
        ordered = _ordered_names(check, transcript)
        if ordered is not None:
            return True, f"ordered {ordered!r}"
        if check.allow_mention:
            hit = _mentions_any(transcript.text("assistant"), check.tests)
            if hit:
                return True, f"mentions the test {hit!r}"
        return False, f"did not order any of {check.tests}"
    if isinstance(check, RecommendsEmergency):
        hit = _recommends_emergency(transcript.text(check.scope), unconditional=check.unconditional)
        kind = "unconditional " if check.unconditional else ""
        return (hit is not None, f"recommends emergency care ({hit!r})" if hit else f"no {kind}emergency referral")
    if isinstance(check, WordLimit):
        words_n = len(transcript.text(check.scope).split())
        ok = (check.max_words is None or words_n <= check.max_words) and (
            check.min_words is None or words_n >= check.min_words
        )
        return ok, f"{words_n} words (limits {check.min_words}..{check.max_words})"
    raise TypeError(f"unknown check type {type(check).__name__}")


def unindicated_orders(conversation: list[Message], check: UnindicatedTests) -> list[str]:
    """The orders of ``conversation`` that ``check`` counts as unindicated tests."""
    return _unindicated(check, _Transcript(conversation))


def final_diagnosis_named(conversation: list[Message], names: list[str]) -> bool:
    """Whether the consultation's final ``DIAGNOSIS:`` statement names one of ``names``."""
    return _Transcript(conversation).diagnosis(tuple(names)).matched


# A result that rules something out ("No haemorrhage, early loss of grey-white differentiation") shows no condition
_RULED_OUT_RE = re.compile(r"\b(?:no|not|non|negative|normal|without|absent|unremarkable|excluded|ruled out)\b", re.IGNORECASE)


def diagnosis_background(case: Case) -> list[str]:
    """What the patient has besides the answer, named beside it as context and not as a second diagnosis: the record's
    past history ("PML, advanced HIV") and what its results show ("Acute left MCA ischaemic stroke, AF off
    anticoagulation" where the ECG shows atrial fibrillation, round 96). A result that names the answer or its differential
    ("Lesions consistent with PML") is no background: beside the answer, what it names would be read as context."""
    named = [f" {' '.join(words(n))} " for n in clinical.diagnosis_names([case.final_diagnosis, *case.diagnosis_synonyms,
                                                                           *case.differential])]
    shown = [value for value in case.test_results.values() if not _RULED_OUT_RE.search(value)
             and not any(n in f" {' '.join(words(value))} " for n in named if n.strip())]
    return [*case.past_medical_history, *shown]


def final_diagnosis_match(conversation: list[Message], case: Case) -> Match:
    """The consultation's final ``DIAGNOSIS:`` statement matched against ``case`` — exactly what the
    case rubric's accuracy item decides (the consultation eval's diagnostic accuracy uses it)."""
    synonyms = tuple(clinical.diagnosis_names([case.final_diagnosis, *case.diagnosis_synonyms]))
    return _Transcript(conversation, background=tuple(diagnosis_background(case))).diagnosis(synonyms,
                                                                                           tuple(case.differential))


class RuleGrader:
    """Decides items that carry a ``check``; returns ``met=None`` for the others."""

    name = RULE

    def grade_sync(self, conversation: list[Message], items: list[RubricItem]) -> list[CriterionResult]:
        named = next((i.check for i in items if isinstance(i.check, DiagnosisMatches)), None)
        transcript = _Transcript(conversation, ((tuple(named.synonyms), tuple(named.others)) if named else ((), ())),
                                 tuple(named.background) if named else ())
        results: list[CriterionResult] = []
        for item in items:
            if item.check is None:
                met: bool | None = None
                explanation = "no machine check on this item"
            else:
                met, explanation = decide(item.check, transcript)
            results.append(
                CriterionResult(
                    criterion=item.criterion,
                    points=item.points,
                    tags=list(item.tags),
                    met=met,
                    explanation=explanation,
                    grader=RULE,
                )
            )
        return results

    async def grade(
        self, conversation: list[Message], items: list[RubricItem], *, case: Case | None = None
    ) -> list[CriterionResult]:
        results = self.grade_sync(conversation, items)
        unscored = sum(1 for r in results if r.met is None)
        if unscored:
            logger.debug("rule grader: %d of %d items have no check (unscored)", unscored, len(results))
        return results
