"""Trips told in no fixed shape: a place of the gazetteer and the signs of going there.

The rules of :mod:`.trips` read the shapes people write most ("flew to Lisbon", "got back
from Oslo", "three nights in Rome").  People also write "Tokyo done!! 5 nights wasn't
enough", "Bintan = exactly what I needed. Fri to Sun, 2 nts", "in Manila 10-13 for work",
"Da Nang's off, client moved the SteerCo", "Seoul in <4 wks, 4 nights".  What they share
is a *place* and *signs* of a journey; this reader, tried only where the shaped rules found
nothing in the sentence, asks for both:

- a place: a city, region or country of the gazetteer (never a name it holds as part of a
  longer one, "Hanoi Lane"); not where someone lives or moves ("lives in", "moving to"),
  is back home ("back in Auckland") or comes from ("Priya from Leeds");
- signs, of four kinds, of which two must be there: the journey (a flight, a drive, a
  ferry, the airport, a passport), the stay (nights, "nts", a hotel, an airbnb, a villa),
  the trip itself (a trip, a holiday, a long weekend, a getaway, a recap) and its span
  ("Fri to Sun", "10-13", "for 4 days"); a place tied to its trip ("X done", "X recap",
  "X's off", "X in 2 wks", "X was ok") is one of them;
- a status: cancelled ("X's off", "called off"), planned (said ahead: "booked", "in 2 wks",
  "next month", a date after the day it was said), done (said in the past, "X done",
  "back"); a sentence that says none of them is left alone.

Wishes, hedges, questions and other people's trips ("my sister is in Paris for a week") are
no trip of the speaker's here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...extract.dates import tense
from ...extract.places import is_place, lookup, lookup_as_written, lookup_lower, title_places
from . import patterns as p
from .meal_signs import _first_person
from .model import Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

_JOURNEY = p.word_list(
    "flew flight flights fly flying flies landed landing drove drive driving road_trip train ferry ferries cruise "
    "sailed layover airport jetlag jet_lag jetlagged jet_lagged passport visa boarding red-eye redeye roadie"
)
_STAY = p.word_list(
    "night nights nts airbnb hotel hostel resort villa bach cabin chalet motel stayed staying checked_in checked_out"
)
_TRIP = p.word_list(
    "trip holiday hols vacation vacay getaway long_weekend long_wknd long_wkend weekend_away honeymoon tour itinerary "
    "sightseeing recap back_from back_fr back_fae got_back returned_from for_work client conference offsite off-site"
)
_SPAN = re.compile(
    r"\b(?:(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)\w*\s+(?:to|-|–|til|till|until)\s+"
    r"(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)\w*|\d{1,2}\s*[-–]\s*\d{1,2}\b|for\s+(?:a|one|two|three|four|"
    r"five|six|seven|ten|\d+)\s+(?:days|day|weeks?|wks?)|(?:a|one|two|three|four|five|six|seven|\d+)\s+days?\s+in\b"
    r"|\b\d{1,2}\.\s*[-–]\s*\d{1,2}\.(?:\d{1,2}\.)?"  # "18.–19.10.": days as German and Czech write them
    # "13th to 17th", "the 9th to the 11th", "18th-19th", "may 14 to the 19th"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s*(?:to|-|–|til|till|until)\s*(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b)",
    re.I,
)
#: the place tied to its trip, after it ("X done", "X's off") or before it ("back from X")
_TIED_AFTER = (
    # "asheville w jaylen was the 9th to the 11th": who went with the speaker, between the place and its verb
    r"(?:\s+(?:w/?|with)\s+[\w'’-]+(?:\s+(?:and|&)\s+[\w'’-]+)?(?=\s+(?:was|were)\b))?"
    r"(?:['’]s\s+off|\s+(?:is|was|got)\s+(?:officially\s+)?(?:off|cancell?ed)|\s+(?:didn['’]t|did\s+not|never)\s+happen|\s+fell\s+through|\s+(?:done|recap|debrief|wrapped|trip|was|were|booked|is\s+booked|"
    r"in\s+(?:<\s*)?\d+\s*(?:wks?|weeks?|days?|sleeps|nights?)|=|"
    # "a quick Coorg trip", "the Ladakh bike trip is cancelled", "edinburgh weekend is off", "Moab this weekend"
    r"(?:[\w-]+\s+)?(?:trip|weekend|wknd|getaway|holiday|hols|break|cruise|road\s+trip)|(?:this|next|last)\s+(?:weekend|week|wknd|month)))\b"
)
#: a place called off: "Lamu is off", "Da Nang's off", "Sri Lanka didn't happen", "Lisbon fell through"
_OFF = r"(?:['’]s\s+off|\s+(?:is|was|got)\s+(?:officially\s+)?(?:off|cancell?ed)|\s+(?:didn['’]t|did\s+not|never)\s+happen|\s+fell\s+through)\b"
_RETURN = (
    r"\b(?:(?:back|home|returned)\s+(?:\w+\s+)?(?:from|fr|fae)|booked"
    # "returned from business trip in Singapore", "just home from a gig weekend in belfast"
    r"|(?:returned|home)\s+from\s+(?:a|an|the|my|our)?\s*[^.;!?]{0,30}?\bin"
    # "got back yesterday from shooting a wedding in X", "back from a conference in X"
    r"|back\s+(?:\w+\s+)?from\s+(?:a|an|the|my|our|\w+ing)\s+[^.;!?]{0,40}?\bin)"
)
_TIED_BEFORE = (
    rf"(?:{_RETURN}|\b(?:in|to)\s+(?=\S+\s+(?:for\s+work|for\s+a|\d))"
    # "3 nights in Anjuna", "a gig weekend in belfast", "a week on Orkney", "trip to Prague"
    rf"|\b(?:{p.NUMBER}|a|two)\s+(?:nights?|nts|days?|weeks?)\s+(?:in|on|at)|\b(?:weekend|week|holiday|trip|break|getaway)\s+(?:in|on|to)"
    # "we did lonavala", "we're finally doing savannah", "me and monique are doing new orleans"
    r"|\b(?:we|i|me|us)\b(?:[^.;!?]{0,40}?(?:['’]re|\s+are|\s+were|\s+am|\s+is|['’]m))?\s+(?:finally\s+|also\s+|just\s+)?(?:doing|did)"
    # "going hobart with aisha 17th to 19th", "went sydney for easter, 3 nights": a journey told without its "to"
    r"|\b(?:went|going|goin|gone|heading|headed|flying)"
    # "we were in Maribor the weekend 18.–19.10.": a stay told with its days
    r"|\b(?:we|i)\s+(?:were|was)\s+(?:in|at))\s*$"
)
#: a town the gazetteer does not hold, after a return or a booking ("back from kalbarri", "booked Broome")
_TOWN_AFTER = re.compile(rf"{_RETURN}\s+(?P<low>[a-z][a-z'’-]+(?:\s+[a-z][a-z'’-]+)?)", re.I)
_CANCELLED = re.compile(
    r"['’]s\s+off\b|\b(?:is|was|were)\s+off\b|\b(?:cancel(?:l)?ed|called\s+off|scrapped|fell\s+through|bailed|pulled\s+out|"
    r"not\s+going|didn['’]t\s+happen)\b",
    re.I,
)
_PLANNED = re.compile(
    r"\b(?:(?:after|when|once|until|till|before)\s+(?:\w+\s+){0,3}?get\s+back|will|going\s+to|gonna|booked|planning|plan\s+is|in\s+(?:<\s*)?\d+\s*(?:wks?|weeks?|days?|sleeps)|"
    r"next\s+(?:week|wk|month|year|weekend|wknd|\w+day)|can'?t\s+wait|leaving|countdown|this\s+coming)\b|'ll\b",
    re.I,
)
_DONE = p.word_list("done recap debrief wrapped back_from back_fr back_fae got_back returned was were loved survived")
#: a trip only thought of ("could do Osaka", "should we", "thinking Osaka") or longed for ("made me miss the
#: Lamu trip even more")
_MAYBE = p.word_list("could should_i should_we thinking considering love_to dream miss missing")
_NOT_THE_SPEAKERS = re.compile(
    r"\b(?:lives?|living|lived|based|born|grew\s+up|moved|moving|move|relocat\w+|from)\s+(?:in\s+|to\s+|back\s+to\s+)?$"
    r"|\b(?:back|home|here)\s+in\s+$",
    re.I,
)
#: someone else's trip: a person or kin opens the sentence and the speaker is not in it
_OTHER = re.compile(
    # "Lol my coworker marisol just got back from cancun": an interjection before it
    r"^(?:(?i:lol|lmao|omg|ugh|haha\w*|wow|ngl|tbh|welp|ha)[,!.]*\s+)*(?:(?:my|our|his|her|their)\s+)?(?:(?:sister|brother|mum|mom|mam|mother|dad|father|parents|wife|husband|partner|"
    r"girlfriend|boyfriend|fianc[ée]e?|son|daughter|kids?|grandma|grandpa|gran|granny|nan|nana|niece|nephew|in-laws|"
    r"friend|friends|colleague|coworker|"
    r"co-worker|workmate|mate|boss|cousin|aunt|uncle|neighbou?r|flatmate|roommate)"
    # "my cousin Hương", "my cousin chị Hương": a kin word, a short honorific in lower case, a name
    r"(?:\s+(?:[{low}]{{1,4}}\s+)?{cap})?(?:\s+and\s+(?:his|her|their)\s+\w+)?|he|she|they|"
    # a name, or a word opening the sentence and the name after it ("Also kavya just got back from bali"; "Also
    # booked broome" names no one)
    r"(?P<name>(?!{openers}\b){cap})|(?-i:{openers})\s+\w+)\b(?:['’]s)?\s+(?:\w+\s+)?(?:is|was|are|were|has|had|went|just|got|flew|"
    r"moved|moving|off|heading|going|in|back|booked|planned|took|did|visited|spent|drove|came|left|returned|arrived)\b".format(
        cap=p.CAPITALISED,
        low=p.LOWER_LETTERS,
        openers="(?:Also|Just|Finally|So|And|But|Then|Anyway|Ok|Okay|Well|Oh|Btw|Yeah|Yes|Honestly|Sadly|Luckily|Actually)",
    )
)
#: someone else the clause before the place is about: "a friend who has just come back from", "my sister, who flew to"
_WHO_ELSE = re.compile(
    r"\b(?:friend|friends|sister|brother|colleague|coworker|co-worker|mum|mom|dad|someone|somebody|guy|woman|man|lady|"
    r"neighbou?r|cousin|couple|people|family|boss|mate|aunt|uncle|he|she|they)\b,?\s+(?:who|that|whose)\b(?![^.;!?]*\b(?:I|me|we|us)\b)",
    re.I,
)
#: someone else, by a pronoun, just before the place: "she's just back from", "he got back from", "they flew to"
_SHE_WENT = re.compile(
    r"\b(?:he|she|they)(?:['’]s|['’]re|\s+is|\s+was|\s+were|\s+are|\s+has|\s+had|\s+just|\s+got|\s+flew|\s+went)\b"
    r"[^.;!?,]{0,25}$",
    re.I,
)
#: the speaker as a subject (not "my team"): "meera and me are planning"
_ME = re.compile(r"\b(?:i|we|me|us)\b", re.I)
#: a sentence that is a place and nothing more: "Lisbon.", "2. Lisbon."
_PLACE_ALONE = re.compile(rf"^\s*(?:\d+[.)]\s*)?(?P<place>{p.NAME})\s*[.!:]*\s*$")
#: the next sentence calls it off: "Obviously we're not going.", "Not happening.", "Cancelled."
_NOT_GOING = re.compile(
    r"^\s*(?:(?:so|sadly|obviously|well|yeah|and)\s+)*(?:(?:me|we|I|us)(?:\s+and\s+others)?\s+(?:are|am|is|['’]re|['’]m)\s+not\s+going|"
    r"not\s+(?:going|happening)|cancell?ed|called\s+off|off)\b",
    re.I,
)
_FIRST = re.compile(r"\b(?:me|my|we|us|our|i)\b", re.I)


#: how many sentences on each side of a place's, in its message, may hold the signs of its trip
AROUND = 1


def in_turns(facts: "list[Fact]", told: set[str], tripped: "set[str] | None" = None) -> list[Sighting]:
    """The trips the facts no rule has told of tell with the signs of their turn: a sentence
    and the ones beside it in the same message ("Tokyo done!!" then "5 nights wasn't enough").
    A country is no trip of its own where a rule read a trip in the same message (``tripped``:
    "just back from japan" then "five nights in kyoto and three in osaka")."""
    out: list[Sighting] = []
    messages = {(f.session_id, f.evidence[:1]) for f in facts if f.id in (tripped or ())}
    #: the facts of each message, gathered once (a history holds thousands of them)
    by_message: dict[tuple[str, tuple[str, ...]], list["Fact"]] = {}
    for fact in facts:
        by_message.setdefault((fact.session_id, tuple(fact.evidence[:1])), []).append(fact)
    for index, fact in enumerate(facts):
        if fact.id in told or not fact.speaker:
            continue
        around = [
            other
            for other in facts[max(index - AROUND, 0) : index] + facts[index + 1 : index + 1 + AROUND]
            if other.session_id == fact.session_id and other.evidence[:1] == fact.evidence[:1]
        ]
        message = by_message[(fact.session_id, tuple(fact.evidence[:1]))]
        found = detect(
            fact,
            " ".join(_plain(other, fact.speaker) for other in around),
            " ".join(_plain(other, fact.speaker) for other in message if other is not fact),
        )
        if (fact.session_id, fact.evidence[:1]) in messages:
            found = [s for s in found if not _a_country(s.fields.get("destination"))]
        out.extend(found)
    return out


def _a_town_or_land(name: str) -> bool:
    """Whether the gazetteer holds ``name`` as a city or a country (not a lake, a canyon, a region)."""
    place = lookup_as_written(name)
    return place is not None and place.kind in ("city", "country")


def _a_country(name: "str | None") -> bool:
    place = lookup(name) if name else None
    return place is not None and place.kind == "country"


def _with_dates(fact: "Fact", person: str) -> str:
    """The fact's words with its date phrases, without the dates the extractor wrote in."""
    return _first_person(p.without_said(p.without_dates_written(fact.text), person), person)


