"""Workouts: a run, a swim, a ride, a class -- how far, how long, when.

Seen in the speaker's own report, in the past: "ran 8 miles along the canal
yesterday, 1h20", "just did 10k round the park in 54 mins", "swam 40 lengths,
so 1km, took about 35 mins", "did a spin class at lunch", "did the Trafford
10k last Sunday, 52:10", "finished the half marathon in 1:54", "parkrun yesterday, 26:40" (a parkrun is 5 km).  The
distance is read with its unit ("10k", "16 km", "8 miles", "1km" before "40
lengths"), in kilometres; the duration in minutes ("54 mins", "1h20", "1:32"
is an hour and 32 minutes, "52:10" 52 minutes and 10 seconds).

Never a workout: a plan ("will run 10k on Sunday"), a question, running shoes,
"a long run" as a thing, someone else's run ("Tom ran a marathon").  Every
report is one workout (two on the same day are two).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...dates import Period
from ...extract.dates import tense
from . import patterns as p
from .model import Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "workout"

CUE = re.compile(
    r"\b(?:ran|run|jogged|swam|swim|cycled|rode|ride|did|finished|completed|marathon|parkrun|spin|yoga|pilates|class|lengths?|"
    r"climbed|hiked|hike|bouldered|bouldering|climbing|hiking|\d+\s*k\b|km|miles?)",
    re.I,
)

_CLASSES = r"(?:spin(?:ning)?|yoga|(?:reformer\s+)?pilates|hiit|barre|boxing|crossfit|zumba|circuits|bootcamp|dance)\s+class|yoga|pilates|hiit|crossfit"
_RACE = r"(?:half\s+marathon|marathon|parkrun|\d+(?:\.\d+)?\s*k(?:m)?\b)"
#: verb -> activity
_VERBS = {
    "ran": "run",
    "jogged": "run",
    "swam": "swim",
    "cycled": "cycle",
    "rode": "cycle",
    "climbed": "climbing",
    "hiked": "hike",
    "bouldered": "bouldering",
    "bouldering": "bouldering",
    "climbing": "climbing",
    "hiking": "hike",
    "running": "run",
    "swimming": "swim",
    "cycling": "cycle",
    "for a run": "run",
    "for a swim": "swim",
    "for a hike": "hike",
    "for a ride": "cycle",
    "for a bike ride": "cycle",
}
#: verbs that also say other things ("climbed the stairs", "hiked up the price"): a workout only with a distance or a time
_LOOSE = ("run", "climbing", "hike", "swim")
_VERB = re.compile(
    rf"^(?:just\s+|finally\s+|also\s+)?(?:(?P<verb>ran|jogged|swam|cycled|rode|climbed|hiked|bouldered)\b"
    rf"|went\s+(?P<went>bouldering|climbing|hiking|running|swimming|cycling|for\s+a\s+(?:run|swim|hike|ride|bike\s+ride))\b"
    rf"|did\s+(?:(?:a|an|the|my|first|second|third|last|local|big|ever|{p.OWNER}|\d+[- ]?(?:min(?:ute)?s?|hours?|h))\s+|(?-i:{p.NAME})\s+)*?(?:(?P<cls>{_CLASSES})|(?P<race>{_RACE}))"
    rf"|(?:finished|completed)\s+(?:(?:a|an|the|my|first|second|third|last|local|big)\s+|(?-i:{p.NAME})\s+)*?(?P<race2>{_RACE}))",
    re.I,
)
_PARKRUN = re.compile(r"^(?:parkrun)\b", re.I)
#: "first real run yesterday, 3 miles, 31 minutes": a workout told as a noun, with a distance or a time
_NOUN = re.compile(
    r"^(?:(?:and|so|also|ok|okay)\s+)?(?:(?:a|an|another|my|first|second|real|proper|quick|long|short|easy|gentle|slow|morning|"
    r"evening|lunch|lunchtime|tempo|recovery|hilly|decent)\s+)*(?P<noun>run|swim|bike\s+ride|ride|hike)\b(?!\s+(?:is|was|will|club|plan))",
    re.I,
)
#: the report goes on: "drove to the hills and hiked 12 km"
_GOES_ON = re.compile(
    r"(?:,\s+|\s+and\s+)(?:then\s+)?(?=(?:ran|swam|cycled|hiked|climbed|bouldered|did\s+(?:a|an|my|the)\s|went\s+(?:bouldering|climbing|hiking))\b)"
)


def _goes_on_with(rest: str, person: str) -> "re.Match[str] | None":
    """ "bought running shoes, ..., and Sam ran 6 km": the speaker named again before the verb of exercise."""
    return re.search(
        rf"(?:,\s+|\s+and\s+)(?:then\s+)?{re.escape(person)}\s+(?=(?:ran|swam|cycled|hiked|climbed|bouldered|did\s+(?:a|an|my|the)\s))",
        rest,
    )


_KM = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>k|km|kms|kilomet(?:er|re)s?|miles?|mi)\b", re.I)
_MINUTES = re.compile(r"(?<![\w.:])(?P<n>\d+(?:\.\d+)?)\s*(?:mins?|minutes)\b", re.I)
_HOURS = re.compile(r"(?<![\w.:])(?P<h>\d)\s*h(?:rs?|ours?)?\s*(?P<m>\d{1,2})?\b", re.I)
_CLOCK = re.compile(r"(?<![\w.:])(?P<a>\d{1,2}):(?P<b>\d\d)(?::(?P<c>\d\d))?(?![\d:])")
_NOT = re.compile(
    r"\b(?:running\s+shoes|trainers|plan|training\s+plan|long\s+run\s+on|will|going\s+to|tomorrow|next)\b", re.I
)


def _distance(text: str, race: str | None) -> float | None:
    for match in _KM.finditer(text):
        value = float(match.group("n"))
        unit = match.group("unit").lower()
        if unit.startswith("mi"):
            value *= 1.609344
        return round(value, 2)
    if race:
        race = race.lower()
        if "half" in race:
            return 21.1
        if "marathon" in race:
            return 42.2
        if "parkrun" in race:
            return 5.0
    return None


_WORD_HOURS = re.compile(
    r"\b(?:(?P<half>half\s+an\s+hour)|(?P<n>an|one|two|three|four|five)\s+hours?(?P<and>\s+and\s+a\s+half)?|"
    r"(?P<n2>an|one|two|three|four|five)\s+and\s+a\s+half\s+hours)\b",
    re.I,
)
_HOUR_WORDS = {"an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def _duration(text: str) -> float | None:
    duration = _digit_duration(text)
    if duration is not None:
        return duration
    # "like an hour and a half", "half an hour", "two hours"
    match = _WORD_HOURS.search(text)
    if match is None:
        return None
    if match.group("half"):
        return 30.0
    if match.group("n2"):
        return _HOUR_WORDS[match.group("n2").lower()] * 60 + 30.0
    return _HOUR_WORDS[match.group("n").lower()] * 60 + (30.0 if match.group("and") else 0.0)


def _digit_duration(text: str) -> float | None:
    match = _HOURS.search(text)
    if match:
        return float(int(match.group("h")) * 60 + int(match.group("m") or 0))
    match = _CLOCK.search(text)
    if match:
        a, b, c = int(match.group("a")), int(match.group("b")), match.group("c")
        if c is not None:
            return round(a * 60 + b + int(c) / 60, 1)
        if a < 3:  # "1:32": hours and minutes
            return float(a * 60 + b)
        return round(a + b / 60, 1)  # "26:40": minutes and seconds
    match = _MINUTES.search(text)
    if match:
        return float(match.group("n"))
    return None


def _rest(fact: "Fact") -> str | None:
    """The words after the speaker as the subject of their own report, or None."""
    said = p.speaker_words(fact)
    if said is None:
        return None
    text, rest, person = said
    if rest is not None:
        if not _VERB.match(rest):
            goes_on = _GOES_ON.search(rest) or _goes_on_with(rest, person)
            if goes_on is not None:
                return rest[goes_on.end() :]
        return rest
    if _VERB.match(text) or _PARKRUN.match(text) or _NOUN.match(text):
        return text  # "Just did 10k round the park in 54 mins and Sam's legs are jelly"
    # "in running news Sam did the Trafford 10k": the speaker mid-sentence, before a verb of exercise
    match = re.search(
        rf"(?<=\s){re.escape(person)}\s+(?=(?:just\s+|also\s+)?(?:did|ran|jogged|swam|cycled|rode)\b)", text
    )
    if match is None and re.match(
        rf"^(?:(?i:and|so|also|then|ok|okay)\s+)*{re.escape(person)}(?:\s+and\s+others)?\s+[a-z]", text
    ):
        # "And Sam is trying to get fit, did a 45 min spin class": the speaker's sentence goes on
        goes_on = _GOES_ON.search(text)
        return text[goes_on.end() :] if goes_on else None
    return text[match.end() :] if match else None


#: words of a sentence that say which sport a bare "did 1.5km" was
_SPORT_WORDS = (
    ("swim", re.compile(r"\b(?:swim\w*|swam|pool|baths|lengths|laps\s+of\s+the\s+pool|open\s+water|wetsuit)\b", re.I)),
    ("cycle", re.compile(r"\b(?:cycl\w*|bike|ride|rode|spin)\b", re.I)),
    ("hike", re.compile(r"\b(?:hik\w*|trail\s+walk|bushwalk\w*|summit)\b", re.I)),
)


def _said(rest: str) -> str:
    """The sport of "did 1.5km at the baths ... back into swimming": the one its sentence names
    (one only), else a run (a race said with a distance, "did the 10k", is one)."""
    named = [sport for sport, words in _SPORT_WORDS if words.search(rest)]
    return named[0] if len(named) == 1 else "run"


def detect(fact: "Fact") -> list[Sighting]:
    if CUE.search(fact.text) is None:
        return []
    rest = _rest(fact)
    if rest is None or _NOT.search(rest) or tense(rest) is True or p.HEDGES.search(rest):
        return []
    when = p.when(fact)
    if when is not None and fact.session_date is not None and when.start > fact.session_date:
        return []  # dated after it was said: a plan
    match = _VERB.match(rest)
    race = None
    noun = None
    if match is not None:
        verb, cls, race = (
            match.group("verb") or match.group("went"),
            match.group("cls"),
            match.group("race") or match.group("race2"),
        )
        activity = (
            _VERBS[" ".join(verb.lower().split())] if verb else " ".join(cls.lower().split()) if cls else _said(rest)
        )
    elif _PARKRUN.match(rest):
        activity, race = "run", "parkrun"
    elif (noun := _NOUN.match(rest)) is not None:
        activity = {"ride": "cycle", "bike ride": "cycle"}.get(
            " ".join(noun.group("noun").lower().split()), noun.group("noun").lower()
        )
        if _KM.search(rest) is None and _duration(rest) is None:
            return []  # "a run would be nice": no run told
        match = noun
    else:
        return []
    loose = match is not None and (match.groupdict().get("verb") or noun is not None)
    if activity in _LOOSE and race is None and loose and _KM.search(rest) is None and _duration(rest) is None:
        return []  # "ran into Ana", "ran late", "climbed the stairs": no workout told
    after = rest[match.end() :] if match is not None else rest
    distance = _distance(rest, race)
    if activity == "swim":
        # "40 lengths, so 1km": the kilometres, never the lengths
        distance = _distance(after, None) or (_distance(match.group(0), None) if race and match is not None else None)
    fields: dict[str, Any] = {
        "person": fact.speaker,
        "activity": activity,
        "distance_km": distance,
        "duration_min": _duration(after)
        or (_duration(match.group(0)) if match is not None and match.groupdict().get("cls") else None),
        "when": when,
    }
    return [Sighting(NAME, fact.id, fields, None)]


#: every report is its own record
assemble = p.one_record_each


CLASS = p.record_class(
    "Workout",
    {"activity": str, "person": str, "distance_km": float, "duration_min": float, "when": Period},
    "A workout (offline rules): the activity (run, swim, cycle, a class), distance in km, duration in minutes, when.",
)
DESCRIPTION = "Workouts and exercise: runs, swims, rides and classes someone did, how far, how long and when."
