"""Jobs told as the lines of a CV: a title, an employer and the span worked there.

People paste the work history of their CV into a chat to have it tidied or translated:
"- HMO2, royal melbourne hospital, feb 2026 - now", "house officer, tan tock seng hospital
singapore, may 2025 - jan 2026", "Research Assistant at SERI (2019–2020)".  No verb says
work; the shape does: a title ending in a title's word (officer, assistant, nurse...) or
written as an abbreviation (HMO2, RMO), then the employer after a comma or "at", then a span
of years or months of years, its end a date or "now".

A line that ends "now" (or "present", "current", "today") is the job held now, from its
start; any other line is a past job with its start and end.  An employer typed in lower case
is written with capitals ("Tan Tock Seng Hospital"), without the town it is in.  Only the
speaker's own lines count: a fact the assistant said is never read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...dates import Period
from ...extract.places import lookup_lower
from . import patterns as p
from .job_mentions import _TITLE_NOUN

if TYPE_CHECKING:
    from ...facts.model import Fact

_MONTHS = {
    **{name: i for i, name in enumerate(p.MONTH_WORDS[:12], start=1)},
    **{name[:3]: i for i, name in enumerate(p.MONTH_WORDS[:12], start=1)},
    "sept": 9,
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_WHEN = rf"(?:(?:{_MONTH})\.?\s+|(?:0?[1-9]|1[0-2])[/.])?(?:19|20)\d\d"
#: the last word of a title (as :mod:`.job_mentions` knows them, and the trades people list)
_TITLE_WORDS = (
    rf"(?:{_TITLE_NOUN}|hand|foreman|fitter|electrician|driver|mechanic|nurse|clerk|cashier|chef|cook|waiter|"
    r"waitress|barista|labourer|laborer|plumber|carpenter|welder|operator|supervisor|lead|head|director|partner|"
    r"associate|resident|registrar|fellow|trainee|apprentice|volunteer|owner)"
)
_TITLED = re.compile(rf"{_TITLE_WORDS}$", re.I)
_LINE = re.compile(
    rf"^(?P<title>[^,;:()]{{2,50}}?)(?:,\s+|\s+at\s+)(?P<org>[^,;:()]{{3,70}}?),?\s+\(?(?P<from>{_WHEN})\s*"
    rf"(?:-|–|—|to|until|till)\s*(?:(?P<to>{_WHEN})|(?P<now>now|present|current|today|ongoing|date))\)?\s*[.;]?$",
    re.I,
)


@dataclass(frozen=True)
class CvLine:
    employer: str
    role: str
    start: Period
    #: None for the job held now
    end: Period | None


def cv_line(fact: "Fact") -> CvLine | None:
    """The job a CV line of the speaker's tells, or None."""
    person = fact.speaker
    if not person or not fact.text.startswith(f"{person} said: "):
        return None
    text = fact.text[len(person) + len(" said: ") :].strip()
    match = _LINE.match(text)
    if match is None:
        return None
    title = " ".join(match.group("title").split())
    if not (_TITLED.search(title) or re.fullmatch(r"[A-Z]{2,6}\d?", title)):
        return None
    employer = _employer(match.group("org"))
    start = _period(match.group("from"))
    end = None if match.group("now") else _period(match.group("to"))
    if employer is None or start is None or (end is None and not match.group("now")):
        return None
    if end is not None and end.end < start.start:
        return None
    role = title if title[:2].isupper() else title[:1].lower() + title[1:]
    return CvLine(employer, role, start, end)


def _employer(said: str) -> str | None:
    """The employer as named with capitals, without the town after it ("tan tock seng hospital
    singapore" -> "Tan Tock Seng Hospital"); None for a place alone."""
    words = said.split()
    if len(words) > 1 and lookup_lower(words[-1].lower()) is not None:
        words = words[:-1]
    if not words or lookup_lower(" ".join(words).lower()) is not None:
        return None
    if all(w.islower() for w in words):
        words = [w[:1].upper() + w[1:] for w in words]
    return " ".join(words)


