"""Meals out: where someone ate, what, when and with whom.

Seen in a clause whose subject is a person (the speaker also mid-sentence: "the night
before we flew back we had the best dinner at X"), in the past tense, with a place
that is not a home: "had dinner at Nopa with Ana", "grabbed lunch at a Thai
place", "had sushi at Nobu", "ate at Chez Panisse", "tried a new ramen place",
"went to Nopa for dinner", "went out for tacos", "ate out".  The place is a
capitalised name (never a possessive: "at Ana's" is a home) or a described
eatery ("a new ramen place", "the Italian restaurant"); "at home", "at work",
"cooked dinner" and plans ("will have dinner at Nopa") are no meal out.

A named restaurant without a meal verb: "went to Sakura Tei, the Japanese place
in town" (described after a comma), "had Dishoom on Saturday, the breakfast
naan" (a meal or dish in the clause; never a person or a gazetteer place:
"had Ana over"), "the new Sichuan place in Ancoats, Chengdu Garden" (its name
after the description), a meal as the subject ("our best dinner of the trip
was at X", "my team lunch was at X", "brunch at X was lovely" -- reported,
never with "would" or a hedge).  "Bravas on Cotham Hill" is "Bravas".

A treat, the name in lower case as chats type it: "sam took me to taverna mykonos on
the danforth saturday, $96 w tip", "dad treated us all at willow & oak on sunday", "the
conference paid for a dinner at salt & anchor", "took everyone to golden lotus for dim
sum": the name runs to the clause's natural end (a preposition, a time word,
punctuation; four words at most), never opens with a determiner or a common word, is no
gazetteer place, and without "out" or a meal word before it the sentence must name a
meal, a dish, an eatery or a tip.  The record writes it capitalised ("Willow & Oak").

The cost is the first amount of money in the clause (:mod:`uac.extract.money`):
"had dinner at Nopa, £62 for the two of us", "£30 for my half".

Assembling: two sightings of the same person and place on the same day (or
undated, in one session) are one meal; every other sighting is a meal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...dates import Period
from ...extract.dates import tense
from ...extract.places import is_place, lookup
from . import patterns as p
from .model import Assembled, Kind, Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "meal"

#: cuisines and dishes people name when they eat out (a lexicon of food, not of places)
FOODS = (
    "thai indian italian mexican chinese japanese korean french vietnamese ethiopian greek lebanese turkish "
    "spanish peruvian moroccan persian georgian brazilian cuban german polish portuguese sichuan cantonese "
    "sushi ramen pizza tacos taco burgers burger pho curry tapas pasta steak seafood bbq barbecue noodles "
    "dumplings kebab kebabs falafel pancakes crepes fondue paella sardines oysters burritos burrito dim sum "
    "udon tempura bibimbap poke sandwiches shawarma hotpot hot pot fish and chips wings brunch vegan vegetarian "
    "ice cream gelato cake cocktails wine beer croissants croissant bagels donuts cheesecake salad soup "
    "fries tea pie waffles tacos tagine"
).split()
#: the words of the phrases below are no food alone ("and" of "fish and chips", "dim" of "dim sum")
FOODS = [word for word in FOODS if word not in ("and", "dim", "sum", "hot", "pot", "ice", "cream")]
_FOOD_PHRASES = ("dim sum", "hot pot", "fish and chips", "ice cream")
_FOOD = r"(?:" + "|".join(sorted({*(re.escape(f) for f in _FOOD_PHRASES), *FOODS}, key=len, reverse=True)) + r")"
_MEAL = r"(?P<meal>dinner|lunch|brunch|breakfast|brekkie|brekky|supper|drinks|coffee|dessert|(?:a\s+)?meal|a\s+bite|a\s+bite\s+to\s+eat)"
_EATERY = (
    r"(?:restaurant|place|spot|caf[eé]|bistro|diner|bar|pub|joint|taqueria|pizzeria|steakhouse|trattoria|"
    r"brasserie|izakaya|food\s+truck|bakery|tavern|canteen|eatery|cantina|noodle\s+house|sushi\s+bar|ramen\s+shop)"
)
#: a described eatery: "a new ramen place", "the Italian restaurant", "this little Thai spot"
_DESCRIBED = (
    rf"(?P<described>(?:a|an|the|this|that)\s+(?:(?:new|little|great|fancy|local|nice|cozy|tiny|cute|small|"
    rf"amazing|popular|famous|cheap|good|lovely|fantastic|hip|trendy)\s+)*(?:(?P<kind>[A-Za-z-]+(?:\s+[A-Za-z-]+)?)\s+)??{_EATERY})"
)
#: "at the Bay", "at the Shore": a name after "the" (not "the Italian restaurant", described)
_THE_NAMED = rf"(?:the\s+(?=[A-Z])(?!{p.NAME}\s+{_EATERY}\b))?"
_PLACE = rf"(?:{_THE_NAMED}(?P<named>{p.NAME})|{_DESCRIBED})"
_NOT_OUT = re.compile(
    rf"\b(?:at|in)\s+(?:home|work|the\s+office|school|(?:{p.OWNER}|[A-Z][\w’'-]*['’])\s+(?:place|house|home|apartment|flat|parents))\b"
)
_AT_PLACE = re.compile(rf"\b(?:at|in|from)\s+{_PLACE}")
_APPOSITION = re.compile(rf"^[^,.;]*,\s+(?:[a-z][\w\s]{{0,20}}?,\s+)?(?P<named>{p.NAME})\s*(?=,|$|\.|\s+[-—])")
_CALLED = re.compile(rf"\b(?:called|named)\s+(?P<named>{p.NAME})")
#: "dinner in Lisbon at Cervejaria Ramiro": the eatery after the town
_AT_NAMED = re.compile(rf"^(?:\w+\s+){{0,3}}?in\s+{p.NAME}\s+at\s+(?P<named>{p.NAME})")

_PAST = r"(?:had|grabbed|got|enjoyed|shared|split|ordered|tried|ate|devoured|did|went\s+(?:out\s+)?for|went\s+out\s+to\s+eat)"


def _rule(body: str) -> re.Pattern[str]:
    return re.compile(rf"^{p.ADVERBS}{body}")


_MEAL_WORD = re.compile(rf"\b(?:dinner|lunch|brunch|breakfast|supper|meal|menu|omakase|{_FOOD})\b", re.I)

RULES: tuple[re.Pattern[str], ...] = (
    # "went to Sakura Tei, the Japanese place in town": a restaurant by its description (its street
    # and the occasion may come first: "went to Odessa on Main Street for Ana's birthday, the Georgian place")
    _rule(
        rf"went\s+(?:out\s+)?to\s+(?P<named>{p.NAME})(?:\s+(?:on|in)\s+{p.NAME})?(?:\s+for\s+[^,.;]{{1,40}}?)?,\s+"
        rf"(?:a|an|the|this|that)\s+(?:[\w-]+\s+){{0,3}}?{_EATERY}\b"
    ),
    # "went to Salz & Seele in the Südvorstadt, the tasting menu, €96": a name, then what was eaten there
    _rule(
        rf"went\s+(?:out\s+)?to\s+(?P<named>{p.NAME})(?:\s+(?:on|in)\s+(?:the\s+)?{p.NAME})?,\s+(?:the|a|an|their)\s+(?:[\w-]+\s+){{0,2}}?"
        rf"(?:menu|set\s+lunch|set\s+menu|{_MEAL.replace('(?P<meal>', '(?:')}|{_FOOD})\b(?P<eaten>)"
    ),
    # "took Ana out to Kenji's Counter for her birthday, the tasting menu": a treat out, with a meal in the clause
    _rule(rf"took\s+(?:[\w’'-]+\s+){{1,4}}?out\s+(?:to|at)\s+(?P<named>{p.NAME})(?P<eaten>(?=.*{_MEAL_WORD.pattern}))"),
    # "had Dishoom on Saturday, the breakfast naan": a name eaten at (a meal or dish in the clause)
    _rule(
        rf"(?:had|grabbed|got)\s+(?P<named>{p.NAME})(?=\s+(?:on|for|last|this|with|again|yesterday|tonight)\b|,)(?P<eaten>(?=.*{_MEAL_WORD.pattern}))"
    ),
    # "had dinner at Nopa", "went out for lunch at a Thai place", "had a lovely brunch with Ana at Tartine"
    _rule(
        rf"(?:{_PAST}|met\s+\S+(?:\s+and\s+others)?\s+for)\s+(?:a\s+|an\s+|some\s+|the\s+)?(?:(?P<adj>[a-z]+)\s+){{0,2}}?{_MEAL}\b"
    ),
    # "tried a new ramen place", "tried the Italian restaurant on 5th street"
    _rule(rf"(?:tried|checked\s+out|went\s+to|ate\s+at|stopped\s+by|visited)\s+{_DESCRIBED}"),
    # "found a place called Tasca do Zé ..., grilled sardines": found, with food in the clause
    _rule(rf"(?:found|discovered|stumbled\s+on|stumbled\s+upon)\s+{_DESCRIBED}(?P<eaten>(?=.*{_MEAL_WORD.pattern}))"),
    # "snuck off to celebrate ... at The Harbourmaster, the seafood place on the waterfront": a name
    # described as an eatery, wherever the clause puts it
    _rule(
        rf"[^.;!?]*?\b(?:at|to)\s+(?P<named>{p.NAME}),\s+(?:a|an|the|this|that)\s+(?:[\w-]+\s+){{0,3}}?{_EATERY}\b(?P<past>)"
    ),
    # "went to Kathmandu Kitchen on pearl street", "went to Trattoria Sorrento on saturday": a name an
    # eatery word ends or opens is a meal out, told with no meal word
    _rule(
        rf"(?:went|headed|popped|nipped)\s+(?:out\s+|down\s+|over\s+)?to\s+(?P<named>(?-i:(?:[A-Z][\w’'&-]*\s+){{1,3}})"
        rf"(?i:{p.EATERY_AFTER})|(?i:trattoria|caf[eé]|bistro|pizzeria|taqueria|cantina|brasserie|osteria)\s+(?-i:[A-Z][\w’'-]*))"
        rf"(?![\w’'-])(?P<past>)"
    ),
    # "went to Nopa for dinner", "went to Nobu for sushi"
    _rule(
        rf"went\s+(?:out\s+)?to\s+(?P<named>{p.NAME})\s+for\s+(?:a\s+|an\s+|some\s+)?(?:(?:late|quick|early|big|nice)\s+)?(?:{_MEAL}|(?P<food>{_FOOD}))\b"
    ),
    # "had sushi at Nobu", "ate at Chez Panisse", "dined at Nopa"
    _rule(
        rf"(?:ate|dined|(?:had|grabbed|got|ordered|tried|enjoyed)\s+(?:some\s+|a\s+|an\s+)?(?P<dish>[a-z][a-z -]{{1,30}}?))\s+(?:out\s+)?at\s+{_PLACE}"
    ),
    # "went out for tacos", "went out for Thai food", "ate out"
    _rule(
        rf"(?:went\s+out\s+for|got|grabbed|had)\s+(?:some\s+)?(?P<food>{_FOOD})(?:\s+food)?\b(?=.*\b(?:out|at|in)\b)|ate\s+out\b|went\s+out\s+for\s+(?:some\s+)?(?P<food2>{_FOOD})(?:\s+food)?\b"
    ),
)


def _place(match: re.Match[str], after: str, person: str, people: Sequence[str] = ()) -> tuple[str | None, str | None]:
    """The place's name (or description) and a cuisine it implies."""
    groups = match.groupdict()
    named = groups.get("named")
    described = groups.get("described")
    kind = groups.get("kind")
    if not named and not described:
        at = _AT_PLACE.search(after) or _CALLED.search(after)
        if at is not None:
            named = at.groupdict().get("named")
            described = at.groupdict().get("described")
            kind = at.groupdict().get("kind")
        elif groups.get("meal"):
            named = _lower_eatery_at(after)  # "had dinner at salt & anchor on friday"
    if described:
        called = _CALLED.search(after)
        lower = _CALLED_LOWER.search(after) if called is None else None
        if called is not None and p.clean_name(called.group("named"), person):
            named = called.group("named")  # "a new place called Zuni"
        elif lower is not None and _lower_name(lower.group("said")) and not is_place(_title(lower.group("said"))):
            named = _lower_name(lower.group("said"))  # "a fish place by the water called ada balık"
        elif re.search(r"\b(?:place|spot|joint)$", described) and _cuisine(kind) is None:
            described = None  # "visited this place", "went to a quiet spot": no eatery named
    if described and not named:
        # "went to the new Sichuan place in Ancoats, Chengdu Garden, £48": its name after a comma
        called = _APPOSITION.search(after)
        if called is not None and not is_place(called.group("named")):
            named = called.group("named")
    if named:
        named = _trim(p.clean_name(named, person) or _possessive_eatery(named))
        if named is not None and groups.get("eaten") is not None and (is_place(named) or named in people):
            return None, None
    place = named or (" ".join(described.split()) if described else None)
    return place, _cuisine(kind)


