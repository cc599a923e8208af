"""A plan whose time has come, and the later words that say it was taken.

A trip planned for a day or a month is often never reported in a shape the trip rules
read: "London don finish! 🇬🇧", "athlone was grand in the end", "NEW YORK!!!" then "back
since Tuesday night", "We're back since Saturday and I'm still on Lisbon time".  Each
alone is no trip (a place named, a feeling); after a plan of that place whose time has
come, said by the person who planned it, it is the plan done.  So the bar is lower here
than for a trip no plan foretold, and it is still a bar:

- the later sentence is said in a later session by the plan's person, and the plan's time
  has come on its day; a plan with no date is done only by a return from its place;
- the sentence names the plan's place, whatever its case ("legoland" for "Legoland
  Windsor" only where the rest is a word of kind: "Arima" for "Arima Onsen");
- it tells the plan was taken: the place after in, at or from in the past tense; the
  place opening the sentence with a word looking back ("was", "done", "recap", "don
  finish", an exclamation) or in a sentence in the past tense ("daejeon 4th to 7th, ate my
  body weight in jeon"); or a return in the sentence ("back since", "got back", "we're
  back") with no other place it came back from; a sentence that is only the place
  exclaimed counts when the next sentence of its message tells the return or looks back;
- never a question, a hedge, a wish or a trip called off (a plan said again, "Lisbon is in
  6 days", is said before its time has come, or tells no return).

A plan whose last day has passed by the latest session, with no report and no word
that called it off, is presumed done (:func:`plan_over`): the record says ``done`` with
``presumed`` true, so a count of trips taken holds it and a reader can tell it from a
trip reported.  A report of the place with no date of its own, first said after the plan
and within :data:`REPORT_DAYS` of its last day, is that plan's report (one trip, not two).
"""

from __future__ import annotations

import datetime as _dt
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...extract.dates import tense
from ...extract.places import fold
from . import patterns as p

if TYPE_CHECKING:
    from ...facts.model import Fact

#: "... at the weekend in Leeds ...": a place named in a sentence
_IN_PLACE = re.compile(rf"\b(?:in|at|from)\s+(?P<place>{p.NAME})|\b(?P<told>{p.NAME}),\s+it\s+was\b")
#: words of a kind of place that may be left out when it is named again ("Arima Onsen" -> "Arima")
_KIND_WORDS = {"onsen", "spa", "beach", "island", "islands", "village", "resort"}
#: what may follow a place that opens a sentence looking back: "Oslo was cold", "London debrief:",
#: "legoland done!", "London don finish!", "NEW YORK!!!"
_LOOKED_BACK = re.compile(
    r"^\s*(?:(?:weekend|trip|holiday|visit|break|itself)\s*(?=[:!]|was\b|were\b))?\s*(?:(?:was|were)\b|(?:done|don\s+finish|finished|over|wrapped|recap|debrief|update|report|review|diary)\b|[:=]|!)",
    re.I,
)
#: a return told in the sentence
_RETURN = re.compile(
    r"\b(?:(?:we|i)\s*(?:['’]re|are|am|['’]m)\s+(?:\w+\s+)?back|back\s+(?:since|home|safe)|got\s+back|came\s+back|got\s+home|"
    r"flew\s+(?:back|home)|drove\s+(?:back|home)|returned|home\s+since|just\s+back|made\s+it\s+home)\b",
    re.I,
)
#: a return from some other place: "got back from Paris" names where it came back from
_BACK_FROM = re.compile(r"\b(?:back|home|returned)\s+(?:\w+\s+)?from\s+(?P<place>[\w'’ -]{2,40})", re.I)
_CALLED_OFF = re.compile(
    r"\b(?:cancel(?:l)?ed|called\s+off|scrapped|fell\s+through|postponed|didn['’]t\s+happen|not\s+going|is\s+off)\b",
    re.I,
)
#: a place that opens a sentence about someone else: "Daejeon is where my parents went", "Lisbon, Tom says, was ..."
_OTHER_SUBJECT = re.compile(r"^\s*(?:is|are|has|'s|,?\s*(?:my|his|her|their)\s)", re.I)
#: a label before the news: "First: Copenhagen was great", "update: london done"
_LABEL = re.compile(r"^(?:[\w'’]+\s+){0,2}[\w'’]+:\s+")
#: a sentence that is the place exclaimed and nothing more: "NEW YORK!!!", "Lisbon 🇵🇹!!"
_ONLY_PLACE_TAIL = re.compile(r"^[\s!.…\W]*$")


def place_names(destination: str) -> list[str]:
    """The folded names a later sentence may call the place by: its own, and its name without
    a trailing word of kind or the town it lies in ("Arima Onsen" -> "arima onsen", "arima";
    "Legoland Windsor" -> "legoland windsor", "legoland")."""
    from ...extract.places import lookup

    name = fold(destination)
    words = name.split()
    out = [name]
    last = destination.split()[-1]
    if len(words) > 1 and (
        words[-1] in _KIND_WORDS or (lookup(last[:1].upper() + last[1:]) is not None and lookup(destination) is None)
    ):
        out.append(" ".join(words[:-1]))
    return out


@lru_cache(maxsize=1024)
def _place_pattern(destination: str) -> "re.Pattern[str]":
    """The names of :func:`place_names` as one pattern of whole words, the longest first."""
    names = "|".join(re.escape(name) for name in place_names(destination))
    return re.compile(rf"(?<![\w'’-])(?:{names})(?![\w'’-])")


def _named_at(text: str, destination: str) -> "re.Match[str] | None":
    """Where the place is named in ``text`` (folded, whole words), the longest name first."""
    return _place_pattern(destination).search(fold(text))


