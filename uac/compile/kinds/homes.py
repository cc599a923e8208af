"""Homes: the city someone lives in, since when, until when, and whether they still do.

Read from the home statements of :mod:`uac.extract.states` in a clause whose
subject is the person (alone or "and others": a household moves together):
"moved to Bristol" (a start), "lives in Leeds" (current), "is moving to
Bristol in the summer" (planned), "used to live in York" (past); and as chats
put it: "five years in Manchester" (current), "have been in Bristol since the
24th" (a start), "got the rental in Geelong" (a home found, planned until a
later "moved on the 18th" or a statement makes it current), "our new place in
Leeds" (a start).  The place must be a city, region or country of the gazetteer
(:mod:`uac.extract.places`), which also gives its country.

Assembling, per person in the order things were said: a start or a present
statement in another city closes the open home (its end the new start); a plan
is a home not yet lived in (``current`` false) until a later statement says the
person lives there; a past statement is a closed home.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...dates import Period
from ...extract.dates import tense
from ...extract.places import lookup, lookup_as_written, lookup_lower, title_places
from ...extract.states import read_home, same_value
from . import patterns as p
from .model import Assembled, Kind, Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "home"

CUE = re.compile(
    r"\b(?:mov\w*|relocat\w*|liv\w*|settled|years\s+in|been\s+in|new\s+place|rental|flat|house|apartment|lease|townhouse|townhome|condo|duplex|"
    r"rent|landlord|landlady|mortgage|neighbou?rs?|back\s+home)\b",
    re.I,
)

_YEARS_IN = re.compile(rf"^(?i:(?:(?:nearly|almost|over|about)\s+)?(?:{p.NUMBER})\s+years\s+in)\s+(?P<place>{p.NAME})")
#: a home found or signed for: not lived in yet
_HOME_NOUN = r"(?:rental|flat|house|apartment|place|home|condo|unit|townhouse|townhome|duplex|studio|cottage|bungalow)"
_FOUND = re.compile(
    # "we signed a lease on a townhouse in Papillion!! moving Aug 16"
    rf"^(?:(?:has|have|just|finally)\s+)*(?:got|found|signed\s+for|signed\s+(?:the|a)\s+lease\s+(?:on|for)|rented|bought)\s+(?:the|a|an|our|my)\s+"
    rf"(?:new\s+|(?:\w+-)?bed(?:room)?\s+|little\s+|small\s+)*{_HOME_NOUN}\s+in\s+(?P<place>{p.NAME})"
)
#: a home said in lower case: "live in leipzig now", "moved to bristol"
_LOWER_HOME = re.compile(
    r"^(?:(?P<moved>moved|have\s+moved|has\s+moved)\s+to|(?:now\s+)?lives?\s+in|(?:is|are)\s+living\s+in|"
    r"(?P<moving>(?:is|are)\s+(?:moving|relocating)\s+to))\s+(?P<place>[a-z][a-z-]{2,})(?P<now>\s+now)?\b"
)
#: "Moving to Melbourne next month.": a move ahead told without its subject, the speaker's
_MOVING_TO = re.compile(rf"^(?i:moving|relocating)\s+(?:back\s+)?to\s+(?P<place>{p.NAME}|[a-z][a-z'’-]{{2,}})\b")
#: "moved on the 18th", "moved in last week", "have moved": a move that names no place
_MOVED = re.compile(
    r"^(?:(?:has|have|finally|just)\s+)*moved(?:\s+(?:in|house|over))?(?=\s*$|\s*[,.!;]|\s+(?:on|last|this|yesterday|and|at)\b"
    # "Moved a week past Saturday, on the 27th", "moved into the flat"
    r"|\s+(?:a|one|two|three)\s+(?:weeks?|days?)\b|\s+in(?:to)?\s+(?:the|our|my)\b)"
)
#: "Moving in on Saturday 27th February": the day a home found is moved into, ahead
_MOVING_IN = re.compile(r"^(?:(?:is|are|am)\s+)?moving\s+in\s+(?:on|this|next|at|in)\b", re.I)
#: "movers quoted R14 500 from Joburg to Durban", "the move from east point to charlotte": a move ahead
_MOVE_BETWEEN = re.compile(
    r"\b(?i:movers?|moving|move|removals?|relocation|relocating|van)\b[^.;!?]{0,60}?\bfrom\s+"
    rf"(?P<old>{p.NAME}|[a-z][a-z'’-]+(?:\s+[a-z][a-z'’-]+)?)\s+to\s+(?P<new>{p.NAME}|[a-z][a-z'’-]+(?:\s+[a-z][a-z'’-]+)?)\b"
    # "moving checklist pls: Hanoi to Da Nang, flying on the 2nd": the two towns without "from"
    rf"|\b(?i:moving|move|relocation|relocating)(?:\s+(?i:checklist|list|plan|planning|day|date|help|admin|logistics|"
    rf"pls|please|stuff|update|question|budget|mon|tue|tues|wed|thu|thurs|fri|sat|sun))*\s*[,:(—–-]?\s*(?:📦\s*)?(?P<old2>{p.NAME}|(?-i:[a-z][a-z'’-]{{2,}}))\s+(?:to|->|→)\s+"
    rf"(?P<new2>{p.NAME}|(?-i:[a-z][a-z'’-]{{2,}}(?:\s+[a-z][a-z'’-]+)?))\b"
)
#: "been in my apartment in east point since 2018": the home lived in since then
_HOME_SINCE = re.compile(
    rf"\b(?:has|have|had|beens?|is)\s+(?:been\s+)?(?:living\s+)?in\s+{p.OWNER}\s+(?:little\s+|old\s+)?(?:{_HOME_NOUN})\s+in\s+"
    rf"(?P<place>{p.NAME}|[a-z][a-z'’-]+(?:\s+[a-z][a-z'’-]+)?)\s+since\b"
)
#: "is moving from Nairobi to Mombasa", "moved from Leeds to York in May": a home left for another
_FROM_TO = re.compile(
    rf"^(?:(?P<ahead>(?:is|are|am)\s+(?:moving|relocating))|(?:has\s+|have\s+)?(?:moved|relocated))\s+(?:house\s+)?"
    rf"from\s+(?P<old>{p.NAME})\s+to\s+(?P<new>{p.NAME})"
)
_SINCE = re.compile(rf"^(?:has|have)\s+been\s+(?:living\s+)?in\s+(?P<place>{p.NAME})\s+since\b")


def _statements(fact: "Fact") -> list[tuple[str, str, str]]:
    """(person, place, event) of the homes ``fact`` tells."""
    out: list[tuple[str, str, str]] = []
    for clause in p.clauses(fact, CUE):
        moving = _FROM_TO.match(clause.rest)
        if moving is not None and lookup(moving.group("old")) is not None:
            # "is moving from Nairobi to Mombasa on 31st March": the home left and the one ahead
            ahead = moving.group("ahead") is not None
            out.append((clause.person, moving.group("old"), "current" if ahead else "past"))
            out.append((clause.person, moving.group("new"), "planned" if ahead else "start"))
            continue
        statement = read_home(clause.rest)
        if statement is not None and statement.value is not None:  # read_home always names the place
            event = statement.event
            if event == "current" and re.search(r"\bsince\b", fact.text) and p.when(fact) is not None:
                event = "start"  # "have lived in Zurich since 2017": lived in from then
            out.append((clause.person, statement.value, event))
            continue
        since = _SINCE.match(clause.rest)
        found = _FOUND.match(clause.rest)
        if since is not None:
            out.append((clause.person, since.group("place"), "start"))
        elif found is not None:
            out.append((clause.person, found.group("place"), "planned"))
        elif (lower := _LOWER_HOME.match(clause.rest)) is not None and (
            city := lookup_lower(lower.group("place"))
        ) is not None:
            # "we live in leipzig now": a city in lower case, as the gazetteer alone accepts it
            event = "start" if lower.group("now") or lower.group("moved") else "current"
            out.append((clause.person, city.name, "planned" if lower.group("moving") else event))
        elif _MOVED.match(clause.rest) and (clause.group or clause.person == fact.speaker):
            out.append((clause.person, "", "moved"))
        elif _MOVING_IN.match(clause.rest) and (clause.group or clause.person == fact.speaker):
            out.append((clause.person, "", "moving"))
    if all(event == "moved" for _, _, event in out) and not p.is_question(fact):
        out.extend(_years_before_a_move(fact))
    if not out and fact.speaker and not p.is_question(fact):
        text = p.plain_cached(fact.text, fact.session_date)
        new = re.search(
            rf"\b{re.escape(fact.speaker)}(?:'s|’s| and others')\s+new\s+{_HOME_NOUN}\s+in\s+(?P<place>{p.NAME})", text
        )
        if new is not None:
            out.append((fact.speaker, new.group("place"), "start"))
    if not out and fact.speaker and not p.is_question(fact):
        out.extend(_told_in_passing(fact))
    if not out and fact.speaker and not p.is_question(fact):
        text = p.plain_cached(fact.text, fact.session_date)
        years = _YEARS_IN.match(text)
        if years is not None and fact.speaker in text:
            out.append((fact.speaker, re.sub(r"\s+(?:and|but)$", "", years.group("place")), "current"))
    return out


def _years_before_a_move(fact: "Fact") -> list[tuple[str, str, str]]:
    """The home left after years in it, told with the move ("we moved into the baner flat on 30th,
    after almost 10 years in bengaluru"): a past home of the speaker's."""
    text = p.plain_cached(fact.text, fact.session_date)
    left = _AFTER_YEARS_IN.search(text)
    if left is None or not fact.speaker or not re.search(r"\bmov(?:ed|ing|e)\b", text, re.I) or p.HEDGES.search(text):
        return []
    city = _city(left.group("place"))
    return [(fact.speaker, city, "past")] if city is not None else []


#: the years lived in a town before a move: "after almost 10 years in bengaluru"
_AFTER_YEARS_IN = re.compile(
    r"\bafter\s+(?:almost\s+|nearly\s+|over\s+|about\s+|like\s+)?(?:\d+|a\s+few|\w+)\s+(?:years?|yrs)\s+in\s+"
    rf"(?P<place>{p.NAME}|(?-i:[a-z][a-z'’-]{{2,}}))"
)


def _told_in_passing(fact: "Fact") -> list[tuple[str, str, str]]:
    """A move or a home told beside other news: "movers quoted R14 500 from Joburg to Durban" (the
    home left, the one ahead), "been in my apartment in east point since 2018" (lived in since)."""
    text = p.plain_cached(fact.text, fact.session_date)
    person = fact.speaker or ""
    between = _MOVE_BETWEEN.search(text)
    subject = (
        re.search(r"(?P<who>\S+(?:\s+\S+)?)\s+(?:is|are|was|were|has\s+been|have\s+been)\s+$", text[: between.start()])
        if between
        else None
    )
    if (
        subject is not None
        and not subject.group("who").endswith(person.split()[-1])
        and "and others" not in subject.group("who")
    ):
        between = None  # "Sam's sister is moving from Leeds to York": someone else's move
    if between is not None and re.search(
        rf"\b(?:his|her|their|him|them)\b|{p.OWNER}\s+\w+['’]s\b", text[max(0, between.start() - 30) : between.end()]
    ):
        between = None  # "my sister's movers quoted her 900 from Leeds to York": whose move is not the speaker's
    if between is not None and not p.HEDGES.search(text):
        old = _city(between.group("old") or between.group("old2"))
        new = _city(between.group("new") or between.group("new2"))
        if old and new and old != new:
            return [(person, old, "current"), (person, new, "planned")]
        if new and not old and between.group("old2") and between.group("old2")[:1].islower():
            return [(person, new, "planned")]  # "moving sat dansoman to tema comm 25": a suburb left for a town
    ahead = _MOVING_TO.match(p.without_said(text, person))
    when = p.when(fact)
    if ahead is not None and when is not None and fact.session_date is not None and when.end >= fact.session_date:
        place = lookup_as_written(ahead.group("place"))
        if place is not None and place.kind == "city" and not p.HEDGES.search(text):
            return [(person, place.name, "planned")]  # "Moving to Melbourne next month."
    if re.match(r"(?i:moving\s+in)\b", p.without_said(text, person)) and p.when(fact) is not None:
        return [(person, "", "moving")]  # "Moving in on Saturday 27th February", its subject left out
    since = _HOME_SINCE.search(p.without_dates_written(fact.text))  # "since 2018" kept
    if since is not None and since.group(0).find(person) >= 0 and (city := _city(since.group("place"))):
        return [(person, city, "start")]
    return _home_named(fact, text, person)


#: the speaker's own home named with where it is, in the present: "our rent in Zurich is 2'150",
#: "the landlord of my flat in Leith" ("back home in Lagos" is where one comes from: no home now)
_HOME_NAMED = (
    r"(?:\b(?P<own>{me}['’]s|{me}\s+and\s+others['’])\s+(?:(?:little|old|tiny|current|rented)\s+)?"
    r"(?:rent|landlord|landlady|lease|mortgage|neighbou?rs?|flat|house|apartment|condo|place)\s+(?:here\s+|now\s+)?in"
    r")\s+(?P<place>{name})"
)
#: a present told of it: "is", "are", "has", "costs", "wants"
_NOW = re.compile(r"\b(?:is|are|has|have|costs?|wants?|goes|needs?|gets?|feels?|looks?)\b")


def _home_named(fact: "Fact", text: str, person: str) -> list[tuple[str, str, str]]:
    """The speaker's home named in passing in the present (:data:`_HOME_NAMED`): lived in now, a
    home kept only when no other is open (``lived``), never a move."""
    if not person or p.HEDGES.search(text) or tense(text) is True:
        return []
    me = re.escape(person)
    found = re.search(_HOME_NAMED.format(me=me, name=p.NAME), text)
    if found is None or not _NOW.search(text[found.end() :]):
        return []
    city = _city(found.group("place"))
    place = lookup(city) if city else None
    if city is None or place is None or place.kind != "city":
        return []  # "our flat in Leith" names a district, "our house in Spain" a country: no city told
    return [(person, city, "lived")]


def _city(name: str) -> str | None:
    """The gazetteer's name of a place said in any case ("east point" -> "East Point"), else None."""
    place = lookup(name) if name[:1].isupper() else (lookup(name.title()) or lookup_lower(name))
    if place is None and " " in name and name[:1].islower():
        return _city(name.split()[0])  # "to charlotte and ...": the one word
    return place.name if place is not None else None


def detect(fact: "Fact") -> list[Sighting]:
    if CUE.search(fact.text) is None:
        return []
    out = []
    for person, value, event in _statements(fact):
        period = p.when(fact)
        if event in ("moved", "moving"):
            # the move into the home found before (assembled with it, or nothing)
            out.append(
                Sighting(NAME, fact.id, {"person": person, "start": period, "_event": event, "_support": True}, None)
            )
            continue
        place = lookup(value)
        if place is None:
            continue
        fields: dict[str, Any] = {
            "person": person,
            "city": place.name,
            "country": place.country,
            "start": period if event in ("start", "planned") else None,
            "end": None,
            "_event": event,
        }
        out.append(Sighting(NAME, fact.id, fields, f"{person}|{place.name.lower()}"))
    return out


def assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, "Fact"]) -> list[Assembled]:
    homes: list[dict[str, Any]] = []
    for sighting, fact in p.in_order(sightings, facts):
        fields = sighting.fields
        person, event = fields["person"], fields["_event"]
        mine = [h for h in homes if h["person"] == person]
        if event == "moving":
            # "Moving in on Saturday 27th February": the day the home found is to be moved into
            found = next((h for h in reversed(mine) if h["_planned"]), None)
            if found is not None and fields["start"] is not None:
                found["start"] = fields["start"]
                found["sources"].append(fact.id)
            continue
        if event == "moved":
            found = next((h for h in reversed(mine) if h["_planned"]), None)
            greeted = _greeted_from(fact, facts) if found is None else None
            if found is None and greeted is not None:
                # "Hello from Porto!! I moved on saturday, the 6th": the new home is where the message is sent from
                fields = {**fields, "city": greeted.name, "country": greeted.country, "end": None}
                target = {**_record(fields, fact), "current": True}
                homes.append(target)
                for home in mine:
                    if home["current"]:
                        home["current"] = False
                        home["end"] = home["end"] or target["start"]
                continue
            if found is None:
                continue
            found.update(_planned=False, current=True, start=fields["start"] or found["start"])
            found["sources"].append(fact.id)
            fields, target = found, found
            for home in mine:
                if home is not target and home["current"]:
                    home["current"] = False
                    home["end"] = home["end"] or target["start"]
            continue
        same = next((h for h in reversed(mine) if same_value(h["city"], fields["city"])), None)
        if event == "lived":
            # "our rent in Zurich is 2'150": the home now, where no other is open (never a move)
            if same is not None and same["current"]:
                same["sources"].append(fact.id)
            elif not any(h["current"] or h["_planned"] for h in mine):
                homes.append({**_record(fields, fact), "current": True})
            continue
        if same is not None and (event == "past" or same["current"] or same["_planned"]):
            if fact.id not in same["sources"]:
                same["sources"].append(fact.id)
            same["start"] = same["start"] or fields["start"]
            if event in ("start", "current"):
                same["_planned"] = False
                same["current"] = True
                target = same
            elif event == "past":
                same["current"] = False
                continue
            else:
                continue
        elif event == "past":
            homes.append({**_record(fields, fact), "current": False})
            continue
        else:
            target = {**_record(fields, fact), "current": event != "planned", "_planned": event == "planned"}
            homes.append(target)
            if event == "planned":
                continue
        for home in mine:
            if home is not target and home["current"]:
                home["current"] = False
                home["end"] = home["end"] or target["start"]
    _presume_moved(homes, facts)
    out = []
    for home in homes:
        record = {k: v for k, v in home.items() if not k.startswith("_")}
        out.append(Assembled(kind.name, record, list(record["sources"])))
    return out