#: the first word of a possessive that is someone's home, not a restaurant ("Uncle Bob's")
_KIN = {
    "uncle",
    "aunt",
    "auntie",
    "grandma",
    "grandpa",
    "granny",
    "nan",
    "nana",
    "gran",
    "mum",
    "mom",
    "dad",
    "cousin",
    "the",
}


def _possessive_eatery(name: str) -> str | None:
    """ "Mama Nino's", "Joe Allen's": a name of several words in the possessive is a
    restaurant's where a meal is eaten ("at Ana's" alone stays a home, and so does
    "at Uncle Bob's")."""
    words = name.strip().rstrip(".,;").split()
    if (
        len(words) < 2
        or not re.search(r"['’]s$", words[-1])
        or words[0].lower() in _KIN
        or words[0].lower() in p.NOT_NAMES
    ):
        return None
    if any(re.search(r"['’]s$", w) for w in words[:-1]):
        return None  # "Tom's mum's": someone's family
    return " ".join(words)


def _cuisine(text: str | None) -> str | None:
    if not text:
        return None
    words = text.lower().split()
    for size in (2, 1):
        for start in range(len(words) - size + 1):
            phrase = " ".join(words[start : start + size])
            if phrase in FOODS or phrase in _FOOD_PHRASES:
                return phrase
    return None


