"""Score a typed view against a ledger: record precision and recall per kind, field by field.

Each ledger event is matched with at most one record of the user in the view
(one record with at most one event): same key (a trip's destination, a
meal's place, a purchase's item by its words, an employer, a book's title),
the same status for trips, and dates that agree where both sides have one.
A record of someone else (``person`` names another person) is neither right
nor wrong and is left out.  Precision is matched records over the user's
records of the kind, recall matched events over events; with nothing to
divide by, the figure is ``None`` (unknown), never a perfect score.  Each
matched pair is then checked field by field (a trip's nights, start month and country,
an amount with its currency, whether a job is the current one): those are
the ``fields`` figures, ``right/checked``.  A purchase named otherwise than the ledger names
it matches by its amount and currency with a word of its item in common
(:func:`same_purchase_by_price`); an employer the ledger describes matches a record that
names it by words of the description (:func:`same_employer`); a meal's place matches
without the location the ledger adds ("Jollibee, Al Ghurair Centre" ~ "Jollibee",
:func:`same_meal_place`), or, described ("a pub"), by its amount and a word
(:func:`same_meal_by_price`); a workout matches by the sport its activity names
(:func:`same_activity`).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Mapping

from uac import fold_place_name, lookup_place

from .ledger import Event, Ledger

_ARTICLES = {"a", "an", "the", "my", "our", "some", "new", "pair", "of", "set"}


def normalize(text: Any) -> str:
    """Casefolded words without accents, punctuation or leading articles."""
    if text is None:
        return ""
    words = re.findall(r"[\w]+", fold_place_name(str(text)))  # accents and letters such as đ, ø folded
    while words and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


def _words(text: Any) -> set[str]:
    return {w for w in normalize(text).split() if w not in _ARTICLES and len(w) > 1}


def same_name(gold: Any, found: Any) -> bool:
    a, b = normalize(gold), normalize(found)
    return bool(a) and a == b


def same_place(gold: Any, found: Any) -> bool:
    """Places match by name, or by the name before a qualifier the ledger leaves to the country
    field ("Portland" ~ "Portland, Oregon"; the country is checked apart), or by the wider place
    the ledger names a town in ("Lanzarote" ~ "Playa Blanca, Lanzarote"); a note the ledger puts
    in parentheses may be left out ("Alaska (Inside Passage cruise)" ~ "Alaska")."""
    if isinstance(gold, str) and "(" in gold:
        bare = re.sub(r"\s*\([^)]*\)", "", gold).strip()
        if bare and bare != gold and same_place(bare, found):
            return True
    if same_name(gold, found) or _one_city(gold, found):
        return True
    if isinstance(gold, str) and isinstance(found, str) and (_ISLE.match(gold) or _ISLE.match(found)):
        # "Isle of Skye" ~ "Skye": an island named without the word for one
        return same_name(_ISLE.sub("", gold), _ISLE.sub("", found))
    if found is None:
        return False
    if "," in str(gold or ""):
        # "Playa Blanca, Lanzarote" ~ "Lanzarote": the island, region or country the ledger names the town in
        return same_name(str(gold).rsplit(",", 1)[1], found) and "," not in str(found)
    return same_name(gold, str(found).split(",", 1)[0])


_ISLE = re.compile(r"^(?:the\s+)?(?:isle|island)\s+of\s+", re.I)


def _one_city(gold: Any, found: Any) -> bool:
    """Two names the gazetteer holds for one city ("Saigon" ~ "Ho Chi Minh City", "Cuzco" ~ "Cusco")."""
    if not isinstance(gold, str) or not isinstance(found, str):
        return False
    a, b = lookup_place(gold), lookup_place(found)
    if a is None or b is None or a.kind != "city" or b.kind != "city" or a.country != b.country:
        return False
    return same_name(a.canonical or a.name, b.canonical or b.name)


def same_trip(event: Event, rec: dict[str, Any]) -> bool:
    """A trip the ledger names by several places is the record's that names one of them
    ("Hanoi and Ha Long Bay" ~ "Hanoi", "Tokyo & Kyoto" ~ "Kyoto"); a trip it names by a town
    and its region is the record's that names the town in the same country ("Playa Blanca,
    Lanzarote" ~ "Playa Blanca", ES; never "Paris, Texas" ~ "Paris", FR); a record that names
    the country the ledger's place lies in is that trip ("Jamaica" ~ "Montego Bay", JM).  The status and the
    dates are checked as for any trip, and one record matches one event only, so a second
    place of the same trip stays a wrong record."""
    gold, found = event.get("destination"), rec.get("destination")
    if not isinstance(gold, str) or not found:
        return False
    bare = re.sub(r"\s*\([^)]*\)", "", gold).strip()
    parts = [x for x in re.split(r"\s+(?:and|&|\+)\s+", bare) if x.strip()]
    if len(parts) > 1 and any(same_place(part.strip(" ,"), found) for part in parts):
        return True
    if "," in bare and same_name(bare.split(",", 1)[0], found):
        countries = str(event.get("country") or "").upper(), str(rec.get("country") or "").upper()
        return bool(countries[0]) and countries[0] == countries[1]
    # "Jamaica" ~ "Montego Bay", JM: the country the ledger's town lies in (as the island of "Playa Blanca,
    # Lanzarote" above)
    place = lookup_place(found) if isinstance(found, str) else None
    return place is not None and place.kind == "country" and place.country == str(event.get("country") or "").upper()


def same_item(gold: Any, found: Any) -> bool:
    """Items match when each names the other's head noun (its last word) and the record holds
    at least half of the gold's words ("standing desk" ~ "a new standing desk", not "desk lamp");
    a note the ledger puts in parentheses may be left out ("secondhand bike (blue Raleigh)" ~
    "secondhand bike"); a thing named by two or more of the gold's words alone is it too, as
    people name a thing by its make and model ("Sony XM5 headphones" ~ "Sony XM5")."""
    if isinstance(gold, str) and "(" in gold:
        bare = re.sub(r"\s*\([^)]*\)", "", gold).strip()
        if bare and bare != gold and _same_item(bare, found):
            return True
    return _same_item(gold, found)


def _same_item(gold: Any, found: Any) -> bool:
    a, b = _words(gold), _words(found)
    if not a or not b:
        return False
    if len(b) >= 2 and b <= a:
        return True  # the thing by its make and model, without the noun the ledger adds ("Sony XM5")
    heads = normalize(gold).split()[-1], normalize(found).split()[-1]
    return heads[0] in b and heads[1] in a and len(a & b) * 2 >= len(a)


def _stems(text: Any) -> set[str]:
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in _words(text)}


def same_purchase_by_price(event: Event, rec: dict[str, Any]) -> bool:
    """A purchase named otherwise than the ledger names it is that purchase when it has the
    ledger's amount in its currency and shares a word with its item ("new hokas", $145 ~
    "Hoka running shoes", 145 USD; "plinth", 450 NZD ~ "portable folding plinth"): a price
    and a word together single out one thing a person bought."""
    return _same_price(event, rec) and bool(_stems(event.get("item")) & _stems(rec.get("item")))


def _same_price(event: Event, rec: dict[str, Any]) -> bool:
    gold, found = event.get("amount"), rec.get("amount")
    if gold is None or not isinstance(found, (int, float)) or abs(float(found) - float(gold)) > 0.01:
        return False
    return str(rec.get("currency") or "").upper() == str(event.get("currency") or "").upper()


#: words that name a kind of eatery, which a record may leave off the ledger's name ("Ravi" ~ "Ravi Restaurant")
_EATERY_WORDS = {"restaurant", "cafe", "bistro", "pub", "bar", "the"}


def same_meal_place(gold: Any, found: Any) -> bool:
    """A meal's place matches by name, or by the name before the location the ledger adds after
    a comma or in parentheses ("Jollibee, Al Ghurair Centre" ~ "Jollibee", "the Drovers, Cardiff
    (leaving drinks)" ~ "The Drovers"), or without a word for a kind of eatery the ledger's name
    ends or opens with ("Ravi Restaurant, Satwa" ~ "Ravi"); never by the location alone
    ("Jollibee, Al Ghurair Centre" is not "Al Ghurair Centre")."""
    if same_name(gold, found):
        return True
    if not isinstance(gold, str) or not found:
        return False
    name = re.sub(r"\s*\([^)]*\)", "", gold).split(",", 1)[0].strip()
    if not name or same_name(name, found):
        return bool(name)
    said, named = set(normalize(found).split()), set(normalize(name).split())
    return bool(said) and said < named and not (said & _EATERY_WORDS) and named - said <= _EATERY_WORDS


def same_meal_by_price(event: Event, rec: dict[str, Any]) -> bool:
    """A meal at a place the record describes rather than names is the ledger's when it has the
    ledger's amount in its currency and shares a word with the ledger's place ("a seafood place",
    £64 ~ "seafood restaurant by the water, Menai Bridge", 64 GBP); the dates are checked as for
    any meal."""
    return _same_price(event, rec) and bool(_stems(event.get("place")) & _stems(rec.get("place")))


#: the words of a workout's activity -> the sport they name
_SPORTS = {
    **dict.fromkeys(("run", "running", "ran", "jog", "jogging", "parkrun", "10k", "5k", "marathon"), "run"),
    **dict.fromkeys(("swim", "swimming", "swam", "lengths"), "swim"),
    **dict.fromkeys(("cycle", "cycling", "bike", "biking", "ride", "cycled"), "cycle"),
    **dict.fromkeys(("hike", "hiking", "hiked", "trek", "trekking"), "hike"),
}


def _sport(text: Any) -> str | None:
    for word in normalize(re.sub(r"\([^)]*\)", " ", str(text or ""))).replace("-", " ").split():
        if word in _SPORTS:
            return _SPORTS[word]
    return None


def same_activity(gold: Any, found: Any) -> bool:
    """A workout's activity matches by name or by the sport the ledger's description names first
    ("running (Marina Walk)", "parkrun at Pontcanna", "run along the Taff" ~ "run"; "bike ride
    along the river" ~ "cycle"); the day is checked as for any workout."""
    if same_name(gold, found):
        return True
    sport = _sport(gold)
    return sport is not None and sport == _sport(found)


#: kinds of workplace: an employer named by one of these alone ("the hospital") is not singled out
_WORKPLACES = {
    "company",
    "firm",
    "job",
    "work",
    "place",
    "team",
    "office",
    "hospital",
    "clinic",
    "practice",
    "school",
    "startup",
    "agency",
    "department",
    "unit",
    "shop",
    "business",
    "college",
    "university",
    "contract",
    "in",
    "at",
    "on",
    "with",
    "for",
    "and",
}


def same_employer(gold: Any, found: Any) -> bool:
    """Employers match by name; an employer the ledger describes rather than names ("dental
    practice in Shawlands", "spine robotics startup in Boulder") is the record's when every word
    of the record's employer is in the description (or every word of the description in the
    record's) and one of them is more than a kind of workplace ("practice in shawlands",
    "health board", "Hamilton" ~ "cardiac ICU of a hospital in Hamilton"; not "the hospital")."""
    if same_name(gold, found):
        return True
    said, described = _words(found), _words(gold)
    if not said or not described:
        return False
    # the record names it with the description's words, or says more of it ("mid-sized consulting firm")
    shared = said & described
    return (said <= described or described <= said) and bool(shared - _WORKPLACES)


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    return value


def record_fields(record: Any) -> dict[str, Any]:
    """A record (a frozen dataclass instance, or a mapping) as ``field -> value``."""
    if isinstance(record, Mapping):
        return {k: _plain(v) for k, v in record.items()}
    if dataclasses.is_dataclass(record):
        return {f.name: _plain(getattr(record, f.name)) for f in dataclasses.fields(record)}
    raise TypeError(f"not a record: {record!r}")


def _days(value: Any) -> tuple[_dt.date, _dt.date] | None:
    """The first and last day of a record's date or period value, if it has one."""
    if value is None:
        return None
    start, end = getattr(value, "start", None), getattr(value, "end", None)
    if isinstance(start, _dt.date) and isinstance(end, _dt.date):
        return start, end
    if isinstance(value, _dt.date):
        return value, value
    if isinstance(value, str) and value.strip():
        from uac import Period

        try:
            parsed = Period(value.strip())
        except (TypeError, ValueError):
            return None
        return parsed.start, parsed.end
    return None


@dataclass(frozen=True)
class KindSpec:
    """How one kind's records are found and matched."""

    kind: str
    #: event field with the key, record fields that may hold it (first present wins)
    event_key: str
    record_keys: tuple[str, ...]
    key_match: Callable[[Any, Any], bool] = same_name
    #: (event date field, record date fields): the record must overlap the event where both are dated
    event_dates: tuple[str, ...] = ()
    record_dates: tuple[str, ...] = ()
    slack_days: int = 7
    #: the record field holding a trip's status, compared with the event's
    status_field: str | None = None
    #: field checks on matched pairs: name -> check(event, record fields) -> bool | None (not checkable)
    checks: tuple[tuple[str, Callable[[Event, dict[str, Any]], "bool | None"]], ...] = ()
    #: a second way a record is the event when its key does not match (a purchase by its price)
    also_same: "Callable[[Event, dict[str, Any]], bool] | None" = None


def _number(event_field: str, record_field: str, tolerance: float = 0.01):
    def check(event: Event, rec: dict[str, Any]) -> bool | None:
        gold = event.get(event_field)
        if gold is None:
            return None
        found = rec.get(record_field)
        return isinstance(found, (int, float)) and abs(float(found) - float(gold)) <= tolerance

    return check


def _money(event: Event, rec: dict[str, Any]) -> bool | None:
    if event.get("amount") is None:
        return None
    found = rec.get("amount")
    if not isinstance(found, (int, float)) or abs(float(found) - float(event.get("amount"))) > 0.01:
        return False
    return str(rec.get("currency") or "").upper() == str(event.get("currency") or "").upper()


def _month_of(event_field: str, record_fields: tuple[str, ...]):
    def check(event: Event, rec: dict[str, Any]) -> bool | None:
        span = event.span(event_field)
        if span is None:
            return None
        for name in record_fields:
            days = _days(rec.get(name))
            if days:
                return (days[0].year, days[0].month) == (span.first.year, span.first.month)
        return False

    return check


def _code(name: str):
    """The same ISO code (a trip's country) where the ledger gives one."""

    def check(event: Event, rec: dict[str, Any]) -> bool | None:
        gold = event.get(name)
        if not gold:
            return None
        return str(rec.get(name) or "").upper() == str(gold).upper()

    return check


def _current(event: Event, rec: dict[str, Any]) -> bool | None:
    if "current" in rec:
        return bool(rec["current"]) == event.current
    return (rec.get("end") is None) == event.current


def _text(event_field: str, record_field: str):
    def check(event: Event, rec: dict[str, Any]) -> bool | None:
        gold = event.get(event_field)
        if not gold:
            return None
        return bool(_words(gold) & _words(rec.get(record_field)))

    return check


SPECS: dict[str, KindSpec] = {
    "trip": KindSpec(
        "trip",
        "destination",
        ("destination", "purpose"),
        same_place,
        ("start", "end"),
        ("start", "end"),
        7,
        "status",
        (
            ("nights", _number("nights", "nights")),
            ("start_month", _month_of("start", ("start", "end"))),
            ("country", _code("country")),
        ),
        same_trip,
    ),
    "meal": KindSpec(
        "meal",
        "place",
        ("place",),
        same_meal_place,
        ("date",),
        ("when",),
        3,
        None,
        (("amount", _money),),
        same_meal_by_price,
    ),
    "purchase": KindSpec(
        "purchase",
        "item",
        ("item",),
        same_item,
        ("date",),
        ("when",),
        7,
        None,
        (("amount", _money),),
        same_purchase_by_price,
    ),
    "job": KindSpec(
        "job",
        "employer",
        ("employer",),
        same_employer,
        (),
        (),
        0,
        None,
        (("current", _current), ("title", _text("title", "role"))),
    ),
    "workout": KindSpec(
        "workout",
        "activity",
        ("activity",),
        same_activity,
        ("date",),
        ("when",),
        1,
        None,
        (
            ("distance_km", _number("distance_km", "distance_km", 0.05)),
            ("duration_min", _number("duration_min", "duration_min", 0.5)),
        ),
    ),
    "book": KindSpec("book", "title", ("title",), same_name, (), (), 0, None, (("author", _text("author", "author")),)),
    "home": KindSpec(
        "home",
        "city",
        ("city",),
        same_name,
        (),
        (),
        0,
        None,
        (("current", _current), ("country", _text("country", "country"))),
    ),
}


@dataclass
class KindScore:
    kind: str
    events: int
    records: int
    matched: int
    fields: dict[str, list[int]] = field(default_factory=dict)  # name -> [right, checked]
    missed: list[str] = field(default_factory=list)  # event ids without a record
    wrong: list[dict[str, Any]] = field(default_factory=list)  # records without an event

    @property
    def precision(self) -> float | None:
        return self.matched / self.records if self.records else None

    @property
    def recall(self) -> float | None:
        return self.matched / self.events if self.events else None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "events": self.events,
            "records": self.records,
            "matched": self.matched,
            "precision": self.precision,
            "recall": self.recall,
            "fields": {k: {"right": r, "checked": c} for k, (r, c) in self.fields.items()},
            "missed": self.missed,
            "wrong": self.wrong,
        }


def _is_users(rec: dict[str, Any], user: str) -> bool:
    person = rec.get("person")
    return person in (None, "") or normalize(person) in (normalize(user), "user", "i", "me")


def _key(rec: dict[str, Any], spec: KindSpec) -> Any:
    for name in spec.record_keys:
        if rec.get(name):
            return rec[name]
    return None


def _dates_agree(event: Event, rec: dict[str, Any], spec: KindSpec) -> bool | None:
    """True/False where both sides are dated, None where either is not."""
    spans = [s for s in (event.span(n) for n in spec.event_dates) if s]
    days = [d for d in (_days(rec.get(n)) for n in spec.record_dates) if d]
    if not spans or not days:
        return None
    first, last = min(s.first for s in spans), max(s.last for s in spans)
    return any(
        first - _dt.timedelta(days=spec.slack_days) <= b and a <= last + _dt.timedelta(days=spec.slack_days)
        for a, b in days
    )


def _summary(rec: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v if isinstance(v, (str, int, float, bool, type(None), list)) else str(v))
        for k, v in rec.items()
        if k not in ("sources",)
    }


