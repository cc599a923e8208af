"""The STATE channel: domain selection, truncation, as-of filtering, rendering."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from uac.answer.state_view import (
    build_state_channel,
    filter_state_as_of,
    manifest_summaries,
    render_state_module,
    select_domains,
    truncate,
    words,
)

SCHEMA_TRAVEL = """from dataclasses import dataclass, field
from datetime import date


@dataclass
class Trip:
    destination: str
    departure_date: date
    cost_eur: float
    sources: list[str] = field(default_factory=list)
"""
STATE_TRAVEL = """from datetime import date

from .schema import Trip

trips: list[Trip] = [
    Trip(destination="Lisbon", departure_date=date(2024, 3, 10), cost_eur=820.0, sources=["F1"]),
]
"""
SCHEMA_FOOD = """from dataclasses import dataclass


@dataclass
class Meal:
    restaurant: str
    cuisine: str
    spend: float
"""
STATE_FOOD = """from .schema import Meal

meals: list[Meal] = [Meal(restaurant="Casa", cuisine="Thai", spend=20.5)]
"""


def make_project(root, domains):
    (root / "domains").mkdir(parents=True)
    lines = ["# User project: Test", "", "## Domains"]
    for name, (schema, state, summary) in domains.items():
        folder = root / "domains" / name
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        (folder / "schema.py").write_text(schema)
        (folder / "state.py").write_text(state)
        lines.append(f"- `{name}`: {summary}")
    (root / "MANIFEST.md").write_text("\n".join(lines) + "\n")
    return root


def two_domains(tmp_path):
    return make_project(
        tmp_path,
        {
            "travel": (SCHEMA_TRAVEL, STATE_TRAVEL, "trips with destinations and costs (1 record)"),
            "food": (SCHEMA_FOOD, STATE_FOOD, "restaurant meals and spending (1 record)"),
        },
    )


def test_words_fold_plurals_and_split_identifiers():
    assert {"trip", "departure", "date"} <= words("How many trips? departure_date DepartureDate")
    assert "how" not in words("how many")
    assert "city" in words("cities")


def test_manifest_summaries_parse_lines():
    text = "# x\n- `travel`: trips (3 records)\n- food: meals\n"
    assert manifest_summaries(text) == {"travel": "trips (3 records)", "food": "meals"}


def test_modular_loading_picks_the_relevant_domain(tmp_path):
    root = two_domains(tmp_path)
    channel = build_state_channel(root, "How many trips did I take in 2024?", loading="modular", budget=6000)
    assert channel.domains == ["travel"]
    assert "class Trip" in channel.text and "class Meal" not in channel.text
    channel = build_state_channel(
        root, "What cuisine did I spend most on at restaurants?", loading="modular", budget=6000
    )
    assert channel.domains == ["food"]


def test_monolithic_and_manifest_modes(tmp_path):
    root = two_domains(tmp_path)
    mono = build_state_channel(root, "anything", loading="monolithic", budget=6000)
    assert mono.domains == ["food", "travel"] and "class Meal" in mono.text and "class Trip" in mono.text
    manifest = build_state_channel(root, "How many trips?", loading="manifest", budget=6000)
    assert manifest.domains == [] and "travel: trips" in manifest.text and "class Trip" not in manifest.text
    assert manifest.chars < mono.chars


def test_modular_without_a_match_shows_all_if_it_fits_else_the_manifest(tmp_path):
    root = two_domains(tmp_path)
    channel = build_state_channel(root, "What is the name of my cat?", loading="modular", budget=6000)
    assert channel.domains == ["food", "travel"]
    channel = build_state_channel(root, "What is the name of my cat?", loading="modular", budget=300)
    assert channel.domains == [] and "MANIFEST" in channel.text and "food:" in channel.text


def test_budget_truncates_with_a_marker(tmp_path):
    root = two_domains(tmp_path)
    channel = build_state_channel(root, "x", loading="monolithic", budget=200)
    assert channel.truncated and "STATE truncated" in channel.text
    assert channel.text.index("STATE truncated") <= 201
    text, cut = truncate("short", 100)
    assert (text, cut) == ("short", False)


def test_select_domains_orders_by_overlap():
    from uac.answer.state_view import DomainView

    views = [
        DomainView("food", "meals", SCHEMA_FOOD, STATE_FOOD),
        DomainView("travel", "trips", SCHEMA_TRAVEL, STATE_TRAVEL),
    ]
    chosen = select_domains("trips and their cost, and meals", views)
    assert [v.name for v in chosen] == ["travel", "food"]


@dataclass(frozen=True)
class Visit:
    place: str
    day: dt.date
    sources: list[str] = field(default_factory=list)


def test_filter_state_as_of_drops_later_records():
    state = {
        "health": {
            "visits": [Visit("clinic", dt.date(2024, 1, 5)), Visit("dentist", dt.date(2024, 6, 1))],
            "owner": "Ann",
        }
    }
    filtered, excluded = filter_state_as_of(state, dt.date(2024, 3, 1))
    assert [v.place for v in filtered["health"]["visits"]] == ["clinic"]
    assert filtered["health"]["owner"] == "Ann"
    assert excluded == {"health": 1}
    same, none = filter_state_as_of(state, dt.date(2030, 1, 1))
    assert len(same["health"]["visits"]) == 2 and none == {}


def test_as_of_keeps_records_by_when_their_facts_were_said():
    said = {"f1": dt.date(2024, 2, 1), "f2": dt.date(2024, 5, 1)}.get
    plan = Visit("dentist", dt.date(2024, 6, 1), ["f1"])  # said in February, happens in June
    told_later = Visit("clinic", dt.date(2024, 1, 5), ["f2"])  # happened in January, said in May
    imported = Visit("spa", dt.date(2024, 4, 1))  # cites no fact: by its own date
    state = {"health": {"visits": [plan, told_later, imported]}}
    filtered, excluded = filter_state_as_of(state, dt.date(2024, 3, 1), said)
    assert [v.place for v in filtered["health"]["visits"]] == ["dentist"]
    assert excluded == {"health": 2}
    filtered, _ = filter_state_as_of(state, dt.date(2024, 4, 2), said)
    assert [v.place for v in filtered["health"]["visits"]] == ["dentist", "spa"]


def test_render_state_module_is_python_with_date_calls():
    text = render_state_module({"visits": (Visit("clinic", dt.date(2024, 1, 5), ["F1"]),), "owner": "Ann"})
    assert text == 'visits = [Visit(place="clinic", day=date(2024, 1, 5), sources=["F1"])]\nowner = "Ann"\n'


def test_as_of_rerenders_only_affected_domains(tmp_path):
    root = two_domains(tmp_path)
    state = {"travel": {"trips": []}, "food": {}}
    channel = build_state_channel(
        root, "trips", loading="monolithic", budget=6000, as_of_state=state, excluded={"travel": 1}
    )
    assert "trips = []" in channel.text and "Lisbon" not in channel.text
    assert 'Meal(restaurant="Casa"' in channel.text
    assert channel.records_excluded_as_of == 1


def test_a_question_in_the_past_tense_meets_its_domain_first():
    from uac.answer.state_view import DomainView, words

    assert {"travel", "plan", "shop", "study", "cook"} <= words("travelled planned shopping studied cooked")
    assert {"need", "speed"} <= words("need speed")
    places = "@dataclass(frozen=True)\nclass Place:\n    name: str\n    visited_with: str | None = None\n"
    views = [
        DomainView("general", "places and people", places, 'places: list[Place] = [Place(name="Leeds")]\n'),
        DomainView("travel", "trips", SCHEMA_TRAVEL, STATE_TRAVEL),
    ]
    assert select_domains("Which places have I travelled to?", views)[0].name == "travel"


def test_a_name_the_records_hold_brings_their_domain_first():
    from uac.answer.state_view import DomainView, named_things

    assert named_things("How many times have I eaten at Pho Hoa with Tom?") == ["pho hoa", "tom"]
    health = "@dataclass(frozen=True)\nclass Run:\n    minutes: int\n    times: int | None = None\n"
    views = [
        DomainView("health", "runs", health, "runs: list[Run] = [Run(minutes=30, times=2)]\n"),
        DomainView(
            "food",
            "meals",
            SCHEMA_FOOD,
            STATE_FOOD.replace("]", ', Meal(restaurant="Pho Hoa", cuisine="Vietnamese", spend=31.0)]', 1),
        ),
    ]
    assert select_domains("How many times have I eaten at Pho Hoa?", views)[0].name == "food"


def test_the_described_manifest_says_each_description_once():
    from uac.answer.state_view import DomainView, described_manifest

    doc = (
        "Thandi's travel: trips taken, planned or wished for (e.g. home to PE 6-13 July 2024). "
        "Also what Thandi thinks of places, with what to do there."
    )
    schema = f'"""{doc}"""\n\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Trip:\n    destination: str\n'
    summary = f"{doc[:100].rstrip('.')}. trips (2 × Trip)"  # the manifest line: the doc's first 100 characters, then the collections
    text = described_manifest([DomainView("travel", summary, schema, "")])
    assert text.count("trips taken, planned") == 1 and text.count(doc) == 1
    assert "- travel: trips (2 × Trip)\n" in text and "classes: Trip(destination)" in text
    bare = described_manifest([DomainView("food", "meals (3 × Meal)", '"""Meals."""\n', "")])
    assert "- food: meals (3 × Meal)\n  Meals." in bare