#: words without which no rule of this kind can match (a cheap first look)
CUE = re.compile(
    r"\b(?:dinner|lunch|brunch|breakfast|supper|drinks|coffee|dessert|meal|bite|ate|dined|restaurant|place|spot|caf[eé]|"
    r"bistro|diner|bar|pub|joint|taqueria|pizzeria|steakhouse|trattoria|brasserie|izakaya|truck|bakery|tavern|canteen|"
    rf"eatery|cantina|house|shop|out|at|menu|osteria|{p.EATERY_AFTER})\b",
    re.I,
)


def _anywhere(fact: "Fact") -> list[p.Clause]:
    """Clauses whose subject is the speaker anywhere in the text ("the night before Sam and
    others flew back Sam and others had the best dinner of the trip at X")."""
    if not fact.speaker or p.is_question(fact):
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    name = re.escape(fact.speaker)
    out = [
        p.Clause(fact.speaker, bool(m.group(1)), text[m.end() :])
        for m in re.finditer(rf"(?<=\s){name}(\s+and\s+others)?\s+(?=had\b|went\b|ate\b|grabbed\b)", text)
    ]
    # "Sam drove to the coast, walked for miles, and then had lunch at X": the subject goes on
    opening = re.match(rf"{name}(\s+and\s+others)?\s+[a-z]+", text)
    if opening is not None:
        out += [
            p.Clause(fact.speaker, bool(opening.group(1)), text[m.end() :])
            for m in re.finditer(r"(?:,\s+|\s+)(?:and\s+)?then\s+(?=had\b|ate\b|grabbed\b)", text)
        ]
    return out


