"""The ten record types of the analytical benchmark, each a declaration.

A :class:`RecordType` declares a collection: the fields a record draws (in
the order the seeded ``random.Random`` is consumed -- never the global one),
the order its keys are stored in, which fields the question patterns use
(date, two categories, a numeric measure, a naming entity), and two text
templates: the one sentence top-k retrieval sees and the flat facts of fact
memory.  Records are plain dicts with ISO date strings, ordered by date, with
ids ``<prefix>-<00001>`` in that order.

Reordering a type's ``fields`` changes the random draws and with them the
dataset checksum (``tests/analytical_bench/test_dataset_pinned.py``).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Record = dict[str, Any]
#: draws one field value: ``(rng, day of the record, the fields drawn so far) -> value``
Draw = Callable[[random.Random, dt.date, Record], Any]

#: every collection ends on this day; it starts early enough to fit the records
END_DATE = dt.date(2025, 12, 31)


def date_range_days(n: int) -> int:
    """Days covered by a collection of ``n`` records (at least 2023-2025)."""
    return max(1096, (n * 3) // 2)


def start_date(n: int) -> dt.date:
    return END_DATE - dt.timedelta(days=date_range_days(n) - 1)


@dataclass(frozen=True)
class Measure:
    field: str
    label: str  # "cost in USD"
    kind: str  # "int" | "float"
    unit: str = ""  # "USD", "minutes", "hours"
    decimals: int = 2

    def fmt(self, value: float) -> str:
        if self.kind == "int":
            return f"{int(value)}"
        return f"{value:.{self.decimals}f}"


@dataclass(frozen=True)
class RecordType:
    name: str  # collection name, e.g. "trips"
    singular: str  # "trip"
    id_prefix: str
    date_field: str
    category: str
    category_label: str
    category2: str
    category2_label: str
    measure: Measure
    entity: str
    entity_label: str
    #: ``(names, draw)`` in drawing order; several space-separated names take a drawn tuple apart
    fields: tuple[tuple[str, Draw], ...]
    #: ``str.format`` templates over a record's fields
    sentence_template: str
    fact_templates: tuple[str, ...]
    #: the record's keys in stored order, space-separated (default: drawing order)
    layout: str = ""
    #: makes the drawn records distinct where the questions need it (names, titles)
    dedupe: Callable[[random.Random, list[Record]], None] | None = None
    unique_dates: bool = False
    plural_text: str = ""

    @property
    def plural(self) -> str:
        return self.plural_text or self.name.replace("_", " ")

    def draw(self, rng: random.Random, day: dt.date) -> Record:
        """One record's fields (no id) for ``day``."""
        drawn: Record = {}
        for names, draw in self.fields:
            value = draw(rng, day, drawn)
            keys = names.split()
            if len(keys) == 1:
                drawn[keys[0]] = value
            else:
                drawn.update(zip(keys, value))
        return {key: drawn[key] for key in self.layout.split()} if self.layout else drawn

    def sentence(self, record: Record) -> str:
        """The record as one first-person sentence (what top-k retrieval indexes)."""
        return self.sentence_template.format(**record)

    def facts(self, record: Record) -> list[str]:
        """The record as flat third-person facts (what fact memory holds)."""
        return [template.format(**record) for template in self.fact_templates]

    def generate(self, rng: random.Random, n: int) -> list[Record]:
        """``n`` records, ordered by date, with ids in that order."""
        first = start_date(n)
        days = date_range_days(n)
        if self.unique_dates:
            offsets = sorted(rng.sample(range(days), n))
        else:
            offsets = sorted(rng.randrange(days) for _ in range(n))
        drawn = [self.draw(rng, first + dt.timedelta(days=offset)) for offset in offsets]
        if self.dedupe is not None:
            self.dedupe(rng, drawn)
        return [{"id": f"{self.id_prefix}-{index:05d}", **body} for index, body in enumerate(drawn, 1)]

    def date_of(self, record: Record) -> dt.date:
        return dt.date.fromisoformat(record[self.date_field])


