"""Jobs named in passing: how people speak of their work in a chat without saying
"I work at".

The speaker's own job, read anywhere in their sentence (the rule extractor has
written "I" as the speaker's name):

* *current*, in passing: "four years at Kestrel", "two weeks into Brightwater",
  "my manager at Kestrel", "my team at Acme", "I'm on 46k at Kestrel",
  "between night shifts at Kestrel" (a shift is work: the name may also be a
  town's);
* *start*, an offer accepted: "Brightwater offered me the analytics lead job
  and I said yes", "I accepted the offer from Acme", "said yes to Initech's
  offer", "I said yes to Acme, I'm teaching there from May" (a yes to a name
  in a sentence about work), "my first day at Acme", the news told as a list:
  "Acme, data analyst, starting 4 March";
* *end*, leaving: "my last day at Kestrel is Friday", "I handed in my notice
  at Acme", "gave notice at Acme", "handing my notice in" (the current job,
  unnamed);
* *promotion*: "I got the promotion", "Acme promoted me to lead", "I was
  promoted to senior analyst" -- a new title at the current job, no new job.

Never a job: an application, an interview, a recruiter's call, an offer not
(yet) accepted or turned down ("turned Fernhill down"), someone else's work
("Tom's two years at Google"), a place ("three months at Lake Como": the
gazetteer knows it).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...caches import BoundedCache
from ...extract.places import is_place
from . import patterns as p

if TYPE_CHECKING:
    from ...dates import Period
    from ...facts.model import Fact


@dataclass(frozen=True)
class Mention:
    employer: str | None
    role: str | None
    #: start, current, end, promotion, or mention (a name only: no job)
    event: str
    #: the day a promotion takes effect, told after its title ("promoted to supervisor from 1st September")
    since: "Period | None" = None


#: the last word of a job's title ("research assistant", "GIS analyst", "junior developer")
_TITLE_NOUN = (
    r"(?:analyst|assistant|engineer|developer|teacher|nurse|manager|designer|tutor|coordinator|officer|consultant|"
    r"researcher|scientist|intern|lecturer|editor|accountant|architect|administrator|technician|specialist|advis[eo]r|"
    r"associate|director|writer|producer|planner|paralegal|pharmacist|therapist|librarian|barista|chef|clerk|"
    r"programmer|surveyor|curator|counsell?or|instructor|receptionist|strategist|principal|supervisor|foreman|"
    r"electrician|plumber|mechanic|paramedic|physio|physiotherapist|dentist|hygienist|pilot|driver|cook)"
)
_PROMOTED_ROLE = (
    rf"(?P<role>(?:[A-Z][\w-]*\s+){{0,3}}(?i:{_TITLE_NOUN}|lead|head|partner|leader|supervisor)(?![\w-])"
    r"|[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
)
#: a title at a name, told alone as a sentence: "research assistant at SeaWatch Trust, the kelp project!!"
_TITLED = rf"(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,3}}?{_TITLE_NOUN}))"

#: words without which none of these rules can match (a cheap first look)
CUE = re.compile(
    rf"\b(?:applied|interview\w*|recruiter|job|role|position|years?|months?|weeks?|days?|manager|boss|team|colleagues?|"
    r"office|salary|offer\w*|notice|promot\w*|shifts?|said\s+yes|start\w*|begin\w*|made|wk|"
    r"(?:is|am)\s+(?:now\s+)?(?:the|a|an)\s+[\w\s-]{0,30}?\s+(?:at|with|now|na)|(?:is|am)\s+now\s+(?:the|a|an)|been\s+\w+ing\s+(?:at|for|with)|"
    rf"{_TITLE_NOUN}\s+at)\b|\bon\s+[£$€]?\d",
    re.I,
)

_ORG = r"(?P<org>(?:[A-Z][\w&'’.-]*[\w&]|[A-Z]{2,})(?:\s+(?:of\s+|&\s+)?[A-Z][\w&'’.-]*[\w&])*)"
_ROLE = r"(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
#: a title a promotion gives, in lower case or in capitals where a title's word ends it ("Associate Producer",
#: "Senior Finance Manager", "QA Lead")
_SPAN = r"(?:(?:nearly|almost|over|about|just\s+over|just\s+under)\s+)?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a\s+few|a\s+couple\s+of|several)"
#: a chat's opening word before the news ("ok two weeks at Acme and ...")
_OPENER = r"(?:(?i:ok|okay|so|well|wow|honestly|already)\s+)?"
_WORKPLACE = r"(?:manager|boss|team|colleagues?|coworkers?|office|salary|contract|desk|department|line\s+manager)"


#: what follows a start at a name when it is a job's: a date, a day, "as" a role, or the clause's end (the
#: date written out of the plain text: "start at Lintas 1 July")
_DATE_AFTER = (
    r"(?:on\s+|in\s+|from\s+)?(?:\d|next\b|the\s+\d|(?i:mon|tues|wednes|thurs|fri)day\b|(?i:january|february|march|"
    r"april|may|june|july|august|september|october|november|december)\b)|as\s+(?:an?\s+)?[a-z]"
)
#: a day told as a promotion's start: a number, a weekday, a month, "next ..." (the plain text has lost the dates
#: the extractor resolved: "From 1 march I'm project lead" reads "From Sam is project lead")
_A_DAY = (
    r"(?:(?:the\s+)?[0-3]?\d(?:st|nd|rd|th)?\b|(?i:next|this)\s+\w+|(?i:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
    r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\s+[0-3]?\d\b|(?i:january|february|april|june|july|august|september|october|november|december)\b)"
)
#: titles a promotion makes someone ("made principal", "made partner", "made leading hand")
_RANK = r"(?:principal|partner|senior|lead|head|manager|director|associate|supervisor|VP|chief|captain|foreman|leading\s+hand|charge\s+nurse)"

#: words of a sentence about work, beside a yes to a name ("said yes to Acme, teaching there in May")
_WORK_WORDS = r"(?:teach\w*|job|role|position|offer|contract|instructor|lecturer|hired|shifts?|salary|start(?:s|ing)\s+(?:on|in|at|from|next))"
#: not about the speaker: another person's, his, her
_NOT_MINE = r"(?:(?!" + p.CAPITALISED + r"['’]s\b|\b(?:his|her|their)\b)[^.;])"
#: the name may also be a place's when the rule itself says work ("shifts at Lakeside")
WORKPLACE_EVENTS = ("shift", "notice", "titled")


def _rules(person: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    me = re.escape(person)
    mine = rf"{me}['’]s"
    table = (
        (rf"\b{mine}\s+last\s+day\s+(?:at|with)\s+{_ORG}", "end"),
        (
            rf"(?:\b{me}\s+(?:has\s+|had\s+|is\s+)?|^{_OPENER}(?:(?i:just|finally|officially)\s+)?)(?i:handed|handing|hands|handed\s+in|is\s+handing)\s+(?:in\s+)?{mine}\s+notice(?:\s+in)?(?:\s+(?:at|to)\s+{_ORG})?",
            "end",
        ),
        # "Kim has been offered a position at Ahus and Kim accepted"
        (
            rf"\b{me}\s+(?:has\s+been|have\s+been|was|got|were)\s+offered\s+(?:the|a|an)\s+(?:(?:new\s+)?{_ROLE}\s+)?(?:job|role|position|post)\s+"
            rf"(?:at|with)\s+{_ORG}[^.;]*?\band\s+(?:{me}\s+)?(?:has\s+)?(?:accepted|said\s+yes|took\s+it)\b",
            "start",
        ),
        # "Kim is the sous chef at Bell Street now", "Kim is now a staff nurse at Ahus"
        (
            rf"\b{me}\s+(?:is|am)\s+(?:now\s+)?(?:the|a|an)\s+(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,2}}?(?:{_TITLE_NOUN}|cook|physio|nurse)))\s+(?:at|with)\s+{_ORG}",
            "current",
        ),
        # "Kim has been teaching at Scoil Mhuire for six years"
        (
            rf"\b{me}\s+(?:has|have)\s+been\s+(?:teaching|working|nursing|cooking|lecturing)\s+(?:at|for|with)\s+{_ORG}\s+for\s+(?i:{_SPAN})\s+(?i:years?|months?)\b",
            "current",
        ),
        (
            rf"\b{me}\s+(?:has\s+|have\s+)?(?:gave|given|giving|put|puts|putting)\s+(?:in\s+)?(?:{mine}\s+)?notice\s+(?:in\s+)?(?:at|to)\s+{_ORG}",
            "notice",
        ),
        (
            rf"^{me}\s+(?!said\b){_NOT_MINE}*?\b(?:\d+[- ]hour\s+|night\s+|day\s+|late\s+|early\s+|double\s+|long\s+|weekend\s+)?shifts?\s+(?:at|in)\s+{_ORG}",
            "shift",
        ),
        (rf"\b{me}\s+(?:said\s+yes|agreed)\s+to\s+{_ORG}(?=[,.;!]?\s[^.]*\b{_WORK_WORDS}\b)", "start"),
        (
            rf"^{_ORG},\s+(?:(?:as\s+)?(?:an?\s+)?(?:{_ROLE}|(?P<role2>(?:[A-Z][\w-]*\s+){{0,3}}(?i:{_TITLE_NOUN}))),\s+)?(?:starting|start(?=\s*[.;!]|\s*$|\s+(?:on\s+|in\s+|from\s+)?(?:\d|the\b|next\b|monday|tuesday|wednesday|thursday|friday|january|february|march|april|may|june|july|august|september|october|november|december))|{me}\s+starts?|start\s+date)\b",
            "start",
        ),
        (rf"\b{mine}\s+first\s+day\s+(?:at|with)\s+{_ORG}", "start"),
        # "last day at Halcyon 13 June, start at Lintas 1 July", "I start at Acme on Monday as a tester"
        (
            rf"(?:^{_OPENER}|[,;:]\s+(?:(?i:and|then)\s+)?|\b{me}\s+(?:will\s+|(?:is|am)\s+going\s+to\s+)?)"
            rf"(?i:start|starts|starting|begin|begins|beginning)\s+(?:at|with)\s+{_ORG}(?=\s+(?:{_DATE_AFTER})|\s*(?:[.;!]|$))",
            "start",
        ),
        # "Last day at SeaWatch is the 28th", "first day at Acme tomorrow": chat drops the "my"
        (rf"^{_OPENER}(?:(?i:and|also|then)\s+)?(?i:last|final)\s+day\s+(?:at|with)\s+{_ORG}", "end"),
        (rf"^{_OPENER}(?:(?i:and|also|then)\s+)?(?i:first)\s+day\s+(?:at|with)\s+{_ORG}", "start"),
        (
            rf"\b{_ORG}\s+offered\s+{me}\s+(?:the|a|an)\s+(?:(?:new\s+)?{_ROLE}\s+)?(?:job|role|position)\b[^.;]*?\band\s+{me}\s+(?:said\s+yes|accepted|took\s+it)",
            "start",
        ),
        (
            rf"\b{me}\s+(?:accepted|said\s+yes\s+to|took)\s+(?:the\s+)?(?:job\s+)?offer\s+(?:from|at|with)\s+{_ORG}",
            "start",
        ),
        # "Marina Crest offered me Staff Nurse in the ER!!!", "... offered me the lead role, starting in May": an
        # offer cheered or dated is taken (one turned down says so: "turned Fernhill down")
        (
            rf"\b{_ORG}\s+offered\s+{me}\s+(?:the\s+|a\s+|an\s+)?(?P<role>[\w-]+(?:\s+[\w-]+){{0,5}}?)"
            # "offered me contracts manager, 78k, start date nov 17": the pay told between
            rf"(?=\s*!|(?:,\s*(?:[A-Z]{{0,3}}[$£€₹]?\s?\d[\d.,]*\s?k?|[$£€₹]\d[\d.,]*\s?k?)(?:\s+(?:a\s+year|base|salary|plus\s+\w+))?)?,?\s+(?:starting|start\s+date|from\s+the\s+\d|start(?=\s+(?:on\s+)?the\b)|and\s+{me}\s+(?:said\s+yes|accepted|took\s+it))\b)",
            "start",
        ),
        # "my boss called me in Monday and offered me supervising pharmacist from October": a new title there
        (
            rf"\b{mine}\s+(?:boss|manager|line\s+manager|area\s+manager|director)\b[^.;!?]{{0,40}}?\boffered\s+{me}\s+(?:the\s+|a\s+)?"
            rf"(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,2}}(?:{_RANK}|{_TITLE_NOUN})))(?:\s+(?i:role|job|position|post))?(?=\s+(?:from|starting)\b)",
            "promotion",
        ),
        # "galway rang friday evening, deputy principal in Coláiste Ard Mhuire, start date monday 25th of august"
        (
            rf"(?:^|[,;:]\s+){_TITLED}\s+(?:in|at|with)\s+{_ORG},?\s+(?:starting|start\s+date|from\s+(?:the\s+)?\d)\b",
            "start",
        ),
        # "Head of Geography at Llandaff Vale High School, starting 1st September.": the news, a rank of a field
        (
            rf"^{_OPENER}(?P<role>(?:(?i:deputy|assistant|acting)\s+)?(?i:head|director|chief|lead|manager)\s+of\s+"
            rf"(?-i:[A-Z][\w-]*)(?:\s+(?:and\s+)?(?-i:[A-Z][\w-]*)){{0,2}})\s+(?:in|at|with)\s+{_ORG},?\s+"
            rf"(?:starting|start\s+date|from\s+(?:the\s+)?\d)\b",
            "start",
        ),
        # "Senior Lecturer in Early Modern History, York, starting 1st September": the news told as a list,
        # the title first (the employer may be named by its town)
        (
            rf"^(?P<role>(?=[^,]*\b(?i:{_TITLE_NOUN})\b)(?-i:[A-Z][\w-]*)(?:\s+(?:(?-i:[A-Z][\w-]*)|in|of|and|for)){{1,7}}),\s+"
            rf"(?![^,]*\b(?i:{_TITLE_NOUN})\b){_ORG},\s+(?:starting|start\s+date|from)\b",
            "titled",
        ),
        (rf"\b{me}\s+(?:accepted|said\s+yes\s+to|took)\s+{_ORG}['’]s\s+(?:job\s+)?offer", "start"),
        (
            rf"(?:\b{me}\s+(?i:was|got|has\s+(?:just\s+)?been|have\s+been|is\s+being|is\s+getting|will\s+be|is\s+going\s+to\s+be)\s+|^{_OPENER}(?:(?i:big\s+)?(?i:news|update)\s*[:!-]+\s*)?)(?i:promoted)\s+to\s+"
            rf"{_PROMOTED_ROLE}(?=\s+(?:at|in|on|from|with|after|today|yesterday|last|this|starting)\b|[,.;!]|$)",
            "promotion",
        ),
        (
            rf"\b{_ORG}\s+promoted\s+{me}\s+to\s+{_PROMOTED_ROLE}(?=\s+(?:at|in|on|from|with|after|today|yesterday|last|this|starting)\b|[,.;!]|$)",
            "promotion",
        ),
        # "from January 1st my title is Senior Finance Manager": a new title where the speaker works
        (
            rf"\b{mine}\s+(?:new\s+)?(?:job\s+)?title\s+(?:is|will\s+be|becomes)\s+(?:now\s+)?{_PROMOTED_ROLE}(?=\s+(?:at|from|with|starting)\b|[,.;!]|$)",
            "promotion",
        ),
        (
            rf"\b(?:{me}\s+(?:finally\s+)?got|{_ORG}\s+(?:came\s+back\s+with|gave\s+{me}))\s+(?:the|a|{mine})\s+promotion\b",
            "promotion",
        ),
        # "I got promoted!!!!! team lead, it started last Monday", "mobile team lead since monday": the title
        # told alone after the news, as a sentence of its own, with when it began
        (
            rf"^(?:{_OPENER}(?:(?i:and\s+|big\s+)?(?i:news|update)\s*[:!-]+\s*)?)?"
            rf"(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,2}}?(?:{_RANK}|{_TITLE_NOUN})))"
            rf"(?=\s*,?\s+(?:(?i:it\s+started|since|as\s+of|starting|effective)\b|(?i:from)(?:\s+{_A_DAY}|\s*(?:[!.,;]|$))))",
            "promotion",
        ),
        # "I'm a charge nurse now!!", "I'm now the team lead": a new title where the speaker works
        (
            rf"\b{me}\s+(?i:is|am)\s+(?:(?i:now)\s+(?:(?i:officially)\s+)?(?i:a|an|the)\s+(?:(?i:new)\s+)?"
            rf"(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,2}}?(?:{_RANK}|{_TITLE_NOUN})))(?=[\s,.;!(]|$)"
            rf"|(?:(?i:officially)\s+)?(?i:a|an|the)\s+(?:(?i:new)\s+)?"
            rf"(?P<role2>(?i:(?:[a-z][\w-]*\s+){{0,2}}?(?:{_RANK}|{_TITLE_NOUN})))(?=\s+(?i:now|na)\b))",
            "promotion",
        ),
        # "From 1 march I'm project lead", "from Monday I'll be the new head of year": a new title from a day
        (
            rf"^{_OPENER}(?i:from|starting|as\s+of)(?:\s+{_A_DAY}[^,;.]{{0,12}}?)?,?\s+{me}\s+(?:is|will\s+be|becomes)\s+(?:(?:the|a|an)\s+)?(?:new\s+)?"
            rf"(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,2}}?(?:{_RANK}|{_TITLE_NOUN})))(?=[\s,.;!(]|$)",
            "promotion",
        ),
        # "I got the lead data engineer role!!": a title won, no employer named -- a new title where the
        # speaker works, or the job applied for where the role was named beside its employer (:mod:`.jobs`)
        (
            rf"\b{me}\s+(?:(?i:finally|just|actually|officially)\s+)?got\s+the\s+"
            rf"(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,3}}?(?:{_RANK}|{_TITLE_NOUN})))\s+(?i:role|job|position|post)\b(?!\s+(?:at|with|in)\s+[A-Z])",
            "promotion",
        ),
        # "I start as lead data engineer on the 1st": the day a title takes effect
        (
            rf"\b{me}\s+(?:starts|start|is\s+starting|will\s+start)\s+as\s+(?:(?:an?|the)\s+)?(?:new\s+)?"
            rf"(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,2}}(?:{_RANK}|{_TITLE_NOUN})))(?=[\s,.;!(]|$)(?!\s+(?:at|with)\s+[A-Z])",
            "promotion",
        ),
        # "and news: made principal!!", "I just made partner": a new title where the speaker works
        (
            rf"(?:^{_OPENER}(?:(?i:and\s+|big\s+)?(?i:news|update)\s*[:!-]+\s*)?|\b{me}\s+(?:just\s+|finally\s+|officially\s+)?)"
            rf"(?i:made)\s+(?!(?:a|an|the|my|his|her|our|their|some|it|sure)\s)(?P<role>(?:[a-z][\w-]*\s+){{0,2}}?(?:{_RANK}|{_TITLE_NOUN}))(?=[\s,.;!(]|$)",
            "promotion",
        ),
        (rf"\b{mine}\s+{_WORKPLACE}\s+(?:at|in)\s+{_ORG}", "current"),
        # "wk 1 at Lintas done", "first week at Acme": the speaker works there now
        (
            rf"(?:^{_OPENER}|[,;:]\s+)(?i:(?:wk|week|month)\s+(?:\d+|one|two|three|four)|(?:first|1st)\s+(?:week|wk|month|shift))\s+(?:at|with)\s+{_ORG}",
            "current",
        ),
        (rf"\b{me}\s+(?:is|am)\s+(?:on|earning|making|paid)\s+[£$€]?\d[\w.,]*\s+at\s+{_ORG}", "current"),
        (
            rf"(?:^{_OPENER}|[,;:]\s+|\b{me}\s+(?:has\s+been|is|was|had)\s+)(?i:{_SPAN})\s+(?i:years?|months?)\s+(?:at|in)\s+{_ORG}",
            "current",
        ),
        # "with" a one-word name is a partner as often as an employer ("5 years with Mira yesterday"):
        # only with words of work in the sentence
        (
            rf"(?:^{_OPENER}|[,;:]\s+|\b{me}\s+(?:has\s+been|is|was|had)\s+)(?i:{_SPAN})\s+(?i:years?|months?)\s+with\s+"
            rf"(?:{_ORG}(?=[^.;]*\b(?:{_WORK_WORDS}|{_WORKPLACE}|work\w*)\b)|(?P<org2>[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*)+))",
            "current",
        ),
        (
            rf"\b{me}\s+(?:has|have)\s+been\s+(?:at|with)\s+{_ORG}\s+(?:for\s+)?(?:(?:nearly|almost|over|about)\s+)?(?i:{_SPAN})\s+(?i:years?|months?)\b",
            "current",
        ),
        (
            rf"(?:^{_OPENER}|[,;:]\s+)(?i:{_SPAN})\s+(?i:days?|weeks?|months?)\s+(?:into|at|with)\s+{_ORG}(?=\s+(?:and|now|so|but|already)\b|[,.;!]|$)",
            "current",
        ),
        # a title at a name alone, the news or an application ("GIS analyst at Boland Spatial, full time"):
        # no job by itself, the employer's full name and the role
        (
            rf"^(?:(?i:a|an|as\s+an?|as)\s+)?{_TITLED}\s+at\s+{_ORG}(?=\s*(?:[,.;!]|$)|\s+in\s+[A-Z])",
            "mention",
        ),
        # no job, the employer and the role applied for ("applied for a project lead role at Kestrel Grid")
        (
            rf"\b{me}\s+(?:has\s+|had\s+)?applied\s+for\s+(?:a|an|the)\s+(?P<role>(?i:(?:[a-z][\w-]*\s+){{0,3}}?(?:{_RANK}|{_TITLE_NOUN})))"
            rf"\s+(?i:job|role|position|post)\s+(?:at|with)\s+{_ORG}",
            "mention",
        ),
        # no job, only the employer's full name ("applied for a job at Brightwater Energy")
        (
            rf"\b(?:applied|interview\w*|offer|recruiter|job|role|position)\b[^.;]{{0,30}}?\b(?:at|with|from)\s+{_ORG}",
            "mention",
        ),
    )
    return tuple((re.compile(pattern), event) for pattern, event in table)


#: the rules compiled for one speaker's name (one set per person a project talks about)
_CACHE: "BoundedCache[str, tuple[tuple[re.Pattern[str], str], ...]]" = BoundedCache("job rules by speaker", 256)
_OTHERS = re.compile(r"\b(?:" + p.CAPITALISED + r"['’]s|his|her|their)\b")
_NOT_ORGS = set(p.NOT_NAMES) | {"work", "home", "uni", "school"}
_LEADING = _NOT_ORGS | {"week", "weeks", "month", "months", "year", "years", "day", "days", "and", "then"}


def _org(name: str | None, place_ok: bool = False) -> str | None:
    if not name:
        return None
    name = name.strip().rstrip(".,;'’")
    name = re.sub(r"['’]s$", "", name)
    words = name.split()
    while len(words) > 1 and words[0].lower() in _LEADING:
        words = words[1:]  # "within a WEEK Kestrel came back"
    name = " ".join(words)
    if not name or name.split()[0].lower() in _NOT_ORGS or (not place_ok and is_place(name)):
        return None
    if name.split()[0].lower() in TITLE_WORDS:
        return None  # "Head of Maths, starting in January": a title, not who employs
    return name


#: first words of a job title, never of an employer's name ("Head of Maths", "Senior Analyst")
TITLE_WORDS = set(
    """head director manager chief deputy assistant associate senior junior lead principal vice teacher
    coordinator officer engineer analyst supervisor""".split()
)


def mentions(fact: "Fact") -> list[Mention]:
    """The speaker's jobs that ``fact`` names in passing (often none)."""
    person = fact.speaker
    if not person or p.is_question(fact) or CUE.search(fact.text) is None or person not in fact.text:
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    text = p.without_said(text, person)
    rules = _CACHE.get(person)
    if rules is None:
        rules = _rules(person)
        _CACHE[person] = rules
    out: list[Mention] = []
    for pattern, event in rules:
        if event == "mention" and out:
            break
        for match in pattern.finditer(text):
            before = text[: match.start()]
            # "Tom's two years at Google", "his manager at Acme": about someone else
            if event == "current" and _OTHERS.search(before[-25:]) and not before.rstrip().endswith(f"{person}'s"):
                continue
            groups = match.groupdict()
            groups["org"] = groups.get("org") or groups.get("org2")
            org = _org(groups.get("org"), place_ok=event in WORKPLACE_EVENTS)
            told = {"shift": "current", "notice": "end", "titled": "start"}.get(event, event)
            groups["role"] = groups.get("role") or groups.get("role2")
            role = " ".join(groups["role"].split()) if groups.get("role") else None
            if role and role.count(" ") >= 2:
                role = re.sub(r"\s+(?i:role|job|position|post)$", "", role)  # "the pharmacist manager role"
            if role and not role.split()[0].isupper() and not all(w[:1].isupper() for w in role.split()):
                # "Research assistant" opening a sentence; "GIS analyst" and "Operations Supervisor" kept
                role = role[:1].lower() + role[1:]
            if role and role.isupper() and len(role) > 4:
                role = role.lower()  # "I'M A CHARGE NURSE NA!!!!"
            if org is None and groups.get("org"):
                continue
            if org is not None and event == "current" and p.EATERY_NAME.search(org):
                continue  # "lunch with my team at Calabar Kitchen": where they ate, not who employs

            if org is None and told in ("current", "start") and role is None:
                continue
            since = _since(fact.text, fact.session_date) if event == "promotion" else None
            out.append(Mention(org, role, told, since))
    return out