#: "Sam's best meal was Sam's last night at X", "Sam's team dinner was at X": a meal as the subject
_SUBJECT_MEAL = (
    r"(?i:(?:(?:and|so|also|then|oh)\s+)?(?:(?:the\s+|{mine}\s+)?(?:best|favou?rite|nicest|last|first)\s+(?:meal|dinner|lunch|brunch|breakfast)(?:\s+of\s+the\s+(?:trip|week|holiday))?"
    r"\s+(?:was|were)\s+(?:[^.;!?]*?\bat\s+)?"
    r"|{mine}\s+(?:[\w-]+\s+){{0,2}}?(?:do|party|dinner|lunch|meal|brunch|breakfast)(?:\s+(?:from|with)\s+(?:the\s+)?[\w-]+)?"
    r"\s+(?:was|were)\b[^.;!?]*?\bat\s+"
    # "Wednesday was a staff dinner at X", "yesterday was kind of a goodbye dinner with Jakob at X"
    r"|(?:(?:and|so|also|then|oh)\s+)?(?:(?:yesterday|today|tonight|last\s+night|\w+day(?:\s+night)?|the\s+\w+day)\s+)?(?:was|were)\s+"
    r"(?:kind\s+of\s+|sort\s+of\s+)?(?:a|an|our|{mine})\s+(?:[\w-]+\s+){{0,2}}?(?:dinner|lunch|brunch|breakfast|meal)\b[^.;!?]*?\bat\s+))"
    r"(?P<named>{name})"
)


_MEAL_AT = (
    # "then farewell dinner with caro and nico at Miranda", "fun part: dinner at Liguria": an occasion's word
    # or a short label before it
    r"(?i:(?:[a-z]+(?:\s+[a-z]+)?:\s+)?(?:(?:and|so|also|then|oh)\s+)?(?:a\s+|the\s+|our\s+)?"
    r"(?:(?:lovely|great|quick|late|long|big|nice|cheap|farewell|goodbye|leaving|birthday|anniversary|celebration|"
    r"team|work|family|welcome|fancy|romantic|first|last)\s+)?"
    r"(?:dinner|lunch|brunch|breakfast|drinks|supper|date\s+night)"
    # "Dinner on Saturday at Ogień", "lunch yesterday at X": when, before the place
    r"(?:\s+(?:on\s+(?:the\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|last\s+night|yesterday|tonight|(?:on\s+)?friday\s+night))?"
    # who with and when, as chats put them before the place: "dinner w Wei Jie fri at", "lunch w my new team weds at"
    r"(?:\s+(?:w/?|with)\s+(?:[\w'’-]+\s+){{1,3}}?(?:(?:on\s+)?(?:mon|tues?|wed|weds|thu|thurs?|fri|sat|sun)\w*\s+|tonight\s+|"
    # "dinner in Marseille on dominick street", "dinner in the Clew Bay Bistro": in a named place (see _subject_meal)
    r"last\s+night\s+|yesterday\s+)?|\s+)(?P<prep>at|in))\s+(?:the\s+)?(?P<named>{name})"
)


#: someone treats the speaker: "He treated all of us to dinner at The Blue Anchor", "the team took me
#: for a goodbye lunch at Nonna Rosa", "Jess took me out to Beira Peri-Peri on Friday, R430", "sam took
#: me to taverna mykonos on the danforth saturday, $96 w tip", "dad treated us all at willow & oak on
#: sunday", "the conference paid for a dinner at salt & anchor"
_TREATED = (
    r"\b(?:treated|took|shouted|bought)\s+(?:all\s+of\s+)?{me}(?:\s+and\s+others)?\s+(?:out\s+)?(?:to|for)\s+"
    r"(?:(?:a|an|the|our|{mine})\s+)?(?:[\w-]+\s+){{0,2}}?(?P<meal>dinner|lunch|brunch|breakfast|supper|a\s+meal|drinks)\s+"
    r"(?:at|in)\s+(?P<named>{name})"
    r"|\bpaid\s+for\s+(?:a|an|the|our|{mine})\s+(?:[\w-]+\s+){{0,2}}?(?P<paid>dinner|lunch|brunch|breakfast|supper|meal)\s+"
    r"at\s+(?P<paid_at>{name})"
    r"|\btook\s+{me}(?:\s+and\s+others)?\s+out\s+(?:to|at)\s+(?P<out>{name})"
    r"|\btook\s+(?:{me}(?:\s+and\s+others)?|everyone|everybody)\s+to\s+(?P<to>{name})"
    r"|\btreated\s+{me}(?:\s+and\s+others)?(?:\s+all)?\s+at\s+(?P<at>{name})"
)
#: an eatery's name as people type it in lower case ("taverna mykonos", "willow & oak"): up to four
#: words, read up to the clause's natural end (a preposition, a time word, punctuation)
LOWER_EATERY = (
    r"(?-i:(?!(?:the|a|an|my|our|his|her|their|your|this|that|some|see|get|work|home|school|church|bed|"
    r"hospital|class|lunch|dinner|brunch|breakfast|celebrate)\b)[a-z][\w’'-]*(?:\s+(?:&\s+)?[a-z][\w’'-]*){{0,3}}?)"
    r"(?=\s+(?:on|in|near|for|with|wi|at|after|before|by|last|this|the|was|were|is|w|so|but|then|which|and|to|yesterday|tonight|today|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)\b|\s*[,.;:!?()]|\s*$)"
)
#: what makes "took me to X" (no "out") a meal: a meal, a dish, an eatery, or a tip
_MEALISH = re.compile(rf"{_MEAL_WORD.pattern}|\b{_EATERY}\b|\b(?:w|with|plus|incl|including)\.?\s+tip\b", re.I)