def score_kind(spec: KindSpec, events: list[Event], records: Iterable[Any], user: str) -> KindScore:
    mine = [r for r in (record_fields(x) for x in records) if _is_users(r, user)]
    score = KindScore(spec.kind, len(events), len(mine), 0, {name: [0, 0] for name, _ in spec.checks})
    taken: set[int] = set()
    for event in events:
        best: int | None = None
        for i, rec in enumerate(mine):
            if i in taken:
                continue
            if not spec.key_match(event.get(spec.event_key), _key(rec, spec)) and not (
                spec.also_same is not None and spec.also_same(event, rec)
            ):
                continue
            if spec.status_field and str(rec.get(spec.status_field)) != str(event.get("status")):
                continue
            agree = _dates_agree(event, rec, spec)
            if agree is False:
                continue
            if agree is True or best is None:
                best = i
                if agree is True:
                    break
        if best is None:
            score.missed.append(event.id)
            continue
        taken.add(best)
        score.matched += 1
        for name, check in spec.checks:
            verdict = check(event, mine[best])
            if verdict is not None:
                score.fields[name][1] += 1
                score.fields[name][0] += int(verdict)
    score.wrong = [_summary(rec) for i, rec in enumerate(mine) if i not in taken]
    return score


def offline_collections() -> dict[str, tuple[str, str]]:
    """kind -> (domain, collection) of the offline kinds' records."""
    from uac import offline_kinds

    return {kind.name: (kind.domain, kind.collection) for kind in offline_kinds()}


def score_view(
    state: Mapping[str, Any],
    ledger: Ledger,
    *,
    kinds: Iterable[str] | None = None,
    collections: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, KindScore]:
    """Per kind, the records of ``state`` (a :class:`uac.view.state.StateView` or
    ``domain -> object with collections``) against ``ledger``'s events.

    A kind the view has no collection for scores zero records (its recall is 0
    where the ledger has events of it)."""
    where = dict(collections if collections is not None else offline_collections())
    wanted = list(kinds) if kinds is not None else [k for k in SPECS if k in where or ledger.of_kind(k)]
    scores = {}
    for kind in wanted:
        records: Iterable[Any] = ()
        if kind in where:
            domain, collection = where[kind]
            if domain in state:
                records = getattr(state[domain], collection, ()) or ()
        scores[kind] = score_kind(SPECS[kind], ledger.of_kind(kind), records, ledger.user)
    return scores
