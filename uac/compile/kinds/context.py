"""What a sighting takes from around its fact: the amount said in the next sentence, and
what a bare "$" means where the person lives.

They run on the sightings of all facts before they are assembled
(:func:`localise`, called by the offline compile):

* "there" after a verb of travel or a stay ("we spent four nights there", "so we're going
  there instead") stands for the gazetteer place named before it in the same sentence, else
  in the speaker's sentence just before (same session); the fact is read again with the
  place in its stead, and a trip it then tells is the speaker's like any other;
* a day trip told in the same session as another trip of the person's in the same
  country ("Back from Lisbon ..." then "did a day trip to Sintra") is part of that stay,
  not a trip of its own: its fact stays on the timeline, counted unclear;

* a meal or a purchase told without its cost takes the amount that opens the next sentence
  of the same session ("bought a backpack for the commute." then "Bellroy, $189.") ("We had dinner at Oaxaca Kitchen last night." then "$94 for the two of
  us"; "... at Little Seoul." then "27,50 € for my half"), when that sentence tells no
  record of its own;
* a home in a city whose name several countries share ("we found a 2 bed in hamilton") lies
  in the one of them the person names most places of (capitalised or in lower case), a tie
  going to the bigger city's; none named, its country stays unknown;
* a purchase's or meal's USD read from a bare "$", "dollars" or "bucks" is the user's
  own dollar (:func:`uac.extract.money.local_currency`): the project's ``[user]
  currency``, else the currency of the country of the person's home as the home
  sightings tell it -- the home said last before the amount, else the first one said --
  unless the fact names the US dollar ("US$", "USD").  With no home told, the country the
  person names most places of; and a person who writes the US dollar as such elsewhere
  ("US$85") uses "$" for the other dollar they name most places of.  Nothing changes where
  none says;
* a purchase or meal with no amount the kinds could read takes one written the local way
  of the user's own currency (:func:`uac.extract.money.home_currency`, the same
  ``[user] currency`` or home): "R450", "kr 199", "4 200 rand"
  (:func:`uac.extract.money.local_amounts`), the first one after its item; and one read in the
  currency a name means first ("850 pounds" as GBP) is in the user's own where their land calls
  its money so ("pounds" in Cairo are EGP, "quid" in Galway EUR).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from . import patterns as p
from .model import Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

#: "$94 for the two of us", "About €30 each": a sentence that opens with an amount
#: (or with the make of a thing bought before it: "bought a backpack for the commute." then "Bellroy, $189.",
#: "Littmann Classic III, 420 dhs")
_OPENS_WITH_AMOUNT = re.compile(
    r"^(?:[A-Z][\w'’-]*\s+said:\s+)?(?:(?-i:[A-Z][\w&'’-]*)(?:\s+(?-i:[A-Z][\w&'’-]*)){0,2},\s+)?"
    r"(?:(?:about|around|only|just|like|so|and)\s+)?",
    re.I,
)


def localise(
    sightings: dict[str, list[Sighting]], facts: list["Fact"], currency: str | None = None
) -> dict[str, list[Sighting]]:
    """The sightings by kind, with the amounts of meals told in the next sentence and every
    bare "$" in the user's own dollar (see the module's text)."""
    order = {fact.id: index for index, fact in enumerate(facts)}
    told = {s.fact_id for found in sightings.values() for s in found if "_doubt" not in s.fields}
    seen = told | {s.fact_id for found in sightings.values() for s in found}
    out = dict(sightings)
    homes: dict[str, list[tuple[int, str]]] = {}
    named = _countries_named(facts)
    out["home"] = [_home_country(s, named) for s in sightings.get("home", [])]
    moves: dict[str, set[int]] = {}
    for home in out["home"]:
        if home.fields.get("country") and home.fields.get("person"):
            at = _moved_in_at(home, facts, order)
            homes.setdefault(home.fields["person"], []).append((at, home.fields["country"]))
            if at != order.get(home.fact_id, 0):
                moves.setdefault(home.fields["person"], set()).add(at)
    for person, at in ((who, min(where)) for who, where in moves.items()):
        # a move told ahead with no home before it: until the move, the land the person named most before it
        if not any(index < at for index, _ in homes[person]):
            spoken = _countries_named(facts[:at]).get(person, Counter()).most_common(1)
            if spoken and spoken[0][1] >= 2 and spoken[0][0] not in {c for _, c in homes[person]}:
                homes[person].append((0, spoken[0][0]))
    for person, country in _country_spoken_of(named).items():
        homes.setdefault(person, [(0, country)])  # no home told: the country the person speaks of most
    for person, country in _other_dollar(facts, named).items():
        homes.setdefault(person, [(0, country)])  # "US$85" written: their own "$" is another dollar
    from .trip_signs import in_turns

    tripped = {s.fact_id for s in sightings.get("trip", []) if s.fields.get("destination")}
    # a name the trip rules doubted ("back from Lourdes": no town the gazetteer holds) may still be
    # read by its signs; the doubt gives way to the trip
    doubted = {s.fact_id for s in sightings.get("trip", []) if "_doubt" in s.fields}
    by_signs = in_turns(
        facts,
        seen - (doubted - {s.fact_id for found in sightings.values() for s in found if "_doubt" not in s.fields}),
        tripped,
    )
    read = {s.fact_id for s in by_signs}
    kept = [s for s in sightings.get("trip", []) if not ("_doubt" in s.fields and s.fact_id in read)]
    trips = kept + _there(facts, seen) + by_signs
    trips = [_told_back(s, facts, order) for s in trips]
    trips = [_trip_country(s, homes, named, order) for s in trips]
    out["trip"] = _day_trips(trips, facts, order)
    for name in ("meal", "purchase"):
        out[name] = [_next_amount(s, facts, order, told) for s in sightings.get(name, [])]
    money = _Money(facts, order, homes, currency, _dollar_spoken_of(named), _currency_written(facts), moves)
    for name in ("purchase", "meal"):
        out[name] = [_dollar(_own_named(_local_amount(s, money), money), money) for s in out.get(name, [])]
    out["purchase"] = [_priced_or_named(s) for s in out.get("purchase", [])]
    return out


def _moved_in_at(home: Sighting, facts: list["Fact"], order: dict[str, int]) -> int:
    """Where a home starts to count for money: where it was said, or, for a move told ahead
    ("moving to melbourne next month"), the first fact said on or after the day it begins."""
    from ...dates import Period

    said = order.get(home.fact_id, 0)
    start = home.fields.get("start")
    if home.fields.get("_event") != "planned" or not isinstance(start, Period):
        return said
    return next(
        (i for i, fact in enumerate(facts) if i > said and fact.session_date and fact.session_date >= start.start),
        len(facts),
    )


def _priced_or_named(sighting: Sighting) -> Sighting:
    """A purchase with no price, its thing named by one word ("got a car", "bought one"), says
    too little to be a record: measured on chats no rule was written for, most such records
    were wrong.  It stays on the timeline, unclear, with its source."""
    item = sighting.fields.get("item")
    if "_doubt" in sighting.fields or sighting.fields.get("amount") is not None or not isinstance(item, str):
        return sighting
    if len(item.split()) > 1:
        return sighting
    return Sighting(sighting.kind, sighting.fact_id, {"_doubt": "no price, and the thing named by one word"}, None)


@dataclass(frozen=True)
class _Money:
    """What an amount's currency is read against: the facts in order, the homes told (per
    person, (position, country)), the project's ``[user] currency``."""

    facts: list["Fact"]
    order: dict[str, int]
    homes: dict[str, list[tuple[int, str]]]
    currency: str | None
    #: per person with no home told, the dollar country they name most (see :func:`_dollar_spoken_of`)
    dollar_homes: dict[str, str]

    def home_country(self, person: str, at: int) -> str | None:
        """The country of the person's home said last before ``at``, else the first one said
        (never a home moved to later: prices said before a move are not in the new home's money)."""
        known = sorted(self.homes.get(person, []))
        before = [country for index, country in known if index <= at]
        if before:
            return before[-1]
        first = known[0] if known else None
        return first[1] if first is not None and first[0] not in self.moves.get(person, ()) else None

    #: per person, the currency they write by its name or symbol most (see :func:`_currency_written`)
    written: dict[str, str] = field(default_factory=dict)
    #: per person, where a move told ahead takes effect (the first fact said on or after its day)
    moves: dict[str, set[int]] = field(default_factory=dict)

    def own_currency(self, person: str, at: int) -> str | None:
        """The person's own money: the project's, else their home's, else the one they write most."""
        from ...extract.money import home_currency

        return home_currency(self.currency, self.home_country(person, at)) or self.written.get(person)


