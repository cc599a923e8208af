"""The paraphrase families: how the user tells each kind of mention.

:func:`say` picks one family (a template) for a mention and fills its slots
with words in one of several styles (:mod:`.words`); the template's index and
the styles chosen are the sentence's *shape*.  Templates are plain strings with
``{slot}`` fields; a template whose slot has no value (a trip told alone has no
``{subject}`` but "I") is skipped for that mention.
"""

from __future__ import annotations

import datetime as _dt
import random
from typing import Any

from . import names as N
from . import words as W

# -- the families --------------------------------------------------------------------------

FAMILIES: dict[str, tuple[str, ...]] = {
    "trip_done": (
        "Just got back from {dest} {end_when}. {Nights} there{with}, and I'm exhausted.",
        "{End_when} I flew home from {dest} after {nights}{with}.",
        "I spent {nights} in {dest}{with}; came back {end_when}.",
        "Back from {dest}! {Nights}{with}, home {end_when}.",
        "My trip to {dest} is over: I got home {end_when} after {nights}.",
        "I went to {dest} {range}{with}.",
        "Just spent {nights} in {dest}{with}. Flew back {end_when}.",
        "{Subject} were in {dest} for {nights} and got back {end_when}.",
        "Home again after {nights} in {dest}, the train got in {end_when}.",
        "{Dest} was wonderful{with}: {nights}, back {end_when}.",
    ),
    "trip_taken": (
        "The {dest} trip happened after all: {nights}, back {end_when}.",
        "I did go to {dest} in the end, and got home {end_when}.",
        "{Dest} went ahead as planned{with}; I'm back since {end_when}.",
        "So the {dest} trip: {nights}, home {end_when}, it was great.",
        "Made it to {dest} and back, {range}.",
        "Back from the {dest} trip I told you about, home {end_when}.",
    ),
    "trip_plan": (
        "I've booked {nights} in {dest} {range}{with}.",
        "Planning a trip to {dest}: leaving {start_when}, for {nights}.",
        "{Subject} are going to {dest} {start_when} for {nights}.",
        "Next up is {dest}, {range}.",
        "I'm off to {dest} {range}{with}, flights are booked.",
        "Booked it: {dest}, {nights}, starting {start_when}.",
        "Thinking ahead: {dest} {range}, it's all reserved.",
    ),
    "trip_cancel": (
        "We had to cancel the {dest} trip, {reason}.",
        "{Dest} is off, {reason}.",
        "Called off {dest}; {reason}.",
        "Sadly the trip to {dest} fell through: {reason}.",
        "No {dest} for us after all, {reason}.",
        "I cancelled the {dest} booking, {reason}.",
    ),
    "trip_correct": (
        "Correction: {dest} was {true} nights, not {told}.",
        "Actually I miscounted, the {dest} trip was {true} nights.",
        "Sorry, I said {told} nights in {dest} earlier; it was {true}.",
        "Small fix: {true} nights in {dest}, not {told}.",
        "I got that wrong before, {dest} was {true} nights long.",
    ),
    "meal": (
        "Had {meal} at {place} {when}{with}; it came to {money}.",
        "{Subject} went to {place} for {meal} {when}, the bill was {money}.",
        "{Place} {when} for {meal}{with}. {Money} well spent.",
        "Tried {place} {when}{with}: {money} for {meal}.",
        "I paid {money} for {meal} at {place} {when}.",
        "{Meal_cap} {when} at {place}{with} ({money}).",
        "{When_cap} {subject} ate at {place}, {money} in total.",
        "Treated myself to {meal} at {place} {when}, {money}.",
        "{Place} again {when}! {Meal_cap}{with}, {money}.",
        "Grabbed {meal} at {place} {when}{with}. It cost {money}.",
    ),
    "purchase": (
        "I bought a {item} {when} at {where} for {money}.",
        "Picked up a new {item} from {where} {when}: {money}.",
        "{When_cap} I finally ordered the {item} ({money}, from {where}).",
        "Spent {money} on a {item} {when}.",
        "Got myself a {item} {when}, {money} at {where}.",
        "The {item} I bought {when} cost {money}.",
        "New {item}! {Money} at {where}, bought {when}.",
        "Splurged on a {item} {when}: {money}.",
    ),
    "purchase_return": (
        "I returned the {item}, it wasn't right.",
        "Sent the {item} back; the refund is on its way.",
        "The {item} had to go back, so I returned it.",
        "Took the {item} back to {where} for a refund.",
        "Changed my mind about the {item} and returned it.",
    ),
    "workout": (
        "I {past} {distance} {when}.",
        "{When_cap} I went for a {distance} {noun}.",
        "Did a {distance} {noun} {when} in {minutes}.",
        "{Distance} of {gerund} {when}, it took me {minutes}.",
        "Managed a {noun} of {distance} {when}.",
        "Logged a {distance} {noun} {when}: {minutes}.",
        "{When_cap}: {distance} {gerund}, {minutes}.",
        "Got out for a {noun} {when}, {distance} in {minutes}.",
    ),
    "book": (
        "Finished {title} by {author} {when}.",
        "{When_cap} I finally finished reading {title}.",
        "Just turned the last page of {author}'s {title}.",
        "I read {title} ({author}); done {when}.",
        "Done with {title} {when}, {opinion}.",
        "{Title}, by {author}: finished it {when}.",
        "Closed {title} {when}. {Opinion_cap}.",
    ),
    "job_intro": (
        "I work at {employer} as a {title}.",
        "I've been a {title} at {employer} since {start}.",
        "For context, I'm a {title} at {employer}.",
        "My job: {title} at {employer}, since {start}.",
    ),
    "home_intro": (
        "I live in {city}.",
        "I've lived in {city} since {start}.",
        "Home is {city} these days.",
        "I'm based in {city}.",
    ),
    "job_change": (
        "Big news: I started at {employer} as a {title} {when}! I've left {previous}.",
        "My first day at {employer} was {when}; I'm their new {title}.",
        "I've left {previous}, and {when} I joined {employer} as a {title}.",
        "New job! {Title_cap} at {employer}, started {when}.",
        "Goodbye {previous}: I'm now a {title} at {employer}, since {when}.",
    ),
    "move": (
        "I moved to {city} {when}!",
        "I've finally moved from {previous} to {city}; the move was {when}.",
        "Living in {city} now, we got the keys {when}.",
        "Moving day was {when}: {city} is home now.",
        "Left {previous} behind {when}, I live in {city} now.",
    ),
}