def _no_plan_words(fact: "Fact", text: str) -> bool:
    return not (p.is_question(fact) or p.HEDGES.search(text) or p.WISHES.search(text) or _CALLED_OFF.search(text))


def _returned_from_it(text: str, destination: str, speaker: str | None = None) -> bool:
    """A return in ``text`` of the speaker (not "Piotr flew back to London", "she got back") and, if it
    says where from, from this place."""
    back = _RETURN.search(text)
    if back is None:
        return False
    before = text[: back.start()]
    someone = [n for n in _NAMED_SUBJECT.findall(before) if n not in (speaker, "I", "We")]
    if someone or _PRONOUN_SUBJECT.search(before):
        return False
    origins = [m.group("place") for m in _BACK_FROM.finditer(text)]
    return not origins or any(_named_at(origin, destination) for origin in origins)


#: someone else who did the returning: a name, or he, she or they, just before the return
_NAMED_SUBJECT = re.compile(r"(?-i:\b(" + p.CAPITALISED + r"))(?:\s+and\s+others)?\s+(?:just\s+|finally\s+)?$")
_PRONOUN_SUBJECT = re.compile(
    r"\b(?:he|she|they)(?:['’]s|['’]re)?\s+(?:just\s+|finally\s+|is\s+|are\s+|was\s+)?$", re.I
)


def tells_taken(fact: "Fact", text: str, destination: str, following: str | None, *, undated: bool = False) -> bool:
    """Does ``text`` (the fact's words, dates plain) tell the plan to ``destination`` was
    taken?  ``following``: the next sentence of its message, if any; ``undated``: the plan
    has no date, so only a return from its place tells it ("We're back since Saturday and
    I'm still on Lisbon time")."""
    if not _no_plan_words(fact, text):
        return False
    if undated:
        return _returned_from_it(text, destination, fact.speaker) and _named_at(text, destination) is not None
    body = text.split(" said: ", 1)[1] if " said: " in text[:60] else text
    label = _LABEL.match(body)
    if label is not None and _named_at(label.group(0), destination) is None:
        body = body[label.end() :]  # "First: Copenhagen was great", but "Ghent update: in the end only one night"
    if tense(text) is False:
        named = {fold(m.group("place") or m.group("told")) for m in _IN_PLACE.finditer(text)}
        if any(name in named for name in place_names(destination)):
            return True
    folded = fold(body)
    at = _named_at(folded, destination)
    if at is None:
        return False
    opens = folded[: at.start()].strip(" \"'“‘-–—,!…") in ("", "the", "our", "my")  # "The Wrocław weekend: ..."
    rest = folded[at.end() :]
    if opens and (_LOOKED_BACK.match(rest) or (tense(text) is False and not _OTHER_SUBJECT.match(rest))):
        return True  # "daejeon 4th to 7th, ate my body weight in jeon": the place, then what was done there
    if _returned_from_it(body, destination, fact.speaker):
        return True
    if opens and _ONLY_PLACE_TAIL.match(rest) and following:
        return bool(_RETURN.search(following)) or tense(following) is False
    return False


def trip_sessions(trip: Any, facts: dict[str, "Fact"]) -> set[str]:
    """The sessions that told the trip so far."""
    return {facts[i].session_id for i in trip.sources if i in facts}


def plans_done(plans: list[Any], facts: dict[str, "Fact"], mark: Any) -> None:
    """Call ``mark(trip, fact)`` for each plan of ``plans`` (the trips of :mod:`.trips`,
    planned) that a later fact of its person tells was taken (see the module)."""
    ordered = sorted(facts.values(), key=p.order_key)
    for index, fact in enumerate(ordered):
        said = fact.session_date
        if said is None or fact.speaker is None:
            continue
        text: str | None = None
        folded: str | None = None  # the fact's words folded once, however many plans it is read for
        for trip in plans:
            if trip.fields["status"] != "planned" or trip.first_said is None:
                continue
            if fact.speaker != trip.fields.get("person"):
                continue
            if said <= trip.first_said or (trip.when is not None and said < trip.when.start):
                continue
            destination = trip.fields.get("destination")
            if not destination:
                continue
            folded = folded if folded is not None else fold(fact.text)
            if _place_pattern(destination).search(folded) is None or fact.session_id in trip_sessions(trip, facts):
                continue
            text = text if text is not None else p.plain_cached(fact.text, said)
            nxt = ordered[index + 1] if index + 1 < len(ordered) else None
            following = (
                p.plain_cached(nxt.text, said)
                if nxt is not None and nxt.session_id == fact.session_id and nxt.evidence[:1] == fact.evidence[:1]
                else None
            )
            if tells_taken(fact, text, destination, following, undated=trip.when is None):
                mark(trip, fact)


#: how long after a plan's last day an undated report of its place is still its report
REPORT_DAYS = 60


def last_day(fields: dict[str, Any]) -> "_dt.date | None":
    """The last day of a trip's own dates: its end, else its start and nights (never the day
    a sentence dated, which may be the booking's: "last night I booked four nights in Lisbon")."""
    end, start, nights = fields.get("end"), fields.get("start"), fields.get("nights")
    if end is not None:
        return end.end
    if start is not None:
        return start.end + _dt.timedelta(days=nights) if isinstance(nights, int) else start.end
    return None


def plan_over(fields: dict[str, Any], first_said: "_dt.date | None", as_of: "_dt.date | None") -> bool:
    """Has a dated plan's time passed by ``as_of`` (the latest session's day)?  Only a plan
    whose days were ahead when it was first said (``first_said``)."""
    last = last_day(fields)
    if last is None or first_said is None or as_of is None:
        return False
    return first_said <= last < as_of