#: a person's own money is the one they write by its name or symbol most, when no home says it: at
#: least this many amounts, more than half of them in it, and never the US dollar (a bare "$" is
#: every dollar's)
MIN_AMOUNTS_FOR_CURRENCY = 3


def _currency_written(facts: list["Fact"]) -> dict[str, str]:
    """Per speaker, the currency of most of the amounts they write with a name, code or symbol
    ("AED 1,099", "289 dhs", "420 dirhams"), where it is clear (:data:`MIN_AMOUNTS_FOR_CURRENCY`)."""
    from ...extract.money import find_amounts

    counts: dict[str, Counter[str]] = {}
    for fact in facts:
        if fact.speaker and any(c.isdigit() for c in fact.text):
            for money in find_amounts(fact.text):
                counts.setdefault(fact.speaker, Counter())[money.currency] += 1
    out: dict[str, str] = {}
    for person, seen in counts.items():
        code, most = seen.most_common(1)[0]
        if code != "USD" and most >= MIN_AMOUNTS_FOR_CURRENCY and most * 2 > sum(seen.values()):
            out[person] = code
    return out


#: a person with no home told takes the country of the places they name, when it is clear:
#: at least this many places named, more than half of them in that one country
MIN_PLACES_FOR_COUNTRY = 3


def _countries_named(facts: list["Fact"]) -> dict[str, Counter[str]]:
    """Per speaker, how many times they name a place of each country ("back from Hermanus",
    "a weekend in George", "my sister's coming from ottawa"): places the gazetteer places in
    one country, capitalised or, in lower case, as :func:`~uac.extract.places.lookup_lower`
    accepts them.  A city whose name several countries share ("down to Cambridge", "to
    Hamilton and back") counts, once the others are counted, for the one of its countries the
    speaker names most; for none when the speaker names none of them."""
    from ...extract.places import countries_of, lookup_as_written

    named: dict[str, Counter[str]] = {}
    shared: list[tuple[str, str]] = []
    for fact in facts:
        if not fact.speaker:
            continue
        for match in _NAMED.finditer(fact.text):
            word = match.group("place")
            place = lookup_as_written(word)
            if place is not None and place.country and not place.ambiguous:
                named.setdefault(fact.speaker, Counter())[place.country] += 1
            elif place is not None and place.kind == "city" and place.ambiguous:
                shared.append((fact.speaker, place.name))
    for speaker, name in shared:
        counts = named.get(speaker, Counter())
        candidates = [country for country in countries_of(name) if counts[country]]
        if candidates:
            counts[max(candidates, key=lambda c: counts[c])] += 1
    return named