def _plain(fact: "Fact", person: str) -> str:
    return _first_person(p.without_said(p.plain_cached(fact.text, fact.session_date), person), person)


def detect(fact: "Fact", around: str = "", message: str = "") -> list[Sighting]:
    """A trip of the speaker's, told in no shape the other rules read (usually nothing); the
    signs may be in ``around``, the sentences beside it in its message; a return's stay
    anywhere in the ``message`` ("back from kalbarri w jayden. got back sat. 5 nights")."""
    from .trips import _Rule, _sighted

    person = fact.speaker
    if not person or p.is_question(fact):
        return []
    text = _plain(fact, person)
    if p.HEDGES.search(text) or p.WISHES.search(text) or _MAYBE.search(text):
        return []
    other = _OTHER.match(text)
    if (
        other is not None
        and other.group("name")
        and is_place(other.group("name"))
        and re.match(
            r"(?:['’]s\s+|\s+(?:\w+\s+)?(?:is|was|were|are|in)\b|\s+got\s+(?:cancell?ed|called\s+off|postponed)\b)",
            text[other.end("name") :],
        )
    ):
        other = None  # "Lisbon was ...": a place opens the sentence, not a person ("Nadia just got back" is one)
    elif other is not None and not other.group("name"):
        opened = re.match(r"\w+\s+(?P<word>[a-z][\w'’-]+)\s", other.group(0))
        if opened is not None and lookup_lower(opened.group("word")) is not None:
            other = None  # "and gokarna is cancelled": the word after "and" is a place, not a person
    alone = _PLACE_ALONE.match(text)
    if (
        alone is not None
        and is_place(alone.group("place"))
        and _NOT_GOING.match(around.split(". ")[-1] if around else "")
    ):
        # "2. Lisbon." then "Obviously we're not going.": a plan of the place called off, told by its name alone
        from .trips import _Rule as _R

        rule = _R(re.compile(re.escape(alone.group("place"))), "cancelled", "start")
        return _sighted(fact, alone.group("place"), rule, "", town=True, weak=True)
    both = f"{text} {around}"
    dated = _with_dates(fact, person)  # "Osaka in 3 wks": the date phrase ties the place to its trip
    kinds = sum(1 for sign in (_JOURNEY, _STAY, _TRIP) if sign.search(both))
    kinds += bool(_SPAN.search(f"{dated} {around}"))  # "the 9th to the 11th": a span is a date phrase
    #: a stay or its span beside it: enough for a town the gazetteer does not hold
    stayed = any(sign.search(f"{text} {message or around}") for sign in (_STAY, _SPAN))
    for start, raw in _names(dated):
        end = start + len(raw)
        if other is not None and not _FIRST.search(text[other.end() : max(text.find(raw), other.end())]):
            continue  # "my coworker Dani just got back from Alaska": the speaker is not who went
        if re.match(r"['’]s\b", dated[end:]) and re.search(r"\b(?:at|to)\s+$", dated[:start]):
            continue  # "one night at Florence's": a friend's home, not a trip to Florence
        if _WHO_ELSE.search(dated[max(0, start - 80) : start]):
            continue  # "I have a friend who has just come back from Tromsø": the friend went
        if _SHE_WENT.search(dated[max(0, start - 40) : start]):
            continue  # "Saw Kemi briefly, she's just back from Accra": she went
        returned = bool(re.search(rf"{_RETURN}\s*$", dated[:start], re.I))
        if not returned and _NOT_THE_SPEAKERS.search(dated[:start]):
            continue  # "Priya from Leeds", but "back from Leeds"
        if re.match(r"\s+(?:to|->|→)\s+\w", dated[end:]) and re.search(
            r"\b(?:fly|flying|flew|drive|driving|drove|going|went|from)\s+$", dated[:start], re.I
        ):
            continue  # "flying pune to kochi": the town left, not the one gone to
        before = re.search(_TIED_BEFORE, dated[:start], re.I)
        if before is not None and _done_there(before.group(0), raw, text):
            before = None
        tied = returned or bool(re.match(_TIED_AFTER, dated[end:], re.I)) or before is not None
        # "Lamu is off.": a plan called off, told by the place alone; it only closes a plan of it
        called_off = not kinds and bool(re.match(_OFF, dated[end:]))
        if not tied or (kinds < 1 and not called_off):
            continue
        status = "cancelled" if called_off else _status(fact, text) or _status(fact, around)
        if status is None:
            continue
        # "got back from green lake saturday": the day of a return is the trip's end
        rule = _Rule(re.compile(re.escape(raw)), status, "end" if returned else "start")
        nights = _nights(text) or _nights(around) or (_nights(message) if returned else None)
        town = called_off or (returned and stayed)  # a place called off only closes a plan of that name
        found = _sighted(fact, raw, rule, dated[end:], nights=nights, town=town, weak=called_off)
        if found:
            return found
    return []


