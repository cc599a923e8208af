"""Jobs at employers people describe rather than name.

In a chat people rarely give an employer its name: "3 days at the practice in
shawlands", "I got the health board job!!", "a short contract with the
provincial transportation ministry", "handed my notice in at the practice".
The readers of :mod:`.job_mentions` need a name in capitals; these read the
same events at a *described* employer, tried only where they found nothing:

* the description is an article, up to three words and a kind of workplace
  (:data:`WORKPLACES`: practice, clinic, firm, startup, ministry, board, ...),
  with a place after "in"/"on" where one is given: "the practice in
  shawlands", "a private clinic in Finnieston", "the health board";
* a kind of workplace alone ("the practice") says too little to open a job of
  its own; it only ends the open job whose description holds that word
  ("handed my notice in at the practice");
* "got the X job" names the job by its place or its employer ("the hamilton
  job", "the health board job"), never by a chore ("the plumbing job done").

The speaker must be the one working (the rule extractor has written "I" as
the speaker's name); someone else's job is none of theirs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...caches import BoundedCache
from ...extract.places import is_place, lookup_lower
from ...extract.words import is_common_word
from . import patterns as p
from .job_mentions import _TITLE_NOUN

if TYPE_CHECKING:
    from ...facts.model import Fact


@dataclass(frozen=True)
class Described:
    employer: str
    #: start, current, end, or mention (a description only: no job)
    event: str
    #: a kind of workplace alone ("the practice"): it may only end a job already known
    bare: bool


#: kinds of workplace, the last word of an employer described ("a dental practice")
WORKPLACES = (
    "practice|clinic|hospital|surgery|firm|company|startup|start-up|agency|bank|fund|consultancy|fintech|insurer|"
    "brokerage|school|college|university|uni|institute|ministry|council|board|trust|charity|lab|studio|department|"
    "ward|museum|newspaper|magazine|warehouse|factory|airline|authority|foundation|nonprofit|non-profit|publisher|"
    "dealership|pharmacy|centre|center|mine|outfit|contractor|operator|provider|retailer|office|unit|cafe|café|pub|"
    "bar|restaurant|hotel|shop|store|supermarket|hospice|plant|salon|gym|library|bakery|studio|nursery|kindergarten"
)
#: a kind of workplace alone, which singles out no employer ("the new practice", "a startup")
_GENERIC = set(
    """practice clinic hospital firm company startup start-up agency school college university uni office unit
    department business place team cafe café pub bar restaurant hotel shop store supermarket hospice plant salon
    gym library bakery studio nursery kindergarten""".split()
)
#: words that describe no employer ("the new firm" is "the firm")
_EMPTY = {"new", "old", "current", "other", "next", "last", "same", "big", "small", "little"}
_KIND = re.compile(rf"(?:{WORKPLACES})$", re.I)
#: a place after the workplace: capitals, or one word in lower case ("in shawlands")
_WHERE = (
    r"(?:\s+(?:in|on|out\s+of)\s+(?:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}|(?!(?:the|a|an|my|our)\b)[a-z][a-z-]{3,}))?"
)
_DESC = rf"(?P<org>(?i:the|a|an)\s+(?:(?i:[\w-]+)\s+){{0,3}}?(?i:{WORKPLACES})(?![\w-]){_WHERE})"
#: words that end a description's place: "in shawlands plus saturday mornings"
_NOT_WHERE = {"plus", "and", "but", "before", "after", "since", "until", "today", "tomorrow", "yesterday", "now"}
_WHEN_WORDS = (
    set(p.MONTH_WORDS) | set(p.WEEKDAY_WORDS) | {"time", "future", "end", "summer", "winter", "spring", "autumn"}
)
#: a job that is a chore or a procedure, not work: "got the plumbing job done", "a nose job"
_NOT_WORK = re.compile(r"\b(?:plumbing|paint|painting|nose|boob|odd|side|repair|roof|tiling|done|sorted)\b", re.I)


#: a named employer ("Zenith Bank", "TCS", "St Aidan's Primary")
_NAMED = r"(?P<named>(?-i:(?:[A-Z][\w&'’.-]*[\w&]|[A-Z]{2,})(?:\s+(?:of\s+|&\s+|de\s+)?[A-Z][\w&'’.-]*[\w&]){0,4}))"
#: a described employer, a named one, or a name typed in lower case ("with westline"): a word no dictionary has
#: the words a firm's name typed in lower case ends with ("kahu construction", "melcom group")
_FIRM_WORDS = (
    r"construction|builders|building|electrical|plumbing|motors|logistics|freight|transport|holdings|group|ltd|limited|"
    r"inc|llc|pty|engineering|consulting|solutions|systems|services|labs|media|insurance|partners|associates|legal|"
    r"dental|medical|health|healthcare|foods|brewing|energy|mining|shipping|technologies|tech|digital|studios"
)
_LOWER_WORD = r"[a-zà-öø-ÿ][a-zà-öø-ÿ0-9&'’-]"
_ORGISH = (
    rf"(?:{_DESC}|{_NAMED}|(?P<name>(?-i:{_LOWER_WORD}{{2,}}(?:(?:\s+{_LOWER_WORD}+){{0,2}}?\s+(?:{_FIRM_WORDS}|hospital|clinic|"
    rf"bank|university|college))?)(?![\wà-ÿ])))"
)
_SPAN = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"(?:twenty|thirty|forty)-\w+|a\s+few|a\s+couple\s+of|several)"
)
#: what a sentence about work says besides the verb ("joined Acme" is work; "joined Tom for lunch" is not)
WORK_WORDS = re.compile(
    r"\b(?:jobs?|role|position|work|team|company|firm|contract|notice|salary|offer|manager|boss|colleagues?|shifts?|"
    r"hired|interview\w*|career|employer|internship|intern|apprentice\w*|grad|graduate|programme|program|office|payroll|"
    r"hr|probation\w*|onboarding|redundan\w+|promot\w+|as\s+an?\s+\w+|leaving\s+(?:do|card|party)|farewell|"
    r"resign\w*|retir\w*|locum|freelanc\w*|clients?|staff|per\s+hour|/hr|an\s+hour|a\s+week|roster|pink\s+slip|"
    r"as\s+(?:an?\s+)?[A-Z][\w-]+)\b",
    re.I,
)
#: openers of a sentence that drops its "I" ("welp got laid off", "ok so finally quit")
_OPENERS = (
    r"(?:(?i:ok|okay|so|well|welp|yeah|yep|and|also|then|anyway|update|news|big\s+news|omg|lol|ugh|finally|"
    r"officially|just|today|yesterday|guess\s+what|righto|right|mate|bro|babe|hey|hi|hello|dear\s+\w+)[,!:.]?\s+)"
)
#: the last word of a job's title ("backend eng", "creative lead", "articling student")
_TITLE_NOUNS = (
    rf"{_TITLE_NOUN}|eng|dev|lead|head|student|trainee|apprentice|winemaker|fitter|electrician|driver|cleaner|pm"
)
_AUX = (
    r"(?:(?:has|have|had|is|am|are|was|were|just|finally|officially|already|also|now|recently|will|be|been|'ve|'m)\s+)"
)


@dataclass(frozen=True)
class _Fragments:
    """The pieces of the rules for one speaker: the speaker, as subject or possessor, and the employer."""

    me: str
    mine: str
    label: str
    who: str
    head: str
    emp: str
    role: str


def _fragments(person: str) -> _Fragments:
    me = re.escape(person)
    mine = rf"(?:{me}['’]s|my)"
    label = r"(?:[A-Za-z/]{2,12}:\s+)?"  # "Mon: last day at Tabcorp" in a list
    return _Fragments(
        me=me,
        mine=mine,
        label=label,
        # the speaker as the subject, or a sentence that drops its "I"
        who=rf"(?:^{label}{_OPENERS}*|\b{me}\s+{_AUX}*)",
        head=rf"(?:\b{mine}\s+|^{label}{_OPENERS}*)",
        emp=_ORGISH,
        role=r"(?:as\s+(?:an?\s+)?[\w-]+(?:\s+[\w-]+){0,3}?\s+)?",
    )


def _ends(f: "_Fragments") -> tuple[tuple[str, str, str], ...]:
    """Leaving: resigned, quit, laid off, finished up, retired, notice handed in, a last day."""
    who, head, mine, emp = f.who, f.head, f.mine, f.emp
    return (
        (rf"{who}(?i:resigned|resigning|resign|resigns)\s+(?:from|at)\s+{emp}", "end", "any"),
        (
            rf"{who}(?i:quit|quitting|quits)\s+(?:(?:{mine}|the)\s+(?:job|role|position)\s+(?:at|with)\s+)?{emp}",
            "end",
            "work",
        ),
        (rf"{who}(?i:left|leaving|leave|leaves)\s+{emp}", "end", "work"),
        (
            rf"{who}(?:(?i:got|get|gets|getting|been|being|kena)\s+)?(?i:sacked|fired|laid\s+off|let\s+go|made\s+redundant|"
            rf"retrenched|terminated)\s+(?:from|at|by)\s+{emp}",
            "end",
            "any",
        ),
        (rf"{who}(?i:finish(?:es|ing)?|finished|wrapped\s+up)\s+(?:up\s+)?(?:with|w|at)\s+{emp}", "end", "any"),
        (rf"{who}(?i:retired|retiring|retire|retires)\s+from\s+{emp}", "end", "any"),
        (
            rf"{who}(?i:handed|handing|hands|gave|given|giving|put|putting|filed|submitted)\s+(?:in\s+)?(?:{mine}\s+)?"
            rf"(?i:notice|resignation)(?:\s+in)?\s+(?:at|to|with)\s+{emp}",
            "end",
            "any",
        ),
        (
            rf"{who}(?i:chucked|packed|jacked)\s+in\s+(?:(?:{mine}|the)\s+(?:job|role)\s+(?:at|with)\s+)?{emp}",
            "end",
            "work",
        ),
        (
            rf"{head}(?i:last|final)\s+(?:working\s+)?(?:day|shift|swing|duty)\s+(?:of\s+(?:{mine}|the)\s+\w+\s+)?(?:at|with|w|in)\s+{emp}",
            "end",
            "any",
        ),
    )


def _starts(f: "_Fragments") -> tuple[tuple[str, str, str], ...]:
    """Starting: joined, started at, a first day, signed with, an offer taken, hired, a title at a name."""
    who, head, mine, emp, role, label, me = f.who, f.head, f.mine, f.emp, f.role, f.label, f.me
    return (
        (rf"{who}(?i:joined|joining|join|joins)\s+{emp}", "start", "work"),
        (
            rf"{who}(?i:start|started|starting|starts|begin|began|beginning|begins)\s+(?:(?:a|{mine}|the)\s+)?(?:new\s+)?"
            rf"(?i:job|role|position|work|internship|apprenticeship|apprentiship|placement|contract|prácticas\s+\w+|[\w-]+\s+programme)"
            rf"(?:\s+\w+){{0,2}}?\s+(?:at|with|wiv|in)\s+{emp}",
            "start",
            "any",
        ),
        (
            rf"{who}(?i:start|started|starting|starts|begin|began|beginning|begins)\s+(?:on\s+the\s+[\w\s-]{{1,30}}?\s+)?(?:at|with)\s+{emp}",
            "start",
            "work",
        ),
        (rf"{who}(?i:start|started|starting|starts|begin|began|beginning|begins)\s+in\s+{_DESC}", "start", "any"),
        (
            rf"{head}(?i:first)\s+(?:full\s+)?(?:day|week|shift|month|swing)\s+{role}(?:at|with|w)\s+{emp}",
            "start",
            "any",
        ),
        (rf"{head}(?i:first\s+(?:day|shift|week|swing)|(?:day|week)\s+\d+)\s+(?:at|with|w)\s+{emp}", "start", "any"),
        (rf"{who}(?i:signed|signing)\s+(?:on\s+)?with\s+{emp}", "start", "work"),
        (
            rf"{who}(?i:accepted|took|taken|accepting|said\s+yes\s+to)\s+(?:the|an?|their|{mine})\s+(?:[\w-]+\s+){{0,3}}?"
            rf"(?i:offer|job|position|role|contract|post|spot)\s+(?:at|with|from|in)\s+{emp}",
            "start",
            "any",
        ),
        (
            rf"{who}(?i:got|landed|scored|bagged)\s+(?:the|an?|{mine})\s+(?:[\w-]+\s+){{0,3}}?"
            rf"(?i:job|position|role|contract|post|spot|internship|placement)\s+(?:at|with|in)\s+{emp}",
            "start",
            "any",
        ),
        (rf"{who}(?:(?i:got|been|was)\s+)?(?i:hired|taken\s+on|kept\s+on)\s+(?:at|by)\s+{emp}", "start", "any"),
        # "i got the offer from atlantic terminal services": the offer waited for ("got an offer" may be one of several)
        (rf"{who}(?i:got)\s+the\s+(?:(?i:job)\s+)?(?i:offer)\s+(?:from|at|with)\s+{emp}", "start", "any"),
        (rf"{who}(?i:resume|resuming|resumed)\s+(?:\w+\s+){{0,2}}?at\s+{emp}", "start", "work"),
        # the news as a title at an employer: "staff engineer at loop as of monday", "creative lead at a fintech in
        # Shoreditch, starting in a fortnight"
        (
            rf"(?:^{label}{_OPENERS}*|[—–:]\s+)(?:an?\s+)?(?i:[\w-]+\s+){{0,3}}?(?i:{_TITLE_NOUNS})\s+at\s+{emp},?\s+"
            rf"(?i:starting|start|from|as\s+of|begins?|beginning)\b",
            "start",
            "any",
        ),
        (
            rf"\b{mine}\s+new\s+(?i:job|role|position|company|employer|workplace)(?:,|\s+(?:at|with|is))\s+{emp}",
            "start",
            "any",
        ),
        (
            rf"{who}(?:has\s+|have\s+)?said\s+yes\s+to\s+{_DESC}(?=[^.;]*\b(?:job|role|offer|contract|teach\w*|start\w*|course|{_TITLE_NOUNS})\b)",
            "start",
            "any",
        ),
        (
            rf"(?:\b{me}\s+(?:finally\s+)?|^{_OPENERS}*)(?i:got|landed|took|accepted)\s+the\s+(?P<org>(?!(?:new|other|dream|first|same|full-time|part-time|whole)\b)"
            rf"[\w-]+(?:\s+[\w-]+)?)\s+(?:job|role|position)\b(?!\s+(?:done|finished|sorted|fixed))",
            "start",
            "job",
        ),
    )


def _promotions_and_held(f: "_Fragments") -> tuple[tuple[str, str, str], ...]:
    """A new title where the speaker works, the job held now, and descriptions to come back to."""
    who, mine, emp, role, me = f.who, f.mine, f.emp, f.role, f.me
    return (
        (
            rf"{who}(?:(?i:got|been|was|were)\s+)?(?i:promoted)\s+to\s+[\w-]+(?:\s+[\w-]+){{0,3}}?\s+(?:at|in|with)\s+{emp}",
            "promotion",
            "any",
        ),
        (
            rf"\b(?i:made|making|gave|given|gied)\s+me\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+){{0,2}}?\s+(?:job\s+)?(?:at|of|in)\s+{emp}",
            "promotion",
            "any",
        ),
        (
            rf"(?:^|\b{me}\s+(?:has\s+|have\s+)?)(?i:been)\s+(?:with|w|at)\s+{emp}\s+(?:for\s+)?(?i:{_SPAN})\s+(?i:yrs?|years?|months?)\b",
            "current",
            "any",
        ),
        (rf"\b(?i:after)\s+(?i:{_SPAN})\s+(?i:years?|yrs)\s+{role}(?:at|with)\s+{emp}", "end", "work"),
        (rf"(?i:{_SPAN})\s+(?i:years?|yrs)\s+{role}at\s+{emp}", "current", "any"),
        (rf"(?i:{_SPAN})\s+(?i:years?|yrs)\s+{role}with\s+{emp}", "current", "work"),
        (
            rf"{who}(?:(?i:is|am)\s+)?(?i:working|teaching|nursing|lecturing|doing\s+(?:\w+\s+){{1,3}}?)(?:at|for|with)\s+{_DESC}",
            "current",
            "any",
        ),
        (rf"{who}(?i:works|work)\s+(?:at|for|with|in)\s+{emp}", "current", "work"),
        # "i'm a ux designer at konfío": a title held at a name typed in lower case
        (
            rf"\b{me}\s+(?:is|am)\s+(?:now\s+)?(?:an?\s+)(?i:[\w-]+\s+){{0,3}}?(?i:{_TITLE_NOUNS})\s+(?:at|with|for)\s+"
            rf"(?P<name>(?-i:{_LOWER_WORD}{{2,}}(?:\s+{_LOWER_WORD}+){{0,2}}?))(?=\s+(?:so|and|but|in|since|for)\b|[,.;!?]|$)",
            "current",
            "any",
        ),
        (
            rf"\b{mine}\s+(?:full-time\s+|part-time\s+|day\s+|night\s+)?(?i:job|boss|manager|team|colleagues?|coworkers?|contract|role|shifts?)"
            rf"\s+(?:at|with)\s+{emp}",
            "current",
            "any",
        ),
        (
            rf"(?:\b{mine}\s+|\b{me}\s+(?:[\w-]+\s+){{0,5}}?)(?i:(?:night|day|graveyard|double|late|early|weekend)\s+)?"
            rf"(?i:shifts?|a\s+double)\s+(?:at|in)\s+{emp}",
            "current",
            "shift",
        ),
        (
            rf"{who}(?:(?i:is|am|was|has\s+been)\s+)?(?:an?\s+)?(?P<org>(?i:freelance|freelancing|self-employed))\b",
            "current",
            "any",
        ),
        (rf"{who}(?i:going|gone|went)\s+(?P<org>(?i:freelance|self-employed|locum))\b", "start", "any"),
        # no job: a description to come back to ("an agency in Polanco wants to interview me" ... "day 3 at the agency")
        (
            rf"\b(?i:applied|interview\w*|offer\w*|recruiter|job|role|position)\b[^.;]{{0,40}}?\b(?:at|with|from)\s+{_DESC}",
            "mention",
            "any",
        ),
        (
            rf"{_DESC}\s+(?:saw|wants|asked|offered|called|emailed|rang|messaged|reached\s+out|got\s+in\s+touch)\b",
            "mention",
            "any",
        ),
    )


def _rules(person: str) -> tuple[tuple[re.Pattern[str], str, str], ...]:
    """(pattern, event, how): ``how`` says what the employer must be -- ``any`` (the verb says
    work), ``work`` (a named employer only with words of work in the sentence: "joined Acme as
    an analyst", not "joined Tom for lunch"), ``shift`` (a place's name too: "nights at
    Lakeside"), ``job`` the words before "job" ("the hamilton job")."""
    f = _fragments(person)
    table = (*_ends(f), *_starts(f), *_promotions_and_held(f))
    return tuple((re.compile(pattern), event, how) for pattern, event, how in table)


_CACHE: "BoundedCache[str, tuple[tuple[re.Pattern[str], str, str], ...]]" = BoundedCache("described job rules", 256)
_CUE = re.compile(
    r"\b(?:finish\w*|been|freelanc\w*|self-employed|locum|swing|applied|interview\w*|recruiter|saw|wants|asked|offered|called|emailed|"
    r"resign\w*|quit\w*|leav\w*|sacked|fired|laid|retrench\w*|terminated|retir\w*|handed|chucked|joined|join\w*|"
    r"signed|signing|accepted|took|landed|hired|resum\w*|promoted|made\s+me|gave\s+me|gied\s+me|years?|yrs|double|duty|"
    r"rang|messaged|reached|job|role|position|contract|offer|notice|day|shifts?|week|joined|start\w*|left|quit|resigned|retired|packed|laid|"
    r"let\s+go|redundant|fired|said\s+yes|works?|working|doing|boss|manager|team|colleagues?|coworkers?)\b"
    rf"|\b(?:is|am)\s+an?\s+(?:[\w-]+\s+){{0,3}}?(?:{_TITLE_NOUNS})\s+(?:at|with|for)\b",
    re.I,
)
#: a job not (yet) had: "maybe", "thinking of", "would", "hoping to"
_UNSURE = (
    r"\b(?:maybe|perhaps|might|would|thinking\s+(?:of|about)|considering|hop(?:e|es|ing)\s+to|fingers\s+crossed)\b"
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
#: another person's, just before a job held ("Tom's three years at", "her shifts at")
_THEIRS = re.compile(r"\b(?:" + p.CAPITALISED + r"['’]s|(?i:his|her|their))\s+")
#: a title is not who employs: "got the analyst job" names a role
_TITLES = re.compile(rf"\b(?:{_TITLE_NOUNS}|senior|junior|principal)\b", re.I)


def described(fact: "Fact") -> list[Described]:
    """The speaker's jobs at employers ``fact`` describes (often none)."""
    person = fact.speaker
    if not person or person not in fact.text or p.is_question(fact) or not _CUE.search(fact.text):
        return []
    text = p.without_said(p.plain_cached(fact.text, fact.session_date), person)
    if p.WISHES.search(text) or re.search(rf"\b(?:if|when|whether)\s+{re.escape(person)}\b", text, re.I):
        return []
    rules = _CACHE.get(person)
    if rules is None:
        rules = _rules(person)
        _CACHE[person] = rules
    out: list[Described] = []
    for pattern, event, how in rules:
        if event == "mention" and out:
            break
        for match in pattern.finditer(text):
            groups = match.groupdict()
            if re.search(_UNSURE, _up_to_clause_end(text, match.end()), re.I):
                continue  # "maybe joining Acme"; not "been at kahu 9 yrs ... but honestly been thinking about ..."
            if how == "work" and not (groups.get("org") or WORK_WORDS.search(text)):
                continue  # "joined Tom for lunch", "left Sydney": no sign of work
            theirs = _THEIRS.search(text[max(0, match.start() - 25) : match.start() + 1])
            if event == "current" and theirs and person not in theirs.group(0):
                continue  # "Tom's three years at Pellucid", "his shifts at Lakeside": someone else's
            if groups.get("name"):
                found = _lower_name(groups["name"])
            elif groups.get("named"):
                found = _named(groups["named"], person, place_ok=how == "shift")
            else:
                found = _employer(groups["org"], how == "job")
            if found is not None and event == "current" and p.EATERY_NAME.search(found[0]):
                continue  # "lunch with my team at Calabar Kitchen": where they ate, not who employs
            if found is not None and not (found[1] and event == "mention"):
                out.append(Described(found[0], event, found[1]))
        if out and event != "mention":
            break
    return out


#: where a clause ends: another clause of its own follows ("..., but honestly been thinking about going out")
_CLAUSE_END = re.compile(r",?\s+(?:but|although|though|while)\s+|;\s+|\s+[-–—]\s+|,\s+and\s+(?:now\s+)?(?=\w+\s+\w+)")


def _up_to_clause_end(text: str, at: int) -> str:
    """The sentence up to the end of the clause that runs at ``at``."""
    end = _CLAUSE_END.search(text, at)
    return text[: end.start()] if end is not None else text


#: words that open no employer's name: a title, a time, a pronoun ("left Monday", "joined Head of Data")
_NOT_EMPLOYERS = {w.lower() for w in p.NOT_NAMES} | set(
    """camp chief christmas dad director easter facebook head her him home i ig im instagram junior lead
    linkedin manager mum reddit school senior site slack teams them uni whatsapp work zoom""".split()
)


def _named(said: str, person: str, place_ok: bool = False) -> tuple[str, bool] | None:
    """A named employer, or None: a person, a place (unless the rule itself says work: "shifts at
    Lakeside"), a time or a title."""
    words = said.split()
    while words and words[-1].lower() in ("in", "on", "of", "de"):
        words.pop()
    name = (
        re.sub(r"['’]s$", "", " ".join(words))
        if words and not words[-1].endswith(("'s", "’s")) or len(words) > 1
        else " ".join(words)
    )
    if not name or words[0].lower() in _NOT_EMPLOYERS or person in words:
        return None
    if is_place(name) and not place_ok:
        return None  # "five years in Manchester", "left Austin": where, not who
    return name, False


_FIRM_END = re.compile(rf"\s(?:{_FIRM_WORDS}|hospital|clinic|bank|university|college)$")


def _lower_name(said: str) -> tuple[str, bool] | None:
    """A name typed in lower case ("westline", "kahu construction"): its first word one no
    dictionary has, and no place."""
    words = said.split()
    if words[0] in _NOT_EMPLOYERS or lookup_lower(words[0]) and len(words) == 1:
        return None
    if is_common_word(words[0]) and not (len(words) > 1 and _FIRM_END.search(said)):
        return None  # "westline" is a name; "atlantic" alone a word, "atlantic terminal services" a firm's name
    return " ".join(w[:1].upper() + w[1:] for w in words), False


def _employer(said: str, named_job: bool = False) -> tuple[str, bool] | None:
    """The employer as written, without its article, and whether it is a kind of workplace
    alone; None where the words are no employer."""
    words = _ARTICLE.sub("", said.strip()).split()
    for i, word in enumerate(words):
        if word.lower() in ("in", "on") and i + 1 < len(words) and words[i + 1].lower() in _WHEN_WORDS:
            words = words[:i]  # "the council in march"
            break
        if i and word.lower() in _NOT_WHERE:
            words = words[: i - 1] if words[i - 1].lower() in ("in", "on") else words[:i]
            break
    while words and words[-1].lower() in ("in", "on", "of", "out"):
        words.pop()
    name = " ".join(words)
    if not name or _NOT_WORK.search(name) or _TITLES.search(name):
        return None
    if named_job:
        # "the hamilton job", "the health board job", "the lithium job": whatever names it but a skill
        if any(w.lower().endswith("ing") for w in words):
            return None  # "the teaching job": what the job is, not where
        if name.islower() and (is_place(name.title()) or lookup_lower(name)):
            name = name.title()  # Hamilton
        return name, False
    meant = [w for w in words if w.lower() not in _EMPTY]
    return name, len(meant) == 1 and meant[0].lower() in _GENERIC