def _treated(fact: "Fact", text: str) -> list[Sighting]:
    """The speaker taken out or treated to a meal by someone else: the speaker's meal out, in
    the past ("took", "treated"), never hedged; "took me out to X" alone only with a meal or an
    amount in the sentence, and never to a place of the gazetteer or a person."""
    from ...extract.money import find_amounts

    person = fact.speaker or ""
    me = re.escape(person)
    match = re.search(_TREATED.format(me=me, mine=rf"{me}['’]s", name=f"(?:{p.NAME}|{LOWER_EATERY})"), text)
    if match is None or p.HEDGES.search(text) or _AHEAD.search(text[: match.start()]):
        return []
    said = next(match.group(g) for g in ("named", "paid_at", "out", "to", "at") if match.group(g))
    if said[:1].islower():
        titled = _lower_name(said)
        if titled is None:
            return []  # "took me to montreal", "took me to see ...": a place, no eatery
        said = titled
    place = _trim(p.clean_name(said, person))
    if place is None or is_place(place) or place in p.companions(text, person):
        return []
    if match.group("out") and not (_MEAL_WORD.search(text) or find_amounts(text[match.end() :])):
        return []  # "took me out to Kirstenbosch": a place, no meal
    if (match.group("to") or match.group("at")) and not _MEALISH.search(text):
        return []  # "took me to Ikea", "treated us all at the fair": no meal said
    meal = match.group("meal") or match.group("paid")
    return [_sighting(fact, person, text[match.start() :], place, None, meal.lower() if meal else None)]


#: the last word of a place that is not an eatery ("at lisbon airport", "at the harbour market")
_NO_EATERY = re.compile(
    r"\b(?:airport|station|terminal|mall|centre|center|market|beach|park|zoo|museum|harbour|harbor|port|"
    r"hospital|office|gym|campus|hotel|lobby|stadium|arena|church|library)$"
)


#: a name typed in lower case after "called" ("a fish place by the water called ada balık, 2.800 ...")
_CALLED_LOWER = re.compile(rf"\b(?:called|named)\s+(?P<said>{LOWER_EATERY.format()})")


def _lower_name(said: str) -> str | None:
    """A name typed in lower case as it is written with capitals ("willow & oak" -> "Willow &
    Oak"); None for a place of the gazetteer ("montreal") or a word that opens no name ("see")."""
    from ...extract.places import lookup_lower

    said = re.sub(r"(?:\s+(?:for|on|at|in|with|to|the|and|of|w))+$", "", said)  # "alcalde for [valentine's]"
    if not said or lookup_lower(said) is not None or said.split()[0] in p.NOT_NAMES:
        return None
    return _title(said)


#: time words a name typed in lower case runs on into ("the crab shack thurs", "ember & oak ytd")
LOWER_TIME_TAIL = re.compile(
    r"(?:\s+(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun|night|ytd|tonight|today|yesterday|last|this|"
    r"morning|evening|arvo|nite))+$"
)
#: the first words of a description after "the" ("the local pub", "the new place"), never a name
_DESCRIBED_FIRST = set("local usual new old same nearest nearby other little best only hotel".split())


def _lower_eatery_at(after: str) -> str | None:
    """The eatery named in lower case right after a meal ("[had dinner] at salt & anchor on
    friday", "[had lunch with him] at the crab shack thurs"), as its name is written with
    capitals; None for a place of the gazetteer ("at montreal"), a word that is no name, a kind
    of place after "the" ("at the pub", "at the local pub"), or home, work and the like."""
    match = re.match(
        rf"\s+(?:with\s+[\w’'-]+(?:\s+and\s+[\w’'-]+)?\s+)?(?:out\s+)?at\s+(?P<the>the\s+)?(?P<said>{LOWER_EATERY.format()})",
        after,
    )
    if match is None:
        return None
    said = LOWER_TIME_TAIL.sub("", match.group("said"))
    if not said or (match.group("the") and (" " not in said or said.split()[0] in _DESCRIBED_FIRST)):
        return None
    if _NOT_OUT.search(match.group(0)) or _NO_EATERY.search(said):
        return None
    if said.split()[0].rstrip("'’s") in _KIN or (" " not in said and said.endswith(("'s", "’s"))):
        return None  # "at grandmas", "at sam's": someone's home
    name = _lower_name(said)
    return None if name is None or is_place(name) else name


def _title(name: str) -> str:
    """ "willow & oak" -> "Willow & Oak", "bistro saint-malo" -> "Bistro Saint-Malo"."""
    return " ".join("-".join(part[:1].upper() + part[1:] for part in word.split("-")) for word in name.split())


def _subject_meal(fact: "Fact") -> list[Sighting]:
    person = fact.speaker
    if not person or p.is_question(fact):
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    text = p.without_said(text, person)
    treated = _treated(fact, text)
    if treated:
        return treated
    mine = rf"(?:{re.escape(person)}['’]s|our|my)"
    match = re.match(_SUBJECT_MEAL.format(mine=mine, name=p.NAME), text)
    if match is None:
        # "Brunch at Ottoline with Ben was lovely", "dinner at Nopa last night, £40": reported, never wished
        match = re.match(_MEAL_AT.format(name=p.NAME), text)
        if match is None:
            # "saturday was aoife's birthday - dinner in Marseille on dominick street, 120 euro": after a dash
            # "..., dinner in the Clew Bay Bistro was 78 quid": after a comma, the meal opening a clause
            dash = re.search(r"(?:\s[-–—]|[,;])\s+(?=(?i:dinner|lunch|brunch|breakfast|supper|drinks)\b)", text)
            if dash is not None:
                match = re.match(_MEAL_AT.format(name=p.NAME), text[dash.end() :])
                text = text[dash.end() :] if match is not None else text
        if match is not None and (not _reported(fact, text) or p.HEDGES.search(text) or re.search(r"\bwould\b", text)):
            match = None
        if match is not None and match.group("prep").lower() == "in" and not _named_eatery_in(match, text):
            match = None
    if match is None:
        return _called_meal(fact, text) or _named_for_meal(fact, text)
    if person not in fact.text and "said:" not in fact.text:
        return []
    place = _trim(p.clean_name(match.group("named"), person))
    if place is None or _NOT_OUT.search(match.group(0)):
        return []
    meal = re.search(r"\b(dinner|lunch|brunch|breakfast)\b", match.group(0), re.I)
    return [_sighting(fact, person, text, place, None, meal.group(1).lower() if meal else None)]