#: a date the extractor resolved after a word that says a title takes effect then: "from 1st September (on 1
#: September 2025)", "starts feb 2 (on 2 February 2026)", "as of yesterday (on 14 July 2025)"
_FROM_DATE = re.compile(
    r"\b(?:(?:starts|start|starting)\s+as\s+[^()]{1,40}?|(?:from|starting|starts|start|as\s+of|effective|since)\s+[^()]{1,25}?)"
    r"\((?:on|in|from)\s+(?P<when>[^()]+?)\)",
    re.I,
)


def _since(text: str, said: "_dt.date | None" = None) -> "Period | None":
    """The day a promotion takes effect, as the fact's text tells it (first such date; None: not told);
    a month named bare after "from" ("offered me supervising pharmacist from October") is the next
    such month from the day it was said (``said``)."""
    from ...dates import MONTH_NAMES, Period, read_period

    for match in _FROM_DATE.finditer(text):
        period = read_period(match.group("when"))
        if period is not None:
            return period
    month = _FROM_MONTH.search(text)
    if month is not None and said is not None:
        number = MONTH_NAMES.index(month.group("month").capitalize()) + 1
        return Period.month(said.year + (number < said.month), number)
    return None


#: "from October" left without a date by the extractor
_FROM_MONTH = re.compile(
    r"\b(?:from|starting|as\s+of)\s+(?P<month>(?i:january|february|march|april|may|june|july|august|september|october|"
    r"november|december))\b(?!\s*\()"
)