# --- vocabularies ---------------------------------------------------------------

FIRST_NAMES = (
    "Alice Aaron Beatriz Bruno Camila Chen Daniel Dana Elena Emeka Farah Felix Grace Gustavo Hana Hugo "
    "Ines Ivan Julia Jonas Kai Keiko Lara Liam Maya Mateo Nadia Noah Olga Omar Priya Pablo Quinn Rafael "
    "Rosa Samir Sofia Tariq Tessa Umar Valentina Victor Wen Wanda Xavier Yara Yusuf Zoe Zane Amara Boris "
    "Clara Diego Esther Fatima Georg Helga Isaac Jana Kofi"
).split()
LAST_NAMES = (
    "Abbott Alvarez Becker Brown Castro Costa Dubois Duarte Eriksen Evans Fischer Flores Garcia Gupta "
    "Hansen Hughes Ito Ivanova Jensen Johnson Kim Kowalski Larsen Lopez Meyer Moreau Nakamura Novak "
    "Okafor Olsen Park Patel Quinlan Rossi Ruiz Schmidt Silva Tanaka Torres Ueda Varga Vogel Walsh "
    "Weber Xu Yamamoto Young Zhang Zimmer Adler Bauer Carter Diaz Ekwueme Fontaine Greco Haddad Ishii "
    "Jovanovic Keller"
).split()

CITIES = (
    ("Paris", "France", "Europe"),
    ("Lisbon", "Portugal", "Europe"),
    ("Berlin", "Germany", "Europe"),
    ("Rome", "Italy", "Europe"),
    ("Madrid", "Spain", "Europe"),
    ("Vienna", "Austria", "Europe"),
    ("Tokyo", "Japan", "Asia"),
    ("Seoul", "South Korea", "Asia"),
    ("Bangkok", "Thailand", "Asia"),
    ("Singapore", "Singapore", "Asia"),
    ("Hanoi", "Vietnam", "Asia"),
    ("New York", "USA", "North America"),
    ("Chicago", "USA", "North America"),
    ("Toronto", "Canada", "North America"),
    ("Mexico City", "Mexico", "North America"),
    ("Lima", "Peru", "South America"),
    ("Buenos Aires", "Argentina", "South America"),
    ("Bogota", "Colombia", "South America"),
    ("Cape Town", "South Africa", "Africa"),
    ("Nairobi", "Kenya", "Africa"),
    ("Marrakesh", "Morocco", "Africa"),
    ("Sydney", "Australia", "Oceania"),
    ("Auckland", "New Zealand", "Oceania"),
)
HOME_CITIES = ("Boston", "Seattle", "Austin", "Denver", "Portland", "Chicago")

RESTAURANTS = (
    ("Trattoria Nonna", "Italian"),
    ("Pasta Fresca", "Italian"),
    ("Luigi's", "Italian"),
    ("Sakura Sushi", "Japanese"),
    ("Ramen Ichiban", "Japanese"),
    ("Izakaya Kaze", "Japanese"),
    ("Taqueria El Sol", "Mexican"),
    ("Casa Verde", "Mexican"),
    ("Golden Dragon", "Chinese"),
    ("Dumpling House", "Chinese"),
    ("Spice Route", "Indian"),
    ("Tandoori Nights", "Indian"),
    ("Le Petit Bistro", "French"),
    ("Cafe Lumiere", "French"),
    ("Bangkok Garden", "Thai"),
    ("Lemongrass", "Thai"),
    ("The Greek Table", "Greek"),
    ("Olive & Feta", "Greek"),
    ("Burger Barn", "American"),
    ("Smokehouse 88", "American"),
    ("Seoul Kitchen", "Korean"),
    ("Pho Saigon", "Vietnamese"),
)
MEAL_TYPES = ("breakfast", "lunch", "dinner")