def _country_spoken_of(named: dict[str, Counter[str]]) -> dict[str, str]:
    """Per speaker, the one country most of the places they name are in, when at least
    :data:`MIN_PLACES_FOR_COUNTRY` are named and more than half lie in it, or (a traveller
    naming a place or two of many lands) it is named :data:`DOMINANT_COUNTRY` times as often
    as any other; the currency of a user who never said where home is."""
    out: dict[str, str] = {}
    for person, counts in named.items():
        (country, most), *rest = counts.most_common(2)
        total = sum(counts.values())
        runner_up = rest[0][1] if rest else 0
        if total >= MIN_PLACES_FOR_COUNTRY and (most * 2 > total or most >= DOMINANT_COUNTRY * runner_up):
            out[person] = country
    return out


#: a country named this many times as often as the next one is the speaker's, though more than half of
#: the places they name lie elsewhere (ten places in Egypt, two in each of four other lands)
DOMINANT_COUNTRY = 4


def _dollar_spoken_of(named: dict[str, Counter[str]]) -> dict[str, str]:
    """Per speaker, the country of a dollar other than the US one whose places they name most,
    at least :data:`MIN_PLACES_FOR_COUNTRY` times and more often than places in the US: whose
    "$" it is when no home is told and no country holds most of the places named (a
    Christchurch man naming Timaru, Kaikoura, Brisbane and the Gold Coast pays in NZD)."""
    from ...extract.money import local_currency

    out: dict[str, str] = {}
    for person, counts in named.items():
        dollars = [
            (count, country)
            for country, count in counts.items()
            if count >= MIN_PLACES_FOR_COUNTRY
            and count > counts.get("US", 0)
            and _a_dollar(local_currency(None, country))
        ]
        if dollars:
            out[person] = max(dollars)[1]
    return out


def _a_dollar(code: str | None) -> bool:
    """Whether a currency is another country's dollar (the one a bare "$" may mean)."""
    from babel.numbers import get_currency_name

    if not code or code == "USD":
        return False
    return "dollar" in get_currency_name(code, locale="en").lower()


#: a dollar of another country is the person's own when at least this many places of it are named
MIN_PLACES_FOR_DOLLAR = 2


def _other_dollar(facts: list["Fact"], named: dict[str, Counter[str]]) -> dict[str, str]:
    """Per speaker who writes the US dollar as such ("US$85", "$68 US", "180 USD"), the country
    of another dollar they name most places of (at least :data:`MIN_PLACES_FOR_DOLLAR`): who
    marks the US one uses a bare "$" for their own (a Vancouverite naming Seattle, Juneau and
    Skagway more often than Calgary still pays in CAD)."""
    from ...extract.money import local_currency, names_us_dollar

    marking = {fact.speaker for fact in facts if fact.speaker and names_us_dollar(fact.text)}
    out: dict[str, str] = {}
    for person in marking:
        dollars = [
            (count, country)
            for country, count in named.get(person, Counter()).items()
            if count >= MIN_PLACES_FOR_DOLLAR and local_currency(None, country) not in (None, "USD")
        ]
        if dollars:
            out[person] = max(dollars)[1]
    return out