#: a meal at a place described, then named: "..., dinner at a fish place by the water called ada balık, 2.800
#: for both of us", "lunch at this tiny spot called Mama Rosa"
_CALLED_MEAL = re.compile(
    rf"\b(?P<meal>(?i:dinner|lunch|brunch|breakfast))\s+at\s+(?i:a|an|the|this|that)\s+(?:[\w’'-]+\s+){{0,3}}?(?i:{_EATERY})\b"
    rf"[^,.;!?]{{0,40}}?\b(?:called|named)\s+(?:(?P<named>{p.NAME})|(?P<said>{LOWER_EATERY.format()}))"
)


#: an eatery opening the report, then the meal had there: "Mercado Central for lunch on saturday like you
#: said, ..., 45 reais"
_NAMED_FOR_MEAL = re.compile(rf"^(?P<named>{p.NAME})\s+for\s+(?P<meal>(?i:dinner|lunch|brunch|breakfast|supper))\b")


def _named_for_meal(fact: "Fact", text: str) -> list[Sighting]:
    """A meal told by its place first (:data:`_NAMED_FOR_MEAL`) in a report of the speaker's; never a
    city ("Lisbon for lunch"), a wish, a hedge or a plan."""
    match = _NAMED_FOR_MEAL.match(text)
    if match is None or not _reported(fact, text) or p.HEDGES.search(text) or re.search(r"\bwould\b", text):
        return []
    place = _trim(p.clean_name(match.group("named"), fact.speaker or ""))
    if place is None or is_place(place):
        return []
    return [_sighting(fact, fact.speaker or "", text, place, None, match.group("meal").lower())]


def _called_meal(fact: "Fact", text: str) -> list[Sighting]:
    """A meal at a place described, then named, anywhere in a report of the speaker's (see
    :data:`_CALLED_MEAL`); never a wish, a hedge or a plan."""
    person = fact.speaker or ""
    match = _CALLED_MEAL.search(text)
    if match is None or not _reported(fact, text) or p.HEDGES.search(text) or re.search(r"\bwould\b", text):
        return []
    if match.group("named"):
        place = _trim(p.clean_name(match.group("named"), person))
    else:
        place = _lower_name(match.group("said"))
    if place is None or is_place(place):
        return []
    return [_sighting(fact, person, text[match.start() :], place, None, match.group("meal").lower())]


#: a meal out by what was eaten, someone taking someone out for it: "took her to an omakase in haeundae",
#: "the team took me out for samgyeopsal in hapjeong", "dad took us all out for galbi sat night"
_TOOK_OUT_FOR = re.compile(
    rf"\btook\s+(?P<who>[\w’'-]+(?:\s+and\s+others)?|(?:the|my|our|his|her)\s+[\w’'-]+)(?:\s+all)?\s+"
    rf"(?:(?P<out>(?:out\s+)?for)|to)\s+(?:(?:a|an|the|some)\s+)?"
    rf"(?P<what>(?:{_FOOD}|omakase|tasting\s+menu|hot\s+pot|barbecue|bbq|korean\s+bbq"
    # "took us all out for galbi": after "out for", any dish but an outing
    rf"|(?<=for\s)(?!(?:a|an|the|my|his|her|their|our|walk|drive|run|ride|spin|hike|day|night|birthday|anniversary|"
    rf"shopping|coffee|drinks|dinner|lunch|brunch|breakfast)\b)[a-z]{{4,}})(?:\s+(?:place|restaurant|spot|bar|joint))?)\b"
    r"(?:\s+(?:(?:sat|sun|fri|mon|tue|wed|thu)\w*\s+night|last\s+night|after|tonight))?"
    r"(?:\s+(?:in|at|near|by)\s+(?P<where>(?:the\s+)?[\w’'-]+"
    r"(?:\s+(?!(?:after|before|with|on|last|this|for|and|but|so|then|when|which|who)\b)[\w’'-]+)?))?",
    re.I,
)


#: the eatery named later in the sentence of a meal told by its dish: "..., at Matsusaka-ya in Tenma"
_NAMED_LATER = re.compile(rf"[^.;!?]{{0,50}}?,?\s+at\s+(?P<named>{p.NAME})")
#: "took the kids to buffalo wild wings", "took everyone to organ stop pizza": an eatery in lower case by its food
_TOOK_TO_EATERY = re.compile(
    r"\btook\s+(?P<who>[\w’'-]+(?:\s+and\s+others)?|(?:the|my|our)\s+[\w’'-]+)\s+to\s+"
    r"(?P<named>(?!(?:a|an|the|some|this|that|our|my)\s)(?-i:[a-z][\w’'-]*\s+){1,3}?(?:pizza|wings|burgers?|grill|diner|kitchen|bbq|tacos|cafe|café|bistro|pub|sushi|"
    r"ramen|noodles?|steakhouse|taqueria))\b",
    re.I,
)


