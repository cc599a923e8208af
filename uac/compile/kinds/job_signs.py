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
    "dealership|pharmacy|centre|center|mine|outfit|contractor|operator|provider|retailer|office|unit"
)
#: a kind of workplace alone, which singles out no employer ("the new practice", "a startup")
_GENERIC = set(
    """practice clinic hospital firm company startup start-up agency school college university uni office unit
    department business place team""".split()
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
_NOT_NAMES = {w.lower() for w in p.NOT_NAMES} | {
    "site",
    "work",
    "home",
    "uni",
    "camp",
    "mum",
    "dad",
    "him",
    "her",
    "them",
}
_WHEN_WORDS = (
    set(p.MONTH_WORDS) | set(p.WEEKDAY_WORDS) | {"time", "future", "end", "summer", "winter", "spring", "autumn"}
)
#: a job that is a chore or a procedure, not work: "got the plumbing job done", "a nose job"
_NOT_WORK = re.compile(r"\b(?:plumbing|paint|painting|nose|boob|odd|side|repair|roof|tiling|done|sorted)\b", re.I)


#: a described employer, or a name typed in lower case ("with westline"): a word no dictionary has
_ORGISH = rf"(?:{_DESC}|(?P<name>(?-i:[a-z][a-z0-9&'’-]{{2,}})))"
_SPAN = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|several)"


def _rules(person: str) -> tuple[tuple[re.Pattern[str], str, str], ...]:
    """(pattern, event, how the employer is said): ``desc`` a description or a lower-case name,
    ``job`` the words before "job" ("the hamilton job")."""
    me = re.escape(person)
    mine = rf"{me}['’]s"
    head = rf"(?:\b{mine}\s+|^(?i:and\s+|also\s+|then\s+|ok\s+|so\s+)?)"
    table = (
        (
            rf"(?:^|\b{me}\s+(?:has\s+|had\s+)?)(?i:handed|handing|hands|gave|given|giving|put|putting)\s+(?:in\s+)?(?:{mine}\s+)?notice(?:\s+in)?\s+(?:at|to)\s+{_DESC}",
            "end",
        ),
        (rf"{head}(?i:last|final)\s+(?:day|shift|swing)\s+(?:at|with|w)\s+{_ORGISH}", "end"),
        (rf"(?:^|\b{me}\s+)(?i:finish(?:es|ing)?|finished)\s+(?:up\s+)?(?:with|w|at)\s+{_ORGISH}", "end"),
        (rf"\b{me}\s+(?:has\s+|had\s+)?(?:left|quit|resigned\s+from|retired\s+from|packed\s+in)\s+{_DESC}", "end"),
        (
            rf"\b{me}\s+(?:was|got|has\s+been|have\s+been|is\s+being)\s+(?:laid\s+off|let\s+go|made\s+redundant|fired)\s+(?:from|at|by)\s+{_DESC}",
            "end",
        ),
        (rf"{head}(?i:first\s+(?:day|shift|week|swing)|(?:day|week)\s+\d+)\s+(?:at|with|w)\s+{_ORGISH}", "start"),
        (
            rf"\b{me}\s+(?:has\s+|have\s+|had\s+)?(?:accepted|took|taken|signed|got|landed|started|starts|is\s+starting)\s+"
            rf"(?:a|an|the)\s+(?:[\w-]+\s+){{0,3}}?(?:contract|job|position|role|post)\s+(?:with|at)\s+{_DESC}",
            "start",
        ),
        (
            rf"\b{me}\s+(?:has\s+|have\s+|had\s+)?(?:accepted|took|taken|said\s+yes\s+to)\s+(?:the|an?)\s+(?:job\s+)?offer\s+from\s+{_DESC}",
            "start",
        ),
        (
            rf"\b{me}\s+(?:has\s+|have\s+|had\s+)?(?:joined|started\s+at|starts\s+at|is\s+starting\s+at|will\s+start\s+at)\s+{_DESC}",
            "start",
        ),
        (
            rf"\b{me}\s+(?:has\s+|have\s+)?said\s+yes\s+to\s+{_DESC}(?=[^.;]*\b(?:job|role|offer|contract|teach\w*|start\w*|course)\b)",
            "start",
        ),
        (
            rf"(?:\b{me}\s+(?:finally\s+)?|^(?i:news:\s+|ok\s+|so\s+)?)(?i:got|landed|took|accepted)\s+the\s+(?P<org>(?!(?:new|other|dream|first|same|full-time|part-time|whole)\b)"
            rf"[\w-]+(?:\s+[\w-]+)?)\s+(?:job|role|position)\b(?!\s+(?:done|finished|sorted|fixed))",
            "start",
            "job",
        ),
        (
            rf"(?:^|\b{me}\s+(?:has\s+|have\s+)?)(?i:been)\s+(?:with|w|at)\s+{_ORGISH}\s+(?:for\s+)?(?i:{_SPAN})\s+(?i:yrs?|years?|months?)\b",
            "current",
        ),
        (
            rf"\b{me}\s+(?:is|am|was|has\s+been)\s+(?:working|doing\s+(?:\w+\s+){{1,3}}?)(?:at|for|with)\s+{_DESC}",
            "current",
        ),
        (rf"\b{me}\s+(?:works|work)\s+(?:at|for|with)\s+{_DESC}", "current"),
        (
            rf"\b{mine}\s+(?:job|boss|manager|team|colleagues?|coworkers?|contract|role|shifts?)\s+(?:at|with)\s+{_DESC}",
            "current",
        ),
        (rf"\b{me}\s+(?:is|am|was|has\s+been)\s+(?:an?\s+)?(?P<org>(?i:freelance|self-employed))\b", "current"),
        # no job: a description to come back to ("an agency in Polanco wants to interview me" ... "day 3 at the agency")
        (
            rf"\b(?i:applied|interview\w*|offer\w*|recruiter|job|role|position)\b[^.;]{{0,40}}?\b(?:at|with|from)\s+{_DESC}",
            "mention",
        ),
        (
            rf"{_DESC}\s+(?:saw|wants|asked|offered|called|emailed|rang|messaged|reached\s+out|got\s+in\s+touch)\b",
            "mention",
        ),
    )
    rules = [(entry[0], entry[1], entry[2] if len(entry) > 2 else "desc") for entry in table]
    return tuple((re.compile(pattern), event, how) for pattern, event, how in rules)