#: a city of the user's own country is the one meant when it holds at least this many people and
#: at least this share of the biggest city of the name ("Victoria" for a Canadian, 290,000 against
#: Hong Kong's; never "London" for one, 380,000 against 8.9 million, nor "Paris" for an American)
MIN_HOME_CITY, MIN_HOME_SHARE = 50_000, 0.1


#: a small town of the name in the person's own country wins over a city abroad of fewer people than this
MAX_ABROAD_FOR_HOME_TOWN = 50_000


def _trip_country(
    sighting: Sighting, homes: dict[str, list[tuple[int, str]]], named: dict[str, Counter[str]], order: dict[str, int]
) -> Sighting:
    """A trip to a city whose name several countries hold is in the person's own country when it
    holds a big enough city of the name (:data:`MIN_HOME_CITY`, :data:`MIN_HOME_SHARE`); a name
    no city dominates ("Newcastle", "Halifax") is in their own country, or, none known, in the
    country they name most places of when it holds the name; otherwise the gazetteer's biggest
    city stays, and an unknown country stays unknown."""
    from ...extract.places import city_sizes

    fields = sighting.fields
    name, person = fields.get("destination"), fields.get("person")
    if not isinstance(name, str) or not person or " and " in name or "," in name:
        return sighting
    from ...extract.places import lookup
    from .trips import UNPLACED

    sizes = city_sizes(name)  # country -> people of its biggest city of the name
    if fields.get("place_note") == UNPLACED or (not sizes and lookup(name) is None):
        return _small_town(sighting, name, person, homes, order)
    own = _Money([], order, homes, None, {}).home_country(person, order.get(sighting.fact_id, 0))
    if own and own not in sizes and max(sizes.values(), default=0) < MAX_ABROAD_FOR_HOME_TOWN:
        from ...extract.places import town_sizes

        if own in town_sizes(name):
            # "a week in Keswick" said in Bristol: the Cumbrian town, not the Ontario city of the name
            return replace(sighting, fields={**fields, "country": own})
    if len(sizes) < 2:
        return sighting
    biggest = max((city_sizes(name, own_name=True) or sizes).values())  # "Victoria": not Hong Kong's people
    if own in sizes and own != fields.get("country"):
        if fields.get("country") is None or (sizes[own] >= MIN_HOME_CITY and sizes[own] >= MIN_HOME_SHARE * biggest):
            return replace(sighting, fields={**fields, "country": own})
        return sighting
    if fields.get("country") is None:
        # no own country known: the one the person names most places of, if it holds the name
        ranked = named.get(person, Counter()).most_common(2)
        if ranked and ranked[0][0] in sizes and ranked[0][1] >= MIN_PLACES_FOR_COUNTRY:
            if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
                return replace(sighting, fields={**fields, "country": ranked[0][0]})
    return sighting


#: the speaker's own return or stay, told right after a place looked back on: "eskişehir was good!"
#: then "we went on thursday and came back on sunday as planned"
_BACK_OR_STAYED = re.compile(
    r"^(?:(?:and|so|we|i|it)\b[^.;!?]{0,40}?\b)?(?:came|got|drove|flew|went)\s+(?:back|home)\b"
    r"|\b(?:and|then)\s+(?:came|got|drove|flew)\s+(?:back|home)\b"
    r"|^(?:we|i)\s+(?:stayed|slept)\b[^.;!?]{0,40}?\b(?:in|at)\s+(?:a|an|the|our)\b"
    r"|^(?:we|i)\s+(?:stayed|spent)\s+(?:fri|sat|sun|mon|tue|wed|thu|\w+day|\d|two|three|four|five|a\s+week)",
    re.I,
)
#: ... or in the same sentence, after the place: "Khor Fakkan was so relaxing, 2 nights, 17th to 19th",
#: "udaipur was MAGICAL. ... back sunday", "Mina Clavero ... was perfect, saturday to monday, 2 nights in cabañas"
_STAY_TOLD = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|a\s+couple\s+of)\s+(?:nights?|nts)\b"
    r"|\b(?:fri|sat|sun|mon|tue|wed|thu)\w*\s+(?:to|til|till|until|-)\s+(?:fri|sat|sun|mon|tue|wed|thu)\w*\b"
    r"|\b(?:back|home)\s+(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:came|got|flew|drove)\s+(?:back|home)\b",
    re.I,
)
#: how many of the speaker's next sentences in the same session may tell the return
BACK_TOLD_WITHIN = 2