def _took_out_for(fact: "Fact", text: str) -> list[Sighting]:
    """A meal out told by what was eaten (:data:`_TOOK_OUT_FOR`): the speaker's when they took
    someone or were taken; its place the dish's place, where it was ("omakase in haeundae").
    Someone else who took the speaker out paid: no amount."""
    person = fact.speaker or ""
    eatery = _TOOK_TO_EATERY.search(text)
    if eatery is not None and not p.HEDGES.search(text) and tense(text) is not True:
        lead = text[: eatery.start()].rstrip()
        if (
            not lead
            or lead[-1:] in ",.;:!"
            or lead.split()[-1] in (person, "others", "also", "and", "then", "so", "Also")
        ):
            return [_sighting(fact, person, text[eatery.start() :], _title(eatery.group("named")), None, None)]
    match = _TOOK_OUT_FOR.search(text)
    if match is None or p.HEDGES.search(text) or _AHEAD.search(text[: match.start()]) or tense(text) is True:
        return []
    who = match.group("who")
    me = who in (person, f"{person} and others") or who.lower() in ("me", "us")
    lead = text[: match.start()].rstrip()
    before = re.sub(r"[^\w\s’'-]", " ", lead).split()
    speaker_took = (
        not before
        or lead[-1:]
        in ",.;:!—–-"  # "soo-ah's bday was saturday, took her to ...": the speaker's, said without a subject
        or before[-1] in (person, "others")
        or before[-1].lower() in ("we", "i", "and", "then", "so", "also")
    )
    if not me and not speaker_took:
        return []  # someone took someone else out: not the speaker's meal
    what = " ".join(match.group("what").lower().split())
    where = match.group("where")
    place = f"{what} place" if not re.search(r"(?:place|restaurant|spot|bar|joint)$", what) else what
    if where and not re.match(r"(?i)(?:the|this|a)\b", where):
        place = f"{place} in {where}"
    named = _NAMED_LATER.match(text, match.end())
    if named is not None and not is_place(named.group("named")):
        place = named.group("named")  # "took me for yakiniku on Saturday to celebrate, at Matsusaka-ya"
    sighting = _sighting(fact, person, text[match.start() :], place, _cuisine(what), None)
    if me:
        sighting = replace(sighting, fields={**sighting.fields, "amount": None, "currency": None})
    return [sighting]


def _named_eatery_in(match: "re.Match[str]", text: str) -> bool:
    """ "dinner in X" names an eatery, not the town the dinner was in: its name holds an eatery's word
    ("the Clew Bay Bistro") or it is on a street ("Marseille on dominick street")."""
    name = match.group("named")
    if re.search(rf"\b(?i:{_EATERY}|{p.EATERY_AFTER}|inn)\b", name):
        return True
    return bool(re.match(r"\s+on\s+[\w'’-]+\s+(?i:street|st|road|rd|avenue|ave|lane|square)\b", text[match.end() :]))


def _reported(fact: "Fact", text: str) -> bool:
    """A meal at a place told as done: in the past, or -- a fragment with no tense -- with the price
    paid ("dinner w Wei Jie fri at Casa Lisboa, we split, $74 my half") and no time ahead."""
    from ...extract.money import find_amounts

    said = tense(text)
    if said is not None:
        return said is False
    return bool(find_amounts(text)) and not _dated_ahead(fact) and not _AHEAD.search(text)


def _trim(place: str | None) -> str | None:
    """ "Bravas on Cotham Hill" -> "Bravas": the street is where it is, not its name."""
    if place is None:
        return None
    return re.split(r"\s+(?:on|in)\s+", place, maxsplit=1)[0] if re.search(r"\s(?:on|in)\s", place) else place


def _at_the_table(text: str, speaker: str) -> bool:
    """The speaker eats too, where the rule extractor wrote "us" and "I" as the speaker's name."""
    me = re.escape(speaker)
    return (
        re.search(rf"\b(?:of|with|and)\s+{me}\b|\b{me}\s+(?:and\s+others\s+)?(?:had|ate|got|tried)\b", text) is not None
    )


def _sighting(
    fact: "Fact", person: str, scope: str, place: str | None, cuisine: str | None, meal: str | None
) -> Sighting:
    from ...extract.money import find_amounts

    paid = find_amounts(scope)
    if fact.speaker and person != fact.speaker and _at_the_table(fact.text, fact.speaker):
        person = fact.speaker  # "Léa got her seafood dinner at X, 142,50$ for the three of us": ours too
    called = _CALLED.search(scope) or _AT_NAMED.search(scope)
    if (
        place
        and called is not None
        and lookup(place, towns=True) is not None
        and p.clean_name(called.group("named"), person)
    ):
        place = called.group("named")  # "dinner in Percé at a little place called Chez Mamie Homard": the eatery
    fields: dict[str, Any] = {
        "person": person,
        "place": place,
        "cuisine": cuisine,
        "meal": "breakfast" if meal in ("brekkie", "brekky") else meal,
        "when": p.when(fact),
        "companions": p.companions(scope, person),
        "amount": paid[0].amount if paid else None,
        "currency": paid[0].currency if paid else None,
    }
    return Sighting(NAME, fact.id, fields, f"{person}|{(place or cuisine or '').lower()}")