MERCHANTS = (
    ("Whole Foods", "groceries"),
    ("Trader Joe's", "groceries"),
    ("Safeway", "groceries"),
    ("Chipotle", "dining"),
    ("Starbucks", "dining"),
    ("Olive Garden", "dining"),
    ("Uber", "transport"),
    ("Shell", "transport"),
    ("Metro Transit", "transport"),
    ("City Power", "utilities"),
    ("Comcast", "utilities"),
    ("Water Works", "utilities"),
    ("Netflix", "entertainment"),
    ("AMC Theatres", "entertainment"),
    ("Spotify", "entertainment"),
    ("CVS Pharmacy", "health"),
    ("Walgreens", "health"),
    ("Macy's", "shopping"),
    ("Best Buy", "shopping"),
    ("Delta Air Lines", "travel"),
    ("Marriott", "travel"),
)
PAYMENT_METHODS = ("credit card", "debit card", "cash", "bank transfer")

SLEEP_QUALITY = ("poor", "fair", "good", "excellent")
SLEEP_LOCATIONS = ("home", "hotel", "friend's place")

ACTIVITIES = ("running", "cycling", "swimming", "yoga", "strength training", "hiking", "rowing")
WORKOUT_LOCATIONS = ("gym", "outdoors", "home", "community pool")
CALORIES_PER_MINUTE = {
    "running": 11,
    "cycling": 9,
    "swimming": 10,
    "yoga": 4,
    "strength training": 7,
    "hiking": 8,
    "rowing": 9,
}

GENRES = ("literary fiction", "mystery", "science fiction", "biography", "history", "fantasy", "self-help", "poetry")
BOOK_FORMATS = ("paperback", "ebook", "audiobook")
TITLE_WORDS_A = (
    "Silent Distant Hidden Golden Broken Last Crimson Quiet Endless Wandering Forgotten Bright Winter "
    "Northern Secret Burning Glass Iron Paper Salt"
).split()
TITLE_WORDS_B = (
    "Harbor Garden River Mountain City Letters Orchard Lighthouse Archive Horizon Forest Bridge Empire "
    "Voyage Kingdom Machine Shadow Season Island Signal"
).split()

DOCTORS = (
    ("Dr. Amina Osei", "general practice"),
    ("Dr. Paul Weber", "general practice"),
    ("Dr. Lena Fischer", "dentistry"),
    ("Dr. Raj Mehta", "dentistry"),
    ("Dr. Sara Lind", "dermatology"),
    ("Dr. Tom Becker", "cardiology"),
    ("Dr. Mei Lin", "ophthalmology"),
    ("Dr. Jorge Ruiz", "orthopedics"),
    ("Dr. Nora Haddad", "physiotherapy"),
    ("Dr. Ken Ito", "physiotherapy"),
    ("Dr. Eva Novak", "dermatology"),
)
VISIT_TYPES = ("checkup", "follow-up", "urgent care", "consultation")

MEETING_TOPICS = ("project review", "planning", "one-on-one", "client call", "interview", "brainstorm", "budget review")
MEETING_MODES = ("in person", "video call", "phone call")

PRODUCTS = (
    ("wireless headphones", "electronics"),
    ("laptop stand", "electronics"),
    ("smartwatch", "electronics"),
    ("phone charger", "electronics"),
    ("rain jacket", "clothing"),
    ("running shoes", "clothing"),
    ("wool sweater", "clothing"),
    ("desk lamp", "home"),
    ("coffee maker", "home"),
    ("bath towels", "home"),
    ("cookbook", "books"),
    ("travel guide", "books"),
    ("yoga mat", "sports"),
    ("tennis racket", "sports"),
    ("face cream", "beauty"),
    ("shampoo", "beauty"),
    ("board game", "toys"),
    ("puzzle", "toys"),
)
STORES = ("Amazon", "Target", "IKEA", "Costco", "REI", "Walmart")

RELATIONSHIPS = ("friend", "colleague", "family", "classmate", "neighbor", "mentor")
MET_THROUGH = ("undergrad", "work", "gym", "conference", "neighborhood", "online")


# --- drawing fields -------------------------------------------------------------


def pick(pool: tuple[Any, ...]) -> Draw:
    return lambda rng, day, drawn: rng.choice(pool)