def _told_back(sighting: Sighting, facts: list["Fact"], order: dict[str, int]) -> Sighting:
    """A place looked back on ("şirince was cute but sooo hot", weak: it only completes a plan) is a
    trip taken when one of the speaker's next sentences of the session tells their return or stay
    there ("we stayed fri-sun in a stone house"; :data:`_BACK_OR_STAYED`), naming no other place."""
    from ...extract.places import is_place
    from ...extract.words import is_common_word

    fields = sighting.fields
    at = order.get(sighting.fact_id)
    if not fields.get("_weak") or fields.get("status") != "done" or fields.get("_family_back") or at is None:
        return sighting
    destination = fields.get("destination")
    if not isinstance(destination, str) or any(is_common_word(w) for w in destination.lower().split()):
        return sighting  # "Wedding was perfect.": a word opening the sentence, though Berlin has a Wedding
    fact = facts[at]
    own = p.without_said(fact.text, fact.speaker or "")
    place_at = own.lower().find(destination.lower().split()[0])
    if place_at >= 0 and _STAY_TOLD.search(own[place_at:]) and not p.is_question(fact):
        return replace(sighting, fields={k: v for k, v in fields.items() if k != "_weak"})
    for later in facts[at + 1 : at + 1 + BACK_TOLD_WITHIN]:
        if later.session_id != fact.session_id or later.speaker != fact.speaker:
            break
        said = p.without_said(later.text, later.speaker or "")
        said = re.sub(rf"^{re.escape(later.speaker or '')}(?:\s+and\s+others)?\s+", "we ", said)
        if p.is_question(later) or not (_BACK_OR_STAYED.search(said) or _STAY_TOLD.search(said)):
            continue
        if any(is_place(w) and w != fields.get("destination") for w in re.findall(r"\b[A-Z][a-zà-ÿ]+\b", said[3:])):
            return sighting  # "we came back via Porto": another place's
        kept = {k: v for k, v in fields.items() if k != "_weak"}
        return replace(sighting, fields=kept)
    return sighting


#: a small town abroad gives its country to a trip named by a strong cue from this many people
MIN_TOWN_ABROAD = 5_000


def _small_town(
    sighting: Sighting, name: str, person: str, homes: dict[str, list[tuple[int, str]]], order: dict[str, int]
) -> Sighting:
    """A town the main gazetteer lacks, named by a strong cue ("three nights in Tofino"): its
    country from the small towns' table (:func:`uac.extract.places.town_sizes`) -- the person's
    own when it holds a town of the name, else the only one or one five times bigger than the
    others when it has :data:`MIN_TOWN_ABROAD` people ("Kal", Kalgoorlie to its miners, is no
    Hungarian village); the note that it is not in the gazetteer goes.  No such town: a trip named
    by its cue alone stays unplaced, one the table named ("went down to Raglan") has no country."""
    from ...extract.places import town_sizes

    sizes = town_sizes(name)
    if not sizes:
        return sighting
    own = _Money([], order, homes, None, {}).home_country(person, order.get(sighting.fact_id, 0))
    ranked = sorted(sizes.items(), key=lambda item: -item[1])
    if own is not None and own in sizes:
        country = own
    elif ranked[0][1] >= MIN_TOWN_ABROAD and (len(ranked) == 1 or ranked[0][1] >= 5 * max(ranked[1][1], 1)):
        country = ranked[0][0]
    elif sighting.fields.get("place_note") is not None:
        return sighting  # named by a cue alone: it stays unplaced
    else:
        return replace(sighting, fields={**sighting.fields, "country": None})
    return replace(sighting, fields={**sighting.fields, "country": country, "place_note": None})


def _home_country(sighting: Sighting, named: dict[str, Counter[str]]) -> Sighting:
    """A home in a city of a name several countries share ("we found a 2 bed in hamilton")
    lies in the one of them the person names places of most; a tie goes to the country of
    the bigger city of the name.  No country named: it stays unknown."""
    from ...extract.places import countries_of

    fields = sighting.fields
    if fields.get("country") or not fields.get("city") or not fields.get("person"):
        return sighting
    counts = named.get(fields["person"], Counter())
    candidates = [c for c in countries_of(fields["city"]) if counts[c]]
    if not candidates:
        return sighting
    best = max(candidates, key=lambda c: counts[c])  # max keeps the first, the bigger city, on a tie
    return replace(sighting, fields={**fields, "country": best})


def _bare_amount(sighting: Sighting, money: _Money, at: int | None) -> Sighting:
    """A price said with no currency ("got a used Subaru, 18,500") is in the user's own
    currency; where none is known, the thing is bought all the same and its amount unknown
    (never a number in no currency)."""

    fields = {k: v for k, v in sighting.fields.items() if k != "_bare_amount"}
    local = money.own_currency(fields.get("person") or "", at or 0)
    if not local:
        return replace(sighting, fields={**fields, "amount": None, "currency": None})
    return replace(sighting, fields={**fields, "currency": local})