_CACHE: "BoundedCache[str, tuple[tuple[re.Pattern[str], str, str], ...]]" = BoundedCache("described job rules", 256)
_CUE = re.compile(
    r"\b(?:finish\w*|been|freelance|self-employed|swing|applied|interview\w*|recruiter|saw|wants|asked|offered|called|emailed|"
    r"rang|messaged|reached|job|role|position|contract|offer|notice|day|shifts?|week|joined|start\w*|left|quit|resigned|retired|packed|laid|"
    r"let\s+go|redundant|fired|said\s+yes|works?|working|doing|boss|manager|team|colleagues?|coworkers?)\b",
    re.I,
)
#: a job not (yet) had: "maybe", "thinking of", "would", "hoping to"
_UNSURE = (
    r"\b(?:maybe|perhaps|might|would|thinking\s+(?:of|about)|considering|hop(?:e|es|ing)\s+to|fingers\s+crossed)\b"
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
#: a title is not who employs: "got the analyst job" names a role
_TITLES = re.compile(
    r"\b(?:analyst|assistant|engineer|developer|teacher|nurse|manager|designer|tutor|officer|consultant|lead|"
    r"director|associate|intern|instructor|lecturer|coordinator|head|senior|junior|principal)\b",
    re.I,
)


def described(fact: "Fact") -> list[Described]:
    """The speaker's jobs at employers ``fact`` describes (often none)."""
    person = fact.speaker
    if not person or person not in fact.text or p.is_question(fact) or not _CUE.search(fact.text):
        return []
    text = p.without_said(p.plain_cached(fact.text, fact.session_date), person)
    if p.WISHES.search(text) or re.search(rf"\b(?:if|when|whether)\s+{re.escape(person)}\b|{_UNSURE}", text, re.I):
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
            if groups.get("name"):
                found = _lower_name(groups["name"])
            else:
                found = _employer(groups["org"], how == "job")
            if found is not None and not (found[1] and event == "mention"):
                out.append(Described(found[0], event, found[1]))
        if out and event != "mention":
            break
    return out


def _lower_name(word: str) -> tuple[str, bool] | None:
    """A name typed in lower case ("westline"): a word no dictionary has, and no place."""
    if is_common_word(word) or lookup_lower(word) or word in _NOT_NAMES:
        return None
    return word.title(), False


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