DISTRACTORS: dict[str, tuple[str, ...]] = {
    "other_person": (
        "{Relative} just got back from {dest}, {nights} there.",
        "{Friend} had dinner at {place} {when} and loved it.",
        "{Friend} bought a {item} {when} for {money}.",
        "{Relative} is going to {dest} next month.",
        "{Friend} ran {distance} {when}, I'm impressed.",
    ),
    "wish": (
        "I'd love to go to {wish} one day.",
        "Someday I want to try {place}.",
        "I really want a {item}, maybe next year.",
        "One day I'll spend a month in {wish}.",
    ),
    "looked_not_bought": (
        "I looked at a {item} at {where} but didn't buy it.",
        "Almost bought a {item} for {money}, but decided against it.",
        "Window-shopped for a {item} {when}; too pricey, I left it.",
    ),
    "cooked_at_home": (
        "Cooked {dish} at home {when} for {friend}.",
        "Stayed in and made {dish} {when}.",
        "{When_cap} I made {dish} for dinner at home.",
    ),
    "hypothetical": (
        "If I went to {wish} for a week, what would it cost?",
        "Would it be worth going to {dest} in winter?",
        "Suppose I bought a {item}, would I use it?",
    ),
    "small_talk": (
        "The weather has been awful lately.",
        "Work's been busy this week.",
        "Can you remind me to call my mum this weekend?",
        "I slept badly last night.",
        "Any good podcast recommendations?",
        "It's finally starting to feel like spring.",
        "I need to sort out my inbox at some point.",
        "My plants are not doing well.",
    ),
}