def _local_amount(sighting: Sighting, money: _Money) -> Sighting:
    """A purchase or meal told without an amount the kinds could read takes one written the
    local way of the user's currency ("R450", "199 kr", "4 200 rand"): the first after its item."""
    from ...extract.money import local_amounts, share_told_first

    fields = sighting.fields
    at = money.order.get(sighting.fact_id)
    if fields.get("_bare_amount"):
        return _bare_amount(sighting, money, at)
    if "_doubt" in fields or fields.get("amount") is not None or at is None:
        return sighting
    local = money.own_currency(fields.get("person") or "", at)
    text = money.facts[at].text if local else ""
    item = fields.get("item") if sighting.kind == "purchase" else fields.get("place")
    after = text.find(item) + len(item) if isinstance(item, str) and item in text else 0
    paid = [m for m in local_amounts(text, local) if m.start >= after] if local else []
    cost = _bare_cost(text[after:]) if local and not paid and sighting.kind == "meal" else None
    if cost is not None:
        return replace(sighting, fields={**fields, "amount": cost, "currency": local})
    if not paid:
        if fields.get("_local_only"):
            # "got a bike for R2 800" read in no currency of the user's: not a purchase the rules can tell
            return replace(sighting, fields={"_doubt": "an amount in no currency known to be the user's"}, key=None)
        return sighting
    kept = {k: v for k, v in fields.items() if k != "_local_only"}
    mine = share_told_first(text[after:], fields.get("person"))  # "RM1,700, my half 850": what the speaker paid
    amount = mine if mine is not None and mine < paid[0].amount else paid[0].amount
    return replace(sighting, fields={**kept, "amount": amount, "currency": paid[0].currency})


#: a meal's cost said with no currency ("the bill was 9,500", "it came to 2.8k for both of us", "I paid,
#: 3,400", "1,600 for both of us"): in the user's own money, read only where that is known
_BARE_COST = re.compile(
    r"(?:\b(?:came\s+to|bill\s+(?:was|came\s+to)|total\s+was|paid,?|(?<!\bit\s)was|cost|set\s+(?:us|me)\s+back)\s+"
    r"(?:about\s+|around\s+|like\s+|only\s+|just\s+)?(?P<n>{n})(?P<k>k\b)?"
    # "for both of us" as the extractor writes it: "for both of Rafael and others"
    r"|(?P<n2>{n})(?P<k2>k\b)?\s+for\s+(?:(?:both|the\s+(?:two|three|four))\s+of\s+(?:us|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*\s+and\s+others)|us\s+both|two\b))"
    r"(?!\s*(?:%|km|kg|k?m\b|mins?\b|minutes|hours?|hrs?|people|guests|am\b|pm\b|nights?|days?|years?|[./:-]\d))".format(
        n=r"(?<![\d.,])(?:[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d(?:\d{0,3})(?:\.\d)?|[1-9]\.\d)(?![\d,])"
    ),
    re.I,
)


def _bare_cost(text: str) -> float | None:
    """The first cost :data:`_BARE_COST` reads in ``text`` (never a year: "was 2024")."""
    for match in _BARE_COST.finditer(text):
        raw = match.group("n") or match.group("n2")
        value = float(raw.replace(",", ""))
        if re.fullmatch(r"(?:19|20)\d\d", raw):
            continue
        if match.group("k") or match.group("k2"):
            value *= 1000
        elif "." in raw:
            continue  # "was 2.5": no price without its "k"
        return value
    return None


#: "there" after a verb of travel ("going there", "flew back there") or of a stay ("four nights there")
_THERE = re.compile(
    r"\b(?:(?P<go>go|goes|going|went|gone|fly|flying|flew|flown|drive|driving|drove|head|heading|headed|travell?(?:ed|ing)?|"
    r"back|get|got|getting|come|coming|came|move|moving|moved)|(?P<stay>nights?|days?|weeks?|weekends?|fortnight|stay|stayed|"
    r"staying|holiday|vacation|spent|spend|spending|time))\s+(?:(?:back|over|up|down|out|again)\s+)?there\b"
)
#: a place named after a preposition or a verb of travel ("a wedding in Adelaide", "come to Wellington")
_NAMED = re.compile(
    r"\b(?:in|to|at|from|visit|visiting|visited|around|of)\s+(?P<place>(?:the\s+)?(?:[A-Z][\w’'-]*)(?:\s+[A-Z][\w’'-]*){0,2}"
    rf"|{p.LOWER_NAME})"
)
#: a sentence that opens with its place, as chats write it in lower case: "santa fe was amazing."
_OPENS_WITH_PLACE = re.compile(
    r"^(?:[A-Z][\w’'-]*\s+said:\s+)?(?P<place>[A-Za-z][a-z]+(?:\s+[a-z]+){0,2}?)\s+(?:was|is|were)\b"
)