def whole(low: int, high: int) -> Draw:
    return lambda rng, day, drawn: rng.randint(low, high)


def money(low: float, high: float) -> Draw:
    return lambda rng, day, drawn: round(rng.uniform(low, high), 2)


def the_day(rng: random.Random, day: dt.date, drawn: Record) -> str:
    return day.isoformat()


def person(rng: random.Random, day: dt.date, drawn: Record) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def _trip_end(rng: random.Random, day: dt.date, drawn: Record) -> str:
    return (day + dt.timedelta(days=drawn["nights"])).isoformat()


def _sleep_quality(rng: random.Random, day: dt.date, drawn: Record) -> str:
    return SLEEP_QUALITY[min(3, max(0, int((drawn["hours"] - 4.0) / 1.6) + rng.choice((-1, 0, 0, 1))))]


def _bedtime(rng: random.Random, day: dt.date, drawn: Record) -> str:
    return f"{rng.choice((21, 22, 23, 0, 1)):02d}:{rng.choice((0, 15, 30, 45)):02d}"


def _calories(rng: random.Random, day: dt.date, drawn: Record) -> int:
    return drawn["duration_min"] * CALORIES_PER_MINUTE[drawn["activity"]] + rng.randint(-20, 20)


def _unique_names(rng: random.Random, drawn: list[Record]) -> None:
    """Give every contact a distinct name (middle initials when the pool runs out)."""
    seen: set[str] = set()
    for record in drawn:
        name = record["name"]
        while name in seen:
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            name = f"{first} {last}"
            if name in seen:
                name = f"{first} {chr(ord('A') + rng.randrange(26))}. {last}"
        seen.add(name)
        record["name"] = name


def _numbered_titles(rng: random.Random, drawn: list[Record]) -> None:
    """A title drawn again becomes "<title> (Volume N)"."""
    seen: dict[str, int] = {}
    for record in drawn:
        title = record["title"]
        seen[title] = seen.get(title, 0) + 1
        if seen[title] > 1:
            record["title"] = f"{title} (Volume {seen[title]})"


# --- the record types ---------------------------------------------------------------

USD = "USD"