ASSISTANT_REPLIES = (
    "That sounds lovely!",
    "Thanks for the update.",
    "Good to hear.",
    "Noted.",
    "How did it go?",
    "That's great news.",
    "Sounds like a busy week.",
    "Glad you enjoyed it.",
    "Got it.",
    "Oh nice, tell me more.",
)
ASSISTANT_SUGGESTIONS = (
    "You could try {place} next time, people love it.",
    "Have you thought about a weekend in {dest}?",
    "A {item} might be worth a look too.",
    "Maybe a {noun} of {distance} would be a good next goal.",
    "You might enjoy {title} next.",
)
CANCEL_REASONS = (
    "work got in the way",
    "the flights were cancelled",
    "I caught a cold",
    "money is tight this month",
    "the weather looked terrible",
    "my friend couldn't make it",
)
OPINIONS = ("loved it", "a bit slow in the middle", "what an ending", "not my favourite", "highly recommended")
VERBS = {
    "run": ("ran", "run", "running"),
    "ride": ("cycled", "bike ride", "cycling"),
    "swim": ("swam", "swim", "swimming"),
    "hike": ("hiked", "hike", "hiking"),
}


def _day(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


class _Slots(dict):
    """Slot values with their styles; ``Name`` (capitalised) serves ``name`` capitalised."""

    def __init__(self) -> None:
        super().__init__()
        self.styles: dict[str, str] = {}

    def put(self, name: str, value: tuple[str, str] | str) -> None:
        text, style = value if isinstance(value, tuple) else (value, "")
        self[name] = text
        if style:
            self.styles[name] = style

    def fill(self, template: str) -> str | None:
        import string

        out = []
        for literal, name, _spec, _conv in string.Formatter().parse(template):
            out.append(literal)
            if name is None:
                continue
            key = name[0].lower() + name[1:]
            key = key.removesuffix("_cap")
            if key not in self:
                return None
            value = self[key]
            out.append(W.cap(value) if name[0].isupper() or name.endswith("_cap") else value)
        return "".join(out)


def _slots(what: str, event: dict[str, Any], data: dict[str, Any], today: _dt.date, rng: random.Random) -> _Slots:
    s = _Slots()
    kind = event.get("kind")
    if kind == "trip":
        s.put("dest", event["destination"])
        start, end = _day(event["start"]), _day(event["end"])
        nights = data.get("nights", event.get("nights"))
        if nights is not None:
            s.put("nights", W.count(nights, "night", rng))
        if what in ("trip_done", "trip_taken"):
            s.put("end_when", W.when_past(end, today, rng))
            s.put(
                "range",
                W.date_range(
                    _day(event["start"]) if nights == event.get("nights") else end - _dt.timedelta(days=nights),
                    end,
                    today,
                    rng,
                ),
            )
        else:
            s.put("start_when", W.when_future(start, today, rng))
            s.put("range", W.date_range(start, end, today, rng))
        s.put("with", W.people(event.get("with", []), rng))
        if event.get("with"):
            s.put("subject", W.subject(event["with"], rng))
        s.put("reason", rng.choice(CANCEL_REASONS))
        if what == "trip_correct":
            s.put("true", str(event["nights"]))
            s.put("told", str(data["told"]))
    elif kind == "meal":
        s.put("place", event["place"])
        s.put("meal", event["meal"])
        s.put("when", W.when_past(_day(event["date"]), today, rng, evening=event["meal"] == "dinner"))
        s.put("money", W.money(event["amount"], event["currency"], rng))
        s.put("with", W.people(event.get("with", []), rng))
        if event.get("with"):
            s.put("subject", W.subject(event["with"], rng))
    elif kind == "purchase":
        s.put("item", event["item"])
        s.put("where", event["where"])
        s.put("when", W.when_past(_day(event["date"]), today, rng))
        s.put("money", W.money(event["amount"], event["currency"], rng))
    elif kind == "workout":
        past, noun, gerund = VERBS[event["activity"]]
        s.put("past", past), s.put("noun", noun), s.put("gerund", gerund)
        s.put("distance", W.distance(event["distance_km"], rng))
        s.put("minutes", W.count(event["duration_min"], "minute", rng))
        s.put("when", W.when_past(_day(event["date"]), today, rng))
    elif kind == "book":
        quote = rng.choice(('"{}"', "{}", "*{}*"))
        s.put("title", (quote.format(event["title"]), {'"{}"': "quoted", "{}": "bare", "*{}*": "starred"}[quote]))
        s.put("author", event["author"])
        s.put("when", W.when_past(_day(event["finished"]), today, rng, evening=True))
        s.put("opinion", rng.choice(OPINIONS))
    elif kind == "job":
        s.put("employer", event["employer"])
        s.put("title", event["title"])
        s.put("start", str(event["start"])[:4])
        if what == "job_change":
            s.put("when", W.when_past(_day(event["start"]), today, rng))
            s.put("previous", data["previous"])
    elif kind == "home":
        s.put("city", event["city"])
        s.put("start", str(event["start"])[:4])
        if what == "move":
            s.put("when", W.when_past(_day(event["start"]), today, rng))
            s.put("previous", data["previous"])
    return s


def _distractor_slots(today: _dt.date, rng: random.Random) -> _Slots:
    s = _Slots()
    dest = rng.choice(N.DESTINATIONS)[0]
    item, low, high, where = rng.choice(N.ITEMS)
    s.put("dest", dest)
    s.put("nights", W.count(rng.randrange(2, 8), "night", rng))
    s.put("place", rng.choice(N.RESTAURANTS))
    s.put("item", item)
    s.put("where", where)
    s.put("money", W.money(float(rng.randrange(low, high)), rng.choice(tuple(N.SYMBOLS)), rng))
    s.put("when", W.when_past(today - _dt.timedelta(days=rng.randrange(0, 4)), today, rng))
    s.put("friend", rng.choice(N.FRIENDS))
    s.put("relative", rng.choice(N.RELATIVES))
    s.put("wish", rng.choice(N.WISH_PLACES))
    s.put("dish", rng.choice(N.HOME_DISHES))
    s.put("distance", W.distance(round(rng.uniform(5, 20), 1), rng))
    s.put("noun", rng.choice(("run", "ride", "hike")))
    s.put("title", rng.choice(N.BOOKS)[0])
    return s


def _pick(templates: tuple[str, ...], slots: _Slots, what: str, rng: random.Random) -> tuple[str, str]:
    order = list(range(len(templates)))
    rng.shuffle(order)
    for index in order:
        text = slots.fill(templates[index])
        if text is not None:
            used = sorted(f"{k}={v}" for k, v in slots.styles.items() if "{" + k in templates[index].lower())
            return W.cap(text), f"{what}#{index}|" + ",".join(used)
    raise ValueError(f"no template of {what!r} fits its slots {sorted(slots)}")


def say(
    what: str, event: dict[str, Any] | None, data: dict[str, Any], today: _dt.date, rng: random.Random
) -> tuple[str, str]:
    """``(sentence, shape)`` for one mention said on ``today``."""
    if event is None:
        return _pick(DISTRACTORS[what], _distractor_slots(today, rng), what, rng)
    return _pick(FAMILIES[what], _slots(what, event, data, today, rng), what, rng)


def assistant_reply(rng: random.Random, today: _dt.date) -> tuple[str, str | None]:
    """The assistant's turn: an acknowledgement, or (``why`` "assistant") a suggestion that must not count."""
    if rng.random() < 0.2:
        text, _shape = _pick(ASSISTANT_SUGGESTIONS, _distractor_slots(today, rng), "assistant", rng)
        return text, "assistant"
    return rng.choice(ASSISTANT_REPLIES), None