def _place_in(text: str) -> str | None:
    """The last place of the gazetteer ``text`` names (after a preposition, or opening it)."""
    from ...extract.places import lookup, lookup_lower

    found = None
    for match in _NAMED.finditer(text):
        place = lookup(match.group("place"))
        if place is not None and place.kind in ("city", "country", "region"):
            found = match.group("place")
    if found is None:
        opening = _OPENS_WITH_PLACE.match(text)
        if opening is not None:
            words = opening.group("place")
            place = lookup_lower(words.lower()) if " " not in words else lookup(words.title())
            found = place.name if place is not None and place.kind == "city" else None
    return found


def _there(facts: list["Fact"], told: set[str]) -> list[Sighting]:
    """The trips of facts no rule told that say "there" for a place named before (see the module's text)."""
    from . import trips

    out: list[Sighting] = []
    for at, fact in enumerate(facts):
        if fact.id in told or not fact.speaker or "there" not in fact.text:
            continue
        there = _THERE.search(fact.text)
        if there is None or trips.CUE.search(fact.text) is None:
            continue
        place = _place_in(fact.text[: there.start()])
        if place is None and at > 0:
            before = facts[at - 1]
            if before.session_id == fact.session_id and before.speaker == fact.speaker:
                place = _place_in(before.text)
        if place is None:
            continue
        word = "to" if there.group("go") else "in"
        start = there.end() - len("there")
        text = f"{fact.text[:start]}{word} {place}{fact.text[there.end() :]}"
        out.extend(s for s in trips.detect(fact.replace(text=text)) if "_doubt" not in s.fields)
    return out


_DAY_TRIP = re.compile(r"\bday[\s-]+trips?\b", re.I)


#: a stay told in the sentence: it was no day out ("drove to Porto and back on Sunday, 3 nights")
_A_STAY = re.compile(r"\b(?:nights?|nts|overnight|slept|stayed|hotel|airbnb|hostel|cabin|camping|camped)\b", re.I)


def day_out(text: str, place: str) -> bool:
    """Does ``text`` tell ``place`` as a day out, no night away?  "a day trip to Sintra", "a Nara
    day trip", "wanted to do a day in Cefalù"; and, unless the sentence tells a stay too, "drove
    over to Bukowina for the thermal baths for a few hours", "cycled to Winsum and back", "going
    to London on Wednesday for a day at the National Archives"."""
    name = re.escape(place.split(",")[0].strip())
    if not name:
        return False
    said = re.search(
        rf"\bday[\s-]*trips?\s+(?:\w+\s+){{0,2}}?(?:to|in|at|around|on)\s+(?:the\s+)?{name}\b"
        rf"|\b{name}\s+day[\s-]*trips?\b|\b(?:a|one|the)\s+day\s+(?:out\s+)?(?:in|at|on|to)\s+(?:the\s+)?{name}\b",
        text,
        re.I,
    )
    if said is not None:
        return True
    back = re.search(
        rf"\b{name}\b[^.;!?]{{0,50}}?\b(?:for\s+(?:the|a|one)\s+day\b(?!\s+or\b)|for\s+(?:a\s+)?(?:few|couple\s+(?:of\s+)?)\s*hours"
        r"|and\s+back\s+(?:again|the\s+same\s+day|in\s+(?:a|one)\s+day|on\s+the\s+same\s+day)"
        r"|and\s+back(?=\s*(?:[,.;!?]|$)|\s+(?:along|via|through|by|on\s+the)\b))",
        text,
        re.I,
    )
    return back is not None and _A_STAY.search(text) is None


def _day_trips(trips: list[Sighting], facts: list["Fact"], order: dict[str, int]) -> list[Sighting]:
    out = []
    for sighting in trips:
        at = order.get(sighting.fact_id)
        fact = facts[at] if at is not None else None
        country = sighting.fields.get("country")
        destination = sighting.fields.get("destination")
        if fact is not None and isinstance(destination, str) and day_out(fact.text, destination):
            sighting = Sighting(sighting.kind, sighting.fact_id, {"_doubt": "a day out, no night away"}, None)
        elif fact is not None and country and _DAY_TRIP.search(fact.text):
            stays = [
                other
                for other in trips
                if other is not sighting
                and other.fields.get("country") == country
                and other.fields.get("person") == sighting.fields.get("person")
                and other.fact_id in order
                and facts[order[other.fact_id]].session_id == fact.session_id
                and not _DAY_TRIP.search(facts[order[other.fact_id]].text)
            ]
            if stays:
                sighting = Sighting(sighting.kind, sighting.fact_id, {"_doubt": "a day trip inside a stay"}, None)
        out.append(sighting)
    return out


