"""The ten record types of the analytical benchmark.

Each :class:`RecordType` knows how to draw realistic records with a seeded
``random.Random`` (never the global one), which fields the question patterns
use (date, two categories, a numeric measure, a naming entity), and how to
render a record as one sentence (top-k retrieval) or as flat facts (fact
memory).  Records are plain dicts with ISO date strings, ordered by date, with
ids ``<prefix>-<00001>`` in that order.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Record = dict[str, Any]

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
    draw: Callable[[random.Random, dt.date], Record]
    sentence: Callable[[Record], str]
    facts: Callable[[Record], list[str]]
    unique_dates: bool = False
    plural_text: str = ""

    @property
    def plural(self) -> str:
        return self.plural_text or self.name.replace("_", " ")

    def generate(self, rng: random.Random, n: int) -> list[Record]:
        """``n`` records, ordered by date, with ids in that order."""
        first = start_date(n)
        days = date_range_days(n)
        if self.unique_dates:
            offsets = sorted(rng.sample(range(days), n))
        else:
            offsets = sorted(rng.randrange(days) for _ in range(n))
        drawn = [self.draw(rng, first + dt.timedelta(days=offset)) for offset in offsets]
        self._make_unique(rng, drawn)
        records = []
        for index, body in enumerate(drawn, 1):
            records.append({"id": f"{self.id_prefix}-{index:05d}", **body})
        return records

    def _make_unique(self, rng: random.Random, drawn: list[Record]) -> None:
        if self.name == "contacts":
            _unique_names(rng, drawn)
        elif self.name == "books":
            seen: dict[str, int] = {}
            for record in drawn:
                title = record["title"]
                seen[title] = seen.get(title, 0) + 1
                if seen[title] > 1:
                    record["title"] = f"{title} (Volume {seen[title]})"

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
    ("Paris", "France", "Europe"), ("Lisbon", "Portugal", "Europe"), ("Berlin", "Germany", "Europe"),
    ("Rome", "Italy", "Europe"), ("Madrid", "Spain", "Europe"), ("Vienna", "Austria", "Europe"),
    ("Tokyo", "Japan", "Asia"), ("Seoul", "South Korea", "Asia"), ("Bangkok", "Thailand", "Asia"),
    ("Singapore", "Singapore", "Asia"), ("Hanoi", "Vietnam", "Asia"), ("New York", "USA", "North America"),
    ("Chicago", "USA", "North America"), ("Toronto", "Canada", "North America"),
    ("Mexico City", "Mexico", "North America"), ("Lima", "Peru", "South America"),
    ("Buenos Aires", "Argentina", "South America"), ("Bogota", "Colombia", "South America"),
    ("Cape Town", "South Africa", "Africa"), ("Nairobi", "Kenya", "Africa"), ("Marrakesh", "Morocco", "Africa"),
    ("Sydney", "Australia", "Oceania"), ("Auckland", "New Zealand", "Oceania"),
)
HOME_CITIES = ("Boston", "Seattle", "Austin", "Denver", "Portland", "Chicago")

RESTAURANTS = (
    ("Trattoria Nonna", "Italian"), ("Pasta Fresca", "Italian"), ("Luigi's", "Italian"),
    ("Sakura Sushi", "Japanese"), ("Ramen Ichiban", "Japanese"), ("Izakaya Kaze", "Japanese"),
    ("Taqueria El Sol", "Mexican"), ("Casa Verde", "Mexican"), ("Golden Dragon", "Chinese"),
    ("Dumpling House", "Chinese"), ("Spice Route", "Indian"), ("Tandoori Nights", "Indian"),
    ("Le Petit Bistro", "French"), ("Cafe Lumiere", "French"), ("Bangkok Garden", "Thai"),
    ("Lemongrass", "Thai"), ("The Greek Table", "Greek"), ("Olive & Feta", "Greek"),
    ("Burger Barn", "American"), ("Smokehouse 88", "American"), ("Seoul Kitchen", "Korean"),
    ("Pho Saigon", "Vietnamese"),
)
MEAL_TYPES = ("breakfast", "lunch", "dinner")

MERCHANTS = (
    ("Whole Foods", "groceries"), ("Trader Joe's", "groceries"), ("Safeway", "groceries"),
    ("Chipotle", "dining"), ("Starbucks", "dining"), ("Olive Garden", "dining"),
    ("Uber", "transport"), ("Shell", "transport"), ("Metro Transit", "transport"),
    ("City Power", "utilities"), ("Comcast", "utilities"), ("Water Works", "utilities"),
    ("Netflix", "entertainment"), ("AMC Theatres", "entertainment"), ("Spotify", "entertainment"),
    ("CVS Pharmacy", "health"), ("Walgreens", "health"), ("Macy's", "shopping"),
    ("Best Buy", "shopping"), ("Delta Air Lines", "travel"), ("Marriott", "travel"),
)
PAYMENT_METHODS = ("credit card", "debit card", "cash", "bank transfer")

SLEEP_QUALITY = ("poor", "fair", "good", "excellent")
SLEEP_LOCATIONS = ("home", "hotel", "friend's place")

ACTIVITIES = ("running", "cycling", "swimming", "yoga", "strength training", "hiking", "rowing")
WORKOUT_LOCATIONS = ("gym", "outdoors", "home", "community pool")
CALORIES_PER_MINUTE = {
    "running": 11, "cycling": 9, "swimming": 10, "yoga": 4, "strength training": 7, "hiking": 8, "rowing": 9,
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
    ("Dr. Amina Osei", "general practice"), ("Dr. Paul Weber", "general practice"),
    ("Dr. Lena Fischer", "dentistry"), ("Dr. Raj Mehta", "dentistry"), ("Dr. Sara Lind", "dermatology"),
    ("Dr. Tom Becker", "cardiology"), ("Dr. Mei Lin", "ophthalmology"), ("Dr. Jorge Ruiz", "orthopedics"),
    ("Dr. Nora Haddad", "physiotherapy"), ("Dr. Ken Ito", "physiotherapy"), ("Dr. Eva Novak", "dermatology"),
)
VISIT_TYPES = ("checkup", "follow-up", "urgent care", "consultation")

MEETING_TOPICS = ("project review", "planning", "one-on-one", "client call", "interview", "brainstorm", "budget review")
MEETING_MODES = ("in person", "video call", "phone call")

PRODUCTS = (
    ("wireless headphones", "electronics"), ("laptop stand", "electronics"), ("smartwatch", "electronics"),
    ("phone charger", "electronics"), ("rain jacket", "clothing"), ("running shoes", "clothing"),
    ("wool sweater", "clothing"), ("desk lamp", "home"), ("coffee maker", "home"), ("bath towels", "home"),
    ("cookbook", "books"), ("travel guide", "books"), ("yoga mat", "sports"), ("tennis racket", "sports"),
    ("face cream", "beauty"), ("shampoo", "beauty"), ("board game", "toys"), ("puzzle", "toys"),
)
STORES = ("Amazon", "Target", "IKEA", "Costco", "REI", "Walmart")

RELATIONSHIPS = ("friend", "colleague", "family", "classmate", "neighbor", "mentor")
MET_THROUGH = ("undergrad", "work", "gym", "conference", "neighborhood", "online")


def _money(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 2)


def _iso(day: dt.date) -> str:
    return day.isoformat()


# --- trips ----------------------------------------------------------------------


def _draw_trip(rng: random.Random, day: dt.date) -> Record:
    city, country, region = rng.choice(CITIES)
    nights = rng.randint(1, 14)
    return {
        "start_date": _iso(day),
        "end_date": _iso(day + dt.timedelta(days=nights)),
        "destination": city,
        "country": country,
        "region": region,
        "purpose": rng.choice(("business", "leisure", "family visit")),
        "nights": nights,
        "cost": _money(rng, 150, 5000),
        "rating": rng.randint(1, 5),
    }


def _trip_sentence(r: Record) -> str:
    return (
        f"From {r['start_date']} to {r['end_date']} I took a {r['purpose']} trip to {r['destination']}, "
        f"{r['country']} ({r['region']}): {r['nights']} nights, total cost ${r['cost']:.2f}, rated {r['rating']}/5."
    )


def _trip_facts(r: Record) -> list[str]:
    return [
        f"User traveled to {r['destination']}, {r['country']} ({r['region']}) from {r['start_date']} to {r['end_date']}.",
        f"The {r['purpose']} trip to {r['destination']} starting {r['start_date']} cost ${r['cost']:.2f} "
        f"for {r['nights']} nights.",
    ]


# --- contacts -------------------------------------------------------------------


def _draw_contact(rng: random.Random, day: dt.date) -> Record:
    return {
        "name": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        "relationship": rng.choice(RELATIONSHIPS),
        "met_through": rng.choice(MET_THROUGH),
        "city": rng.choice(HOME_CITIES),
        "met_date": _iso(day),
        "age": rng.randint(18, 80),
    }


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


def _contact_sentence(r: Record) -> str:
    return (
        f"I met {r['name']}, a {r['relationship']} from {r['city']} aged {r['age']}, through "
        f"{r['met_through']} on {r['met_date']}."
    )


def _contact_facts(r: Record) -> list[str]:
    return [
        f"{r['name']} is the user's {r['relationship']}, lives in {r['city']} and is {r['age']} years old.",
        f"User met {r['name']} through {r['met_through']} on {r['met_date']}.",
    ]


# --- meals ------------------------------------------------------------------------


def _draw_meal(rng: random.Random, day: dt.date) -> Record:
    restaurant, cuisine = rng.choice(RESTAURANTS)
    return {
        "date": _iso(day),
        "restaurant": restaurant,
        "cuisine": cuisine,
        "meal_type": rng.choice(MEAL_TYPES),
        "city": rng.choice(HOME_CITIES),
        "cost": _money(rng, 6, 160),
        "rating": rng.randint(1, 5),
    }


def _meal_sentence(r: Record) -> str:
    return (
        f"On {r['date']} I had {r['meal_type']} at {r['restaurant']} ({r['cuisine']}) in {r['city']}; "
        f"it cost ${r['cost']:.2f} and I rated it {r['rating']}/5."
    )


def _meal_facts(r: Record) -> list[str]:
    return [
        f"User had {r['meal_type']} at {r['restaurant']} ({r['cuisine']}) in {r['city']} on {r['date']}.",
        f"The {r['meal_type']} at {r['restaurant']} on {r['date']} cost ${r['cost']:.2f}.",
    ]


# --- transactions -----------------------------------------------------------------


def _draw_transaction(rng: random.Random, day: dt.date) -> Record:
    merchant, category = rng.choice(MERCHANTS)
    return {
        "date": _iso(day),
        "merchant": merchant,
        "category": category,
        "payment_method": rng.choice(PAYMENT_METHODS),
        "amount": _money(rng, 2, 800),
    }


def _transaction_sentence(r: Record) -> str:
    return (
        f"On {r['date']} I paid ${r['amount']:.2f} to {r['merchant']} ({r['category']}) by {r['payment_method']}."
    )


def _transaction_facts(r: Record) -> list[str]:
    return [
        f"User paid {r['merchant']} ${r['amount']:.2f} on {r['date']}.",
        f"The {r['merchant']} payment on {r['date']} was a {r['category']} expense paid by {r['payment_method']}.",
    ]


# --- sleep ------------------------------------------------------------------------


def _draw_sleep(rng: random.Random, day: dt.date) -> Record:
    hours = round(rng.uniform(4.0, 10.0), 1)
    quality = SLEEP_QUALITY[min(3, max(0, int((hours - 4.0) / 1.6) + rng.choice((-1, 0, 0, 1))))]
    return {
        "date": _iso(day),
        "bedtime": f"{rng.choice((21, 22, 23, 0, 1)):02d}:{rng.choice((0, 15, 30, 45)):02d}",
        "hours": hours,
        "quality": quality,
        "location": rng.choice(SLEEP_LOCATIONS),
        "awakenings": rng.randint(0, 5),
    }


def _sleep_sentence(r: Record) -> str:
    return (
        f"On the night of {r['date']} I went to bed at {r['bedtime']} at {r['location']} and slept "
        f"{r['hours']:.1f} hours ({r['quality']} quality, {r['awakenings']} awakenings)."
    )


def _sleep_facts(r: Record) -> list[str]:
    return [
        f"User slept {r['hours']:.1f} hours on the night of {r['date']}.",
        f"User's sleep on {r['date']} was {r['quality']} quality, at {r['location']}.",
    ]


# --- workouts -----------------------------------------------------------------------


def _draw_workout(rng: random.Random, day: dt.date) -> Record:
    activity = rng.choice(ACTIVITIES)
    minutes = rng.randint(15, 150)
    return {
        "date": _iso(day),
        "activity": activity,
        "location": rng.choice(WORKOUT_LOCATIONS),
        "duration_min": minutes,
        "calories": minutes * CALORIES_PER_MINUTE[activity] + rng.randint(-20, 20),
        "intensity": rng.choice(("low", "moderate", "high")),
    }


def _workout_sentence(r: Record) -> str:
    return (
        f"On {r['date']} I did {r['duration_min']} minutes of {r['activity']} at {r['location']} "
        f"({r['intensity']} intensity, {r['calories']} calories)."
    )


def _workout_facts(r: Record) -> list[str]:
    return [
        f"User did {r['activity']} at {r['location']} on {r['date']}.",
        f"The {r['activity']} workout on {r['date']} lasted {r['duration_min']} minutes and burned {r['calories']} calories.",
    ]


# --- books --------------------------------------------------------------------------


def _draw_book(rng: random.Random, day: dt.date) -> Record:
    return {
        "title": f"The {rng.choice(TITLE_WORDS_A)} {rng.choice(TITLE_WORDS_B)}",
        "author": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        "genre": rng.choice(GENRES),
        "format": rng.choice(BOOK_FORMATS),
        "finished_date": _iso(day),
        "pages": rng.randint(80, 1200),
        "rating": rng.randint(1, 5),
    }


def _book_sentence(r: Record) -> str:
    return (
        f"On {r['finished_date']} I finished \"{r['title']}\" by {r['author']}, a {r['pages']}-page {r['genre']} "
        f"{r['format']}; I rated it {r['rating']}/5."
    )


def _book_facts(r: Record) -> list[str]:
    return [
        f"User finished reading \"{r['title']}\" by {r['author']} on {r['finished_date']}.",
        f"\"{r['title']}\" is a {r['genre']} book with {r['pages']} pages, read as {r['format']}.",
    ]


# --- medical visits -------------------------------------------------------------------


def _draw_visit(rng: random.Random, day: dt.date) -> Record:
    doctor, specialty = rng.choice(DOCTORS)
    return {
        "date": _iso(day),
        "doctor": doctor,
        "specialty": specialty,
        "visit_type": rng.choice(VISIT_TYPES),
        "clinic_city": rng.choice(HOME_CITIES),
        "cost": _money(rng, 20, 900),
        "duration_min": rng.choice((15, 20, 30, 45, 60, 90)),
    }


def _visit_sentence(r: Record) -> str:
    return (
        f"On {r['date']} I had a {r['visit_type']} with {r['doctor']} ({r['specialty']}) in {r['clinic_city']}; "
        f"it took {r['duration_min']} minutes and cost ${r['cost']:.2f}."
    )


def _visit_facts(r: Record) -> list[str]:
    return [
        f"User saw {r['doctor']}, a {r['specialty']} doctor, on {r['date']}.",
        f"The visit with {r['doctor']} on {r['date']} was a {r['visit_type']} and cost ${r['cost']:.2f}.",
    ]


# --- meetings ----------------------------------------------------------------------------


def _draw_meeting(rng: random.Random, day: dt.date) -> Record:
    return {
        "date": _iso(day),
        "with_person": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        "topic": rng.choice(MEETING_TOPICS),
        "mode": rng.choice(MEETING_MODES),
        "duration_min": rng.randint(3, 36) * 5,
    }


def _meeting_sentence(r: Record) -> str:
    return (
        f"On {r['date']} I had a {r['duration_min']}-minute {r['topic']} meeting with {r['with_person']} "
        f"({r['mode']})."
    )


def _meeting_facts(r: Record) -> list[str]:
    return [
        f"User met {r['with_person']} on {r['date']} for a {r['topic']}.",
        f"The {r['topic']} with {r['with_person']} on {r['date']} was a {r['mode']} of {r['duration_min']} minutes.",
    ]


# --- purchases -----------------------------------------------------------------------------


def _draw_purchase(rng: random.Random, day: dt.date) -> Record:
    item, category = rng.choice(PRODUCTS)
    return {
        "date": _iso(day),
        "item": item,
        "category": category,
        "store": rng.choice(STORES),
        "price": _money(rng, 3, 1500),
        "quantity": rng.randint(1, 4),
    }


def _purchase_sentence(r: Record) -> str:
    return (
        f"On {r['date']} I bought {r['quantity']} x {r['item']} ({r['category']}) at {r['store']} for "
        f"${r['price']:.2f}."
    )


def _purchase_facts(r: Record) -> list[str]:
    return [
        f"User bought {r['item']} at {r['store']} on {r['date']}.",
        f"The {r['item']} bought on {r['date']} cost ${r['price']:.2f} ({r['category']}, quantity {r['quantity']}).",
    ]


RECORD_TYPES: dict[str, RecordType] = {
    t.name: t
    for t in (
        RecordType(
            "trips", "trip", "trip", "start_date", "region", "region", "purpose", "purpose",
            Measure("cost", "cost in USD", "float", "USD"), "destination", "destination",
            _draw_trip, _trip_sentence, _trip_facts,
        ),
        RecordType(
            "contacts", "contact", "contact", "met_date", "relationship", "relationship", "met_through",
            "met through", Measure("age", "age in years", "int", "years"), "name", "name",
            _draw_contact, _contact_sentence, _contact_facts,
        ),
        RecordType(
            "meals", "meal", "meal", "date", "cuisine", "cuisine", "meal_type", "meal type",
            Measure("cost", "cost in USD", "float", "USD"), "restaurant", "restaurant",
            _draw_meal, _meal_sentence, _meal_facts,
        ),
        RecordType(
            "transactions", "transaction", "txn", "date", "category", "category", "payment_method",
            "payment method", Measure("amount", "amount in USD", "float", "USD"), "merchant", "merchant",
            _draw_transaction, _transaction_sentence, _transaction_facts,
        ),
        RecordType(
            "sleep", "sleep record", "sleep", "date", "quality", "sleep quality", "location", "location",
            Measure("hours", "hours slept", "float", "hours", 1), "date", "date (YYYY-MM-DD)",
            _draw_sleep, _sleep_sentence, _sleep_facts, unique_dates=True, plural_text="sleep records",
        ),
        RecordType(
            "workouts", "workout", "workout", "date", "activity", "activity", "location", "location",
            Measure("duration_min", "duration in minutes", "int", "minutes"), "date", "date (YYYY-MM-DD)",
            _draw_workout, _workout_sentence, _workout_facts, unique_dates=True,
        ),
        RecordType(
            "books", "book", "book", "finished_date", "genre", "genre", "format", "format",
            Measure("pages", "page count", "int", "pages"), "title", "title",
            _draw_book, _book_sentence, _book_facts,
        ),
        RecordType(
            "medical_visits", "medical visit", "visit", "date", "specialty", "specialty", "visit_type",
            "visit type", Measure("cost", "cost in USD", "float", "USD"), "doctor", "doctor",
            _draw_visit, _visit_sentence, _visit_facts,
        ),
        RecordType(
            "meetings", "meeting", "meeting", "date", "topic", "topic", "mode", "mode",
            Measure("duration_min", "duration in minutes", "int", "minutes"), "with_person", "person",
            _draw_meeting, _meeting_sentence, _meeting_facts,
        ),
        RecordType(
            "purchases", "purchase", "purchase", "date", "category", "category", "store", "store",
            Measure("price", "price in USD", "float", "USD"), "item", "item",
            _draw_purchase, _purchase_sentence, _purchase_facts,
        ),
    )
}