def detect(fact: "Fact") -> list[Sighting]:
    if p.WISHES.search(fact.text):
        return []  # "would love to have dinner at Noma one day": a wish, no meal
    out = _detect(fact)
    if not out:
        out = _subject_meal(fact)
    if not out:
        from .meal_signs import detect as by_signs

        out = by_signs(fact)
    if not out and fact.speaker and not p.is_question(fact):
        out = _took_out_for(fact, p.without_said(p.plain_cached(fact.text, fact.session_date), fact.speaker))
    return out


def _detect(fact: "Fact") -> list[Sighting]:
    out: list[Sighting] = []
    for clause in list(p.clauses(fact, CUE)) + (_anywhere(fact) if CUE.search(fact.text) else []):
        if out:
            break
        for rule in RULES:
            match = rule.match(clause.rest)
            if match is None:
                continue
            after = clause.rest[match.end() :]
            scope = clause.rest
            if _NOT_OUT.search(scope):
                break
            place, cuisine = _place(match, after, clause.person, p.companions(clause.rest, clause.person))
            groups = match.groupdict()
            dish = groups.get("dish")
            food = groups.get("food") or groups.get("food2")
            out_word = re.search(r"\b(?:out|ate\s+out)\b", match.group(0)) is not None
            if place is None and not out_word:
                continue
            if groups.get("past") is not None and (
                clause.person != fact.speaker
                or _AHEAD.search(clause.rest)
                or p.HEDGES.search(clause.rest)
                or _dated_ahead(fact)
            ):
                continue  # "we'll eat at X, the seafood place": a plan
            if dish and _cuisine(dish) is None:
                continue  # "had a great time at Disneyland": no food named
            cuisine = cuisine or _cuisine(food) or _cuisine(dish) or _cuisine(groups.get("adj"))
            if cuisine is None and dish and not groups.get("meal"):
                cuisine = " ".join(dish.split())
            meal = groups.get("meal")
            if meal is None and groups.get("eaten") is not None:
                found = re.search(r"\b(dinner|lunch|brunch|breakfast|supper)\b", after, re.I)
                meal = found.group(1).lower() if found else None
            # what the text says was paid ("£62 for the two of us", "£30 for my half")
            sighting = _sighting(
                fact, clause.person, clause.rest, place, cuisine, " ".join(meal.split()) if meal else None
            )
            twice = _TWICE.match(after)
            if twice is None:
                out.append(sighting)
                break
            # "ate at X twice, the second time was 85 lari": two meals, the amount the second's
            second = after[twice.end() :]
            paid = re.search(r"\b(?:the\s+)?(?:second|2nd|last)\s+time\b", second)
            first = dict(sighting.fields, amount=None, currency=None)
            if paid is None:
                first = dict(first)
                again = dict(first)
            else:
                again = dict(
                    _sighting(
                        fact, clause.person, second[paid.start() :], place, cuisine, sighting.fields["meal"]
                    ).fields
                )
            out.append(Sighting(NAME, fact.id, first, sighting.key))
            out.append(Sighting(NAME, fact.id, again, f"{sighting.key}#2"))
            break
    return out


#: words that put a clause ahead of when it is said
_AHEAD = re.compile(
    r"\b(?:will|won't|going\s+to|gonna|tomorrow|next|planning|plan\s+to|wants?\s+to|hop(?:e|ing)\s+to|would)\b|'ll\b",
    re.I,
)


def _dated_ahead(fact: "Fact") -> bool:
    when = p.when(fact)
    return when is not None and fact.session_date is not None and when.start > fact.session_date


#: "ate at X twice", "ate at X in the old town twice": two meals
_TWICE = re.compile(r"^(?:\s+(?:in|on|near|by)\s+(?:the\s+)?[\w’'-]+(?:\s+[\w’'-]+){0,2}?)?\s+twice\b")


def assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, "Fact"]) -> list[Assembled]:
    meals: list[tuple[str | None, dict[str, Any], str]] = []  # key, fields, session
    for sighting, fact in p.in_order(sightings, facts):
        fields = dict(sighting.fields)
        target = None
        for key, values, session in reversed(meals):
            if key != sighting.key:
                continue
            if values["when"] is not None and fields["when"] is not None:
                if values["when"] == fields["when"]:
                    target = values
            elif session == fact.session_id:
                target = values
            if target is not None:
                break
        if target is None:
            fields["said_on"] = fact.session_date
            fields["sources"] = [fact.id]
            meals.append((sighting.key, fields, fact.session_id))
            continue
        for name, value in fields.items():
            if name == "companions":
                target[name] = target[name] + [c for c in value if c not in target[name]]
            elif target.get(name) is None:
                target[name] = value
        target["sources"].append(fact.id)
    out = []
    for _, values, _ in meals:
        # the sentence after that said what it cost ("$94 for the two of us") is a source too
        paid_in = values.pop("_amount_from", None)
        if paid_in is not None and paid_in not in values["sources"]:
            values["sources"].append(paid_in)
        out.append(Assembled(kind.name, values, list(values["sources"])))
    return out


CLASS = p.record_class(
    "Meal",
    {
        "place": str,
        "person": str,
        "cuisine": str,
        "meal": str,
        "when": Period,
        "companions": list[str],
        "amount": float,
        "currency": str,
    },
    "A meal out (offline rules): where, which cuisine or dish, when, with whom, what it cost (ISO currency).",
)
DESCRIPTION = "Meals out: restaurants, cafés and bars someone ate at, the cuisine or dish, when and with whom."