def _next_amount(sighting: Sighting, facts: list["Fact"], order: dict[str, int], told: set[str]) -> Sighting:
    from ...extract.money import find_amounts

    fields = sighting.fields
    at = order.get(sighting.fact_id)
    if "_doubt" in fields or fields.get("amount") is not None or at is None or at + 1 >= len(facts):
        return sighting
    fact, after = facts[at], facts[at + 1]
    if after.session_id != fact.session_id or after.id in told or after.speaker != fact.speaker:
        return sighting
    opening = _OPENS_WITH_AMOUNT.match(after.text)
    paid = find_amounts(after.text)
    if not paid or opening is None or paid[0].start != opening.end():
        return _named_price(sighting, facts, at, told)
    return replace(
        sighting, fields={**fields, "amount": paid[0].amount, "currency": paid[0].currency, "_amount_from": after.id}
    )


#: how many sentences after a purchase told without its price may name the thing with its price
NAMED_PRICE_AHEAD = 2


def _named_price(sighting: Sighting, facts: list["Fact"], at: int, told: set[str]) -> Sighting:
    """ "i bought a ring." ... "the ring was $3,400": a sentence of the same turn, soon after, that
    names the thing bought (its last word) and opens with its price."""
    from ...extract.money import find_amounts

    item = sighting.fields.get("item")
    if sighting.kind != "purchase" or not isinstance(item, str) or not item.split():
        return sighting
    fact = facts[at]
    head = re.escape(item.split()[-1].lower().rstrip("s"))
    said = re.compile(
        rf"^(?:[A-Z][\w'’-]*\s+said:\s+)?(?:the|that|this|[A-Z][\w'’-]*['’]s)\s+{head}s?\s+"
        rf"(?:was|were|cost|came\s+to|set\s+\w+\s+back)\s+",
        re.I,
    )
    for after in facts[at + 1 : at + 1 + NAMED_PRICE_AHEAD]:
        if (
            after.session_id != fact.session_id
            or after.speaker != fact.speaker
            or after.evidence[:1] != fact.evidence[:1]
        ):
            break
        if after.id in told:
            continue
        opening = said.match(after.text)
        paid = find_amounts(after.text)
        if opening is not None and paid and paid[0].start == opening.end():
            fields = {
                **sighting.fields,
                "amount": paid[0].amount,
                "currency": paid[0].currency,
                "_amount_from": after.id,
            }
            return replace(sighting, fields=fields)
    return sighting


def _own_named(sighting: Sighting, money: _Money) -> Sighting:
    """An amount read in the currency a name means first ("850 pounds" is GBP, "45 quid" too) is in
    the user's own where their land calls its money so ("pounds" in Cairo, "quid" in Galway): the
    amount as :func:`~uac.extract.money.local_amounts` reads it in their currency, same number."""
    from ...extract.money import local_amounts

    fields = sighting.fields
    amount, currency = fields.get("amount"), fields.get("currency")
    at = money.order.get(sighting.fact_id)
    if "_doubt" in fields or amount is None or not currency or currency == "USD" or at is None:
        return sighting  # a bare "$" is the dollars' (see :func:`_dollar`)
    own = money.own_currency(fields.get("person") or "", at)
    if not own or own == currency:
        return sighting
    source = money.facts[money.order[fields["_amount_from"]]] if fields.get("_amount_from") in money.order else None
    text = (source or money.facts[at]).text
    if any(abs(m.amount - amount) < 0.005 for m in local_amounts(text, own)):
        return replace(sighting, fields={**fields, "currency": own})
    return sighting


def _dollar(sighting: Sighting, money: _Money) -> Sighting:
    from ...extract.money import home_currency, local_currency, names_us_dollar

    fields = sighting.fields
    if fields.get("currency") != "USD":
        return sighting
    order = money.order
    at = order.get(sighting.fact_id, 0)
    source = (
        money.facts[order[fields["_amount_from"]]]
        if fields.get("_amount_from") in order
        else money.facts[at]
        if sighting.fact_id in order
        else None
    )
    if source is None or names_us_dollar(source.text):
        return sighting
    country = money.home_country(fields.get("person") or "", at)
    if country is None:
        country = money.dollar_homes.get(fields.get("person") or "")
    own = home_currency(money.currency, country)
    if own in BUCKS_ELSEWHERE and _BUCKS.search(source.text) and not re.search(r"\$|\bdollars?\b", source.text):
        return replace(sighting, fields={**fields, "currency": own})  # "two hundred bucks" said in rand
    local = local_currency(money.currency, country)
    if not local or local == "USD":
        return sighting
    return replace(sighting, fields={**fields, "currency": local})


#: currencies other than dollars that their users call "bucks" (South African English: a rand is
#: "a buck", as the Dictionary of South African English records; Indian English says "600 bucks" of
#: rupees); elsewhere "bucks" stays a dollar
BUCKS_ELSEWHERE = frozenset({"ZAR", "INR"})
_BUCKS = re.compile(r"\bbucks?\b", re.I)
