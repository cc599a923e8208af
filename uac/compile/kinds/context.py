"""What a sighting takes from around its fact: the amount said in the next sentence, and
what a bare "$" means where the person lives.

They run on the sightings of all facts before they are assembled
(:func:`localise`, called by the offline compile):

* a day trip told in the same session as another trip of the person's in the same
  country ("Back from Lisbon ..." then "did a day trip to Sintra") is part of that stay,
  not a trip of its own: its fact stays on the timeline, counted unclear;

* a meal told without its cost takes the amount that opens the next sentence of the
  same session ("We had dinner at Oaxaca Kitchen last night." then "$94 for the two of
  us"; "... at Little Seoul." then "27,50 € for my half"), when that sentence tells no
  record of its own;
* a purchase's or meal's USD read from a bare "$", "dollars" or "bucks" is the user's
  own dollar (:func:`uac.extract.money.local_currency`): the project's ``[user]
  currency``, else the currency of the country of the person's home as the home
  sightings tell it -- the home said last before the amount, else the first one said --
  unless the fact names the US dollar ("US$", "USD").  Nothing changes where neither says.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from .model import Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

#: "$94 for the two of us", "About €30 each": a sentence that opens with an amount
_OPENS_WITH_AMOUNT = re.compile(r"^(?:[A-Z][\w'’-]*\s+said:\s+)?(?:(?:about|around|only|just|like|so|and)\s+)?", re.I)


def localise(sightings: dict[str, list[Sighting]], facts: list["Fact"], currency: str | None = None) -> dict[str, list[Sighting]]:
    """The sightings by kind, with the amounts of meals told in the next sentence and every
    bare "$" in the user's own dollar (see the module's text)."""
    order = {fact.id: index for index, fact in enumerate(facts)}
    told = {s.fact_id for found in sightings.values() for s in found if "_doubt" not in s.fields}
    out = dict(sightings)
    out["trip"] = _day_trips(sightings.get("trip", []), facts, order)
    out["meal"] = [_next_amount(s, facts, order, told) for s in sightings.get("meal", [])]
    homes: dict[str, list[tuple[int, str]]] = {}
    for home in sightings.get("home", []):
        if home.fields.get("country") and home.fields.get("person"):
            homes.setdefault(home.fields["person"], []).append((order.get(home.fact_id, 0), home.fields["country"]))
    for name in ("purchase", "meal"):
        out[name] = [_dollar(s, facts, order, homes, currency) for s in out.get(name, [])]
    return out


_DAY_TRIP = re.compile(r"\bday[\s-]+trips?\b", re.I)


def _day_trips(trips: list[Sighting], facts: list["Fact"], order: dict[str, int]) -> list[Sighting]:
    out = []
    for sighting in trips:
        at = order.get(sighting.fact_id)
        fact = facts[at] if at is not None else None
        country = sighting.fields.get("country")
        if fact is not None and country and _DAY_TRIP.search(fact.text):
            stays = [
                other for other in trips
                if other is not sighting and other.fields.get("country") == country
                and other.fields.get("person") == sighting.fields.get("person")
                and other.fact_id in order and facts[order[other.fact_id]].session_id == fact.session_id
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
        return sighting
    return replace(sighting, fields={**fields, "amount": paid[0].amount, "currency": paid[0].currency, "_amount_from": after.id})


def _dollar(
    sighting: Sighting, facts: list["Fact"], order: dict[str, int], homes: dict[str, list[tuple[int, str]]], currency: str | None
) -> Sighting:
    from ...extract.money import local_currency, names_us_dollar

    fields = sighting.fields
    if fields.get("currency") != "USD":
        return sighting
    at = order.get(sighting.fact_id, 0)
    source = facts[order[fields["_amount_from"]]] if fields.get("_amount_from") in order else facts[at] if sighting.fact_id in order else None
    if source is None or names_us_dollar(source.text):
        return sighting
    known = sorted(homes.get(fields.get("person") or "", []))
    before = [country for index, country in known if index <= at]
    country = before[-1] if before else (known[0][1] if known else None)
    local = local_currency(currency, country)
    if not local or local == "USD":
        return sighting
    return replace(sighting, fields={**fields, "currency": local})