def _presume_moved(homes: list[dict[str, Any]], facts: dict[str, "Fact"]) -> None:
    """A home found with the day it is to be moved into, that day passed before the latest
    session and no move told: presumed lived in from then (``presumed``), the home before it
    left that day."""
    as_of = max((f.session_date for f in facts.values() if f.session_date is not None), default=None)
    for home in homes:
        start = home.get("start")
        if not home["_planned"] or not isinstance(start, Period) or as_of is None or home["said_on"] is None:
            continue
        if not (home["said_on"] <= start.start < as_of) or start.days > 7:
            continue
        home.update(_planned=False, current=True, presumed=True)
        for other in homes:
            if other is not home and other["person"] == home["person"] and other["current"]:
                other["current"] = False
                other["end"] = other["end"] or start


#: a message sent from its place: "Hello from Porto!!", "greetings from salthill", "reporting live from busan"
_FROM_HERE = re.compile(
    r"(?i:\b(?:hello|hi|hey|greetings|reporting\s+live|kia\s+ora|hola|ol[áa]|bonjour|hallo|hei|servus|ciao|salut|"
    r"namaste|howzit)\s+(?:from|desde|de|aus|da))\s+"
    rf"(?P<place>{p.NAME}|(?-i:[a-z][a-z'’-]+(?:\s+[a-z][a-z'’-]+)?))"
)