RECORD_TYPES: dict[str, RecordType] = {
    t.name: t
    for t in (
        RecordType(
            "trips",
            "trip",
            "trip",
            date_field="start_date",
            category="region",
            category_label="region",
            category2="purpose",
            category2_label="purpose",
            measure=Measure("cost", "cost in USD", "float", USD),
            entity="destination",
            entity_label="destination",
            fields=(
                ("destination country region", pick(CITIES)),
                ("nights", whole(1, 14)),
                ("start_date", the_day),
                ("end_date", _trip_end),
                ("purpose", pick(("business", "leisure", "family visit"))),
                ("cost", money(150, 5000)),
                ("rating", whole(1, 5)),
            ),
            layout="start_date end_date destination country region purpose nights cost rating",
            sentence_template=(
                "From {start_date} to {end_date} I took a {purpose} trip to {destination}, {country} ({region}): "
                "{nights} nights, total cost ${cost:.2f}, rated {rating}/5."
            ),
            fact_templates=(
                "User traveled to {destination}, {country} ({region}) from {start_date} to {end_date}.",
                "The {purpose} trip to {destination} starting {start_date} cost ${cost:.2f} for {nights} nights.",
            ),
        ),
        RecordType(
            "contacts",
            "contact",
            "contact",
            date_field="met_date",
            category="relationship",
            category_label="relationship",
            category2="met_through",
            category2_label="met through",
            measure=Measure("age", "age in years", "int", "years"),
            entity="name",
            entity_label="name",
            fields=(
                ("name", person),
                ("relationship", pick(RELATIONSHIPS)),
                ("met_through", pick(MET_THROUGH)),
                ("city", pick(HOME_CITIES)),
                ("met_date", the_day),
                ("age", whole(18, 80)),
            ),
            dedupe=_unique_names,
            sentence_template=(
                "I met {name}, a {relationship} from {city} aged {age}, through {met_through} on {met_date}."
            ),
            fact_templates=(
                "{name} is the user's {relationship}, lives in {city} and is {age} years old.",
                "User met {name} through {met_through} on {met_date}.",
            ),
        ),
        RecordType(
            "meals",
            "meal",
            "meal",
            date_field="date",
            category="cuisine",
            category_label="cuisine",
            category2="meal_type",
            category2_label="meal type",
            measure=Measure("cost", "cost in USD", "float", USD),
            entity="restaurant",
            entity_label="restaurant",
            fields=(
                ("date", the_day),
                ("restaurant cuisine", pick(RESTAURANTS)),
                ("meal_type", pick(MEAL_TYPES)),
                ("city", pick(HOME_CITIES)),
                ("cost", money(6, 160)),
                ("rating", whole(1, 5)),
            ),
            sentence_template=(
                "On {date} I had {meal_type} at {restaurant} ({cuisine}) in {city}; "
                "it cost ${cost:.2f} and I rated it {rating}/5."
            ),
            fact_templates=(
                "User had {meal_type} at {restaurant} ({cuisine}) in {city} on {date}.",
                "The {meal_type} at {restaurant} on {date} cost ${cost:.2f}.",
            ),
        ),
        RecordType(
            "transactions",
            "transaction",
            "txn",
            date_field="date",
            category="category",
            category_label="category",
            category2="payment_method",
            category2_label="payment method",
            measure=Measure("amount", "amount in USD", "float", USD),
            entity="merchant",
            entity_label="merchant",
            fields=(
                ("date", the_day),
                ("merchant category", pick(MERCHANTS)),
                ("payment_method", pick(PAYMENT_METHODS)),
                ("amount", money(2, 800)),
            ),
            sentence_template="On {date} I paid ${amount:.2f} to {merchant} ({category}) by {payment_method}.",
            fact_templates=(
                "User paid {merchant} ${amount:.2f} on {date}.",
                "The {merchant} payment on {date} was a {category} expense paid by {payment_method}.",
            ),
        ),
        RecordType(
            "sleep",
            "sleep record",
            "sleep",
            date_field="date",
            category="quality",
            category_label="sleep quality",
            category2="location",
            category2_label="location",
            measure=Measure("hours", "hours slept", "float", "hours", 1),
            entity="date",
            entity_label="date (YYYY-MM-DD)",
            fields=(
                ("hours", lambda rng, day, drawn: round(rng.uniform(4.0, 10.0), 1)),
                ("quality", _sleep_quality),
                ("date", the_day),
                ("bedtime", _bedtime),
                ("location", pick(SLEEP_LOCATIONS)),
                ("awakenings", whole(0, 5)),
            ),
            layout="date bedtime hours quality location awakenings",
            sentence_template=(
                "On the night of {date} I went to bed at {bedtime} at {location} and slept "
                "{hours:.1f} hours ({quality} quality, {awakenings} awakenings)."
            ),
            fact_templates=(
                "User slept {hours:.1f} hours on the night of {date}.",
                "User's sleep on {date} was {quality} quality, at {location}.",
            ),
            unique_dates=True,
            plural_text="sleep records",
        ),
        RecordType(
            "workouts",
            "workout",
            "workout",
            date_field="date",
            category="activity",
            category_label="activity",
            category2="location",
            category2_label="location",
            measure=Measure("duration_min", "duration in minutes", "int", "minutes"),
            entity="date",
            entity_label="date (YYYY-MM-DD)",
            fields=(
                ("activity", pick(ACTIVITIES)),
                ("duration_min", whole(15, 150)),
                ("date", the_day),
                ("location", pick(WORKOUT_LOCATIONS)),
                ("calories", _calories),
                ("intensity", pick(("low", "moderate", "high"))),
            ),
            layout="date activity location duration_min calories intensity",
            sentence_template=(
                "On {date} I did {duration_min} minutes of {activity} at {location} "
                "({intensity} intensity, {calories} calories)."
            ),
            fact_templates=(
                "User did {activity} at {location} on {date}.",
                "The {activity} workout on {date} lasted {duration_min} minutes and burned {calories} calories.",
            ),
            unique_dates=True,
        ),
        RecordType(
            "books",
            "book",
            "book",
            date_field="finished_date",
            category="genre",
            category_label="genre",
            category2="format",
            category2_label="format",
            measure=Measure("pages", "page count", "int", "pages"),
            entity="title",
            entity_label="title",
            fields=(
                ("title", lambda rng, day, drawn: f"The {rng.choice(TITLE_WORDS_A)} {rng.choice(TITLE_WORDS_B)}"),
                ("author", person),
                ("genre", pick(GENRES)),
                ("format", pick(BOOK_FORMATS)),
                ("finished_date", the_day),
                ("pages", whole(80, 1200)),
                ("rating", whole(1, 5)),
            ),
            dedupe=_numbered_titles,
            sentence_template=(
                'On {finished_date} I finished "{title}" by {author}, a {pages}-page {genre} {format}; '
                "I rated it {rating}/5."
            ),
            fact_templates=(
                'User finished reading "{title}" by {author} on {finished_date}.',
                '"{title}" is a {genre} book with {pages} pages, read as {format}.',
            ),
        ),
        RecordType(
            "medical_visits",
            "medical visit",
            "visit",
            date_field="date",
            category="specialty",
            category_label="specialty",
            category2="visit_type",
            category2_label="visit type",
            measure=Measure("cost", "cost in USD", "float", USD),
            entity="doctor",
            entity_label="doctor",
            fields=(
                ("date", the_day),
                ("doctor specialty", pick(DOCTORS)),
                ("visit_type", pick(VISIT_TYPES)),
                ("clinic_city", pick(HOME_CITIES)),
                ("cost", money(20, 900)),
                ("duration_min", pick((15, 20, 30, 45, 60, 90))),
            ),
            sentence_template=(
                "On {date} I had a {visit_type} with {doctor} ({specialty}) in {clinic_city}; "
                "it took {duration_min} minutes and cost ${cost:.2f}."
            ),
            fact_templates=(
                "User saw {doctor}, a {specialty} doctor, on {date}.",
                "The visit with {doctor} on {date} was a {visit_type} and cost ${cost:.2f}.",
            ),
        ),
        RecordType(
            "meetings",
            "meeting",
            "meeting",
            date_field="date",
            category="topic",
            category_label="topic",
            category2="mode",
            category2_label="mode",
            measure=Measure("duration_min", "duration in minutes", "int", "minutes"),
            entity="with_person",
            entity_label="person",
            fields=(
                ("date", the_day),
                ("with_person", person),
                ("topic", pick(MEETING_TOPICS)),
                ("mode", pick(MEETING_MODES)),
                ("duration_min", lambda rng, day, drawn: rng.randint(3, 36) * 5),
            ),
            sentence_template="On {date} I had a {duration_min}-minute {topic} meeting with {with_person} ({mode}).",
            fact_templates=(
                "User met {with_person} on {date} for a {topic}.",
                "The {topic} with {with_person} on {date} was a {mode} of {duration_min} minutes.",
            ),
        ),
        RecordType(
            "purchases",
            "purchase",
            "purchase",
            date_field="date",
            category="category",
            category_label="category",
            category2="store",
            category2_label="store",
            measure=Measure("price", "price in USD", "float", USD),
            entity="item",
            entity_label="item",
            fields=(
                ("date", the_day),
                ("item category", pick(PRODUCTS)),
                ("store", pick(STORES)),
                ("price", money(3, 1500)),
                ("quantity", whole(1, 4)),
            ),
            sentence_template="On {date} I bought {quantity} x {item} ({category}) at {store} for ${price:.2f}.",
            fact_templates=(
                "User bought {item} at {store} on {date}.",
                "The {item} bought on {date} cost ${price:.2f} ({category}, quantity {quantity}).",
            ),
        ),
    )
}