def _period(said: str | None) -> Period | None:
    if not said:
        return None
    year = int(said[-4:])
    head = said[:-4].strip(" ./").lower()
    if not head:
        return Period.year(year)
    month = int(head) if head.isdigit() else _MONTHS.get(head)
    return Period.month(year, month) if month else None


#: an employer after "at": a name in capitals, or up to three words typed in lower case, before a
#: place ("in te rapa"), a clause or punctuation
_EMP = (
    r"(?P<org>(?-i:[A-Z][\w&'’.-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w&'’.-]*){0,4})"
    r"|(?-i:[a-z][\w&'’-]{2,}(?:\s+(?!(?:in|when|and|but|so|from|for|as|i|we|the|on|at|with)\b)[a-z][\w&'’-]*){0,2}))"
)
_SPAN_YEARS = re.compile(
    rf"\bfrom\s+(?P<a>{_WHEN})\s+(?:to|until|till|-|–)\s+(?P<b>{_WHEN})\b"
    rf"|\((?P<c>{_WHEN})\s*(?:-|–|—|to)\s*(?P<d>{_WHEN})\)",
    re.I,
)


def _past_rules(me: str) -> tuple[re.Pattern[str], ...]:
    role = rf"(?:an?\s+)?(?P<role>(?:[\w-]+\s+){{0,3}}?{_TITLE_WORDS}|(?-i:[A-Z]{{2,6}}\d?))\b"
    years = r"(?:(?:\d+|\w+)\s+(?:years?|yrs)\s+)?"
    return tuple(
        re.compile(rule, re.I)
        for rule in (
            # "back when I was a yard hand at carters in te rapa"
            rf"\bwhen\s+{me}\s+was\s+{role}\s+(?:at|with|for)\s+{_EMP}",
            # "back at wipro when I was a senior test engineer"
            rf"\bback\s+at\s+{_EMP}\s+when\s+{me}\s+was\s+{role}(?=\s|[,.;]|$)",
            # "I was 12 years KFZ-Mechaniker at Autohaus Reisinger in Leibnitz, from 1989 to 2001"
            rf"\b{me}\s+was\s+{years}{role}\s+at\s+{_EMP}(?=[^.;]*\bfrom\s+{_WHEN}\s+(?:to|until|till)\s+{_WHEN})",
            # "before sahel I was 4 yrs warehouse supervisor at melcom"
            rf"\b{me}\s+was\s+(?:\d+|\w+)\s+(?:years?|yrs)\s+(?:as\s+)?{role}\s+at\s+{_EMP}",
            # "at wipro (2016 to 2021)"
            rf"\bat\s+{_EMP}\s+(?=\((?:19|20)\d\d\s*(?:-|–|—|to)\s*(?:19|20)\d\d\))(?P<role>)",
        )
    )


@dataclass(frozen=True)
class PastJob:
    employer: str
    role: str | None
    start: Period | None
    end: Period | None


def past_job(fact: "Fact") -> PastJob | None:
    """A job of the speaker's told as past, with its title or its years: "back when I was a yard
    hand at carters", "I was 12 years mechanic at Autohaus Reisinger, from 1989 to 2001", "at
    wipro (2016 to 2021)"; None where the sentence tells none, or tells someone else's."""
    person = fact.speaker
    if not person or person not in fact.text or p.is_question(fact):
        return None
    text = p.without_said(fact.text, person)
    for rule in _past_rules(re.escape(person)):
        match = rule.search(text)
        if match is None:
            continue
        role = " ".join((match.group("role") or "").split()) or None
        if role is not None and not _TITLED.search(role):
            continue  # "when I was a kid at school": no title
        employer = _employer(re.split(r"\s+in\s+", match.group("org"), maxsplit=1)[0])
        if employer is None or employer.lower() in p.NOT_NAMES:
            continue
        span = _SPAN_YEARS.search(text)
        start = end = None
        if span is not None:
            start = _period(span.group("a") or span.group("c"))
            end = _period(span.group("b") or span.group("d"))
        if role is None and start is None:
            continue
        if role is not None and not role[:2].isupper():
            role = role[:1].lower() + role[1:]
        return PastJob(employer, role, start, end)
    return None