def _greeted_from(fact: "Fact", facts: dict[str, "Fact"]):
    """The place the message of ``fact`` greets from (:data:`_FROM_HERE`), a city or town of the
    gazetteer, or None."""
    message = [f for f in facts.values() if f.session_id == fact.session_id and f.evidence[:1] == fact.evidence[:1]]
    for other in message:
        found = _FROM_HERE.search(other.text)
        if found is None:
            continue
        raw = found.group("place")
        # "hello from da nang": the two words lower case, else the first ("greetings from salthill today")
        titled = title_places(raw)
        if titled != raw and titled[:1].isupper():
            raw = titled
        place = lookup(raw) if raw[:1].isupper() else lookup_lower(raw.split()[0])
        if place is not None and place.kind == "city":
            return place
    return None


def _record(fields: dict[str, Any], fact: "Fact") -> dict[str, Any]:
    record = {k: v for k, v in fields.items() if not k.startswith("_")}
    record.update(said_on=fact.session_date, sources=[fact.id], _planned=False)
    return record


CLASS = p.record_class(
    "Home",
    {"city": str, "person": str, "country": str, "start": Period, "end": Period, "current": bool, "presumed": bool},
    "A home someone lives or lived in (offline rules): city, country (ISO code), start, end, whether it is current.",
)
DESCRIPTION = (
    "Homes: the city someone lives or lived in, its country, since and until when, whether they still live there."
)