def _done_there(tie: str, raw: str, text: str) -> bool:
    """Is a place "done" ("we did X") no journey: a walk ("we did Emerald Lake on the Friday": no
    town), or a meal ("we did franklin on the friday, $85 for both of us with beers")?"""
    return bool(re.search(r"(?:doing|did)\s*$", tie)) and (not _a_town_or_land(raw) or _a_meal_told(text))


def _a_meal_told(text: str) -> bool:
    """Does the sentence tell a meal had: a bill shared out beside a dish or drink?"""
    from .meal_signs import _PAID_BILL, _SHARED, DISHES

    return bool(DISHES.search(text) and (_SHARED.search(text) or _PAID_BILL.search(text)))


#: words that open a sentence in capitals before a place's name
_OPENING_WORDS = set(
    "sadly so also and but anyway unfortunately luckily finally honestly btw ok okay well oh ugh yeah then".split()
)


#: the words that may open a sentence before its place: "other news: nashik last weekend", "btw goa was"
_OPENER = re.compile(r"\s*(?:(?:other\s+news|also|and|btw|oh|ok|okay|so|anyway|update|news)\s*[:,!.-]*\s*)+", re.I)


def _names(dated: str) -> list[tuple[int, str]]:
    """Where each name of ``dated`` starts, and the name: in capitals ("Da Nang"), or in lower
    case after a return or a booking ("back from kalbarri", longest first)."""
    out = [(m.start(), re.sub(r"['’]s$", "", m.group(0))) for m in re.finditer(p.NAME, dated)]  # "Da Nang's off"
    out += [(at + 4, raw[4:]) for at, raw in out if raw.startswith("The ") and raw[4:5].isupper()]  # "The Ladakh trip"
    # "Sadly Sri Lanka didn't happen": an adverb that opens the sentence is not part of the name
    out = [
        (at + len(first) + 1, rest) if rest and first.lower() in _OPENING_WORDS else (at, raw)
        for at, raw in out
        for first, _, rest in [raw.partition(" ")]
    ]
    # "lanzarote is off": a place in lower case called off (the gazetteer alone decides it is one)
    for m in re.finditer(rf"(?<![\w'’-])(?P<low>[a-z][a-z'’-]+(?:\s+[a-z][a-z'’-]+)?)(?={_OFF})", dated):
        words = m.group("low").split()
        out.append((m.start("low"), m.group("low")))
        if len(words) == 2:
            out.append((m.end("low") - len(words[1]), words[1]))  # "means lanzarote is off": the last word
    # "a last goa trip", "our kerala holiday": a place in lower case before its trip, as the gazetteer holds it
    for m in re.finditer(
        r"(?<![\w'’-])(?P<low>[a-z][a-z'’-]{2,})(?=\s+(?:trip|holiday|getaway|weekend|break)\b)", dated
    ):
        before = dated[max(0, m.start() - 60) : m.start()]
        if lookup_lower(m.group("low")) is not None and _ME.search(before) and not _WHO_ELSE.search(before):
            out.append(
                (m.start("low"), m.group("low"))
            )  # the speaker's own: "meera and i are planning a last goa trip"
    # "chennai was so nice btw, 13th to 17th", "we did lonavala on 18th-19th": a place the gazetteer holds,
    # in lower case, anywhere (its trip's signs and its tie decide, as for a name in capitals)
    titled = title_places(dated)
    if len(titled) == len(dated):
        for m in re.finditer(r"(?<![\w'’-])[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){1,2}(?![\w'’-])", titled):
            if dated[m.start() : m.end()].islower():
                out.append((m.start(), m.group(0)))  # "myrtle beach" as "Myrtle Beach"
    for m in re.finditer(r"(?<![\w'’-])[a-z][a-z'’-]{2,}(?![\w'’-])", dated):
        if lookup_lower(m.group(0)) is not None:
            out.append((m.start(), m.group(0)))
    # ... where it opens the sentence ("goa was mad fun") or the speaker is named before it ("we did
    # lonavala"), never in someone else's news ("sydney from my team is planning an australia trip")
    out = [
        (at, raw)
        for at, raw in out
        if not raw[:1].islower()
        and dated[at : at + len(raw)] == raw
        or not dated[:at].strip(" ,.!:-")
        or _OPENER.fullmatch(dated[:at])
        or _ME.search(dated[:at])
        or re.search(_RETURN + r"\s*$", dated[:at], re.I)
        or re.search(_TIED_BEFORE, dated[:at], re.I)
        or re.match(_OFF, dated[at + len(raw) :])
    ]
    for m in _TOWN_AFTER.finditer(dated):
        words = m.group("low").split()
        if words[0][:1].islower():
            out.extend((m.start("low"), " ".join(words[:n])) for n in range(len(words), 0, -1))
    return sorted(out, key=lambda item: item[0])


#: a future said of someone or something else, not of the trip: "a DP who's going to be a great contact"
_OTHERS_FUTURE = re.compile(
    r"\b(?:who|which|that|he|she)(?:['’]s|['’]ll|\s+is|\s+are|\s+will)\s+(?:going\s+to|gonna)?\s*\w+", re.I
)


def _status(fact: "Fact", text: str) -> str | None:
    if _CANCELLED.search(text):
        return "cancelled"
    text = _OTHERS_FUTURE.sub(" ", text)
    when = p.when(fact)
    if _PLANNED.search(text) or (when is not None and fact.session_date is not None and when.start > fact.session_date):
        return "planned"
    if tense(text) is False or _DONE.search(text):
        return "done"
    if (
        when is not None
        and fact.session_date is not None
        and when.end < fact.session_date
        and re.search(r"\b(?:last|ago|yesterday)\b", fact.text, re.I)
    ):
        return "done"  # "nashik last weekend, 3rd-4th, one night at their resort": said to be past
    return None


def _nights(text: str) -> str | None:
    found = re.search(rf"\b(?P<n>{p.NUMBER})\s*(?:nights?|nts)\b", text, re.I)
    return found.group("n") if found else None
