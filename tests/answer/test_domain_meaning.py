"""Modular loading finds the domains a question is about by meaning, not only by its words."""

from __future__ import annotations

import pytest

from uac.answer import domain_meaning
from uac.answer.state_view import DomainView, build_state_channel, named_things, select_domains

#: the timeline class every offline domain holds (its words tell no domain apart)
EVENT = '''

@dataclass(frozen=True)
class Event:
    """One event or statement from the conversations: when it happened apart from when it was said."""

    text: str
    session_id: str
    actor: str | None = None
    sources: list[str] = field(default_factory=list)
'''


def offline_domain(name: str, record: str, doc: str, fields: list[str], collection: str) -> DomainView:
    body = "".join(f"    {f}: str | None = None\n" for f in fields)
    schema = (
        f'"""The {name} domain: what the conversations say, as records and a timeline."""\n\n'
        "from dataclasses import dataclass, field\n\n\n"
        f'@dataclass(frozen=True)\nclass {record}:\n    """{doc}"""\n\n{body}' + EVENT
    )
    state = f"{collection}: list[{record}] = []\nevents: list[Event] = []\n"
    summary = f"The {name} domain: what the conversations say. {collection} (0 × {record}), events (0 × Event)"
    return DomainView(name, summary, schema, state)


def offline_views() -> list[DomainView]:
    return [
        offline_domain("finance", "Purchase", "A purchase: the item, its amount.", ["item", "amount"], "purchases"),
        offline_domain("food", "Meal", "A meal: where and what.", ["place", "dish"], "meals"),
        offline_domain("health", "Workout", "A workout: activity, km.", ["activity", "distance_km"], "workouts"),
        offline_domain("hobbies", "Book", "A book: title and author.", ["title", "author"], "books"),
        offline_domain("travel", "Trip", "A trip: destination, dates.", ["destination", "start"], "trips"),
        offline_domain("work", "Job", "A job: employer and role.", ["employer", "role"], "jobs"),
    ]


@pytest.mark.parametrize(
    "question, domain",
    [
        ("How many things did I buy?", "finance"),
        ("How much have I spent this year?", "finance"),
        ("Where did I eat last week?", "food"),
        ("how far did I run", "health"),
        ("What am I reading?", "hobbies"),
        ("Where did I go on holiday?", "travel"),
        ("Who is my employer these days?", "work"),
    ],
)
def test_a_word_of_the_same_family_finds_the_domain(question, domain):
    chosen = select_domains(question, offline_views(), meaning=False)
    assert chosen and chosen[0].name == domain


def test_the_words_every_domain_holds_choose_no_domain():
    # "event", "statement", "actor", "session" are in every offline domain's timeline class
    assert select_domains("Which statement did the actor make in that session?", offline_views(), meaning=False) == []


def test_a_month_or_a_day_is_not_a_name():
    assert named_things("Did I buy anything pricey in March, or on Friday?") == []
    assert named_things("Did I eat at Pho Hoa in May?") == ["pho hoa"]


def model_style_views() -> list[DomainView]:
    def domain(name: str, doc: str, record: str, fields: list[str], collection: str) -> DomainView:
        body = "".join(f"    {f}: str\n" for f in fields)
        schema = (
            f'"""{doc}"""\n\nfrom dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass {record}:\n{body}'
        )
        return DomainView(name, f"{doc} {collection} (2 × {record})", schema, f"{collection}: list[{record}] = []\n")

    return [
        domain("finance", "Money Sam spent, with the shop.", "Expense", ["what", "amount", "shop"], "expenses"),
        domain("health", "Sam's training log: runs.", "Run", ["route", "distance_km", "minutes"], "runs"),
        domain("pets", "Animals Sam looks after.", "Pet", ["name", "species"], "pets"),
        domain("travel", "Journeys away from home.", "Trip", ["destination", "start"], "trips"),
    ]


@pytest.mark.embeddings
def test_a_question_whose_words_no_domain_holds_finds_it_by_meaning():
    question = "How is my fitness going?"  # no word of it in any domain, nor in a family
    views = model_style_views()
    assert select_domains(question, views, meaning=False) == []
    assert [v.name for v in select_domains(question, views)][:1] == ["health"]


@pytest.mark.embeddings
def test_a_question_about_nothing_held_still_matches_nothing():
    assert select_domains("What is the name of my cat's vet?", model_style_views()[:2]) == []


@pytest.mark.embeddings
def test_the_domain_vectors_are_kept_per_view_so_a_question_costs_one_embedding(tmp_path, monkeypatch):
    from uac.index.embeddings import get_embedder

    (tmp_path / ".uac").mkdir()
    views = model_style_views()
    domain_meaning.forget_cached()
    select_domains("How is my fitness going?", views, root=tmp_path)
    assert domain_meaning.cache_path(tmp_path).is_file()
    domain_meaning.forget_cached()  # as a new process: the vectors come from the project
    embedder = get_embedder()
    encoded: list[int] = []
    real = embedder.encode
    monkeypatch.setattr(embedder, "encode", lambda texts: encoded.append(len(texts)) or real(texts))
    assert select_domains("How is my fitness going?", views, root=tmp_path)[0].name == "health"
    assert encoded == [1]  # the question alone
    trips = views[3]
    changed = views[:3] + [DomainView("travel", trips.summary, trips.schema_text.replace("Journeys", "Trips"), "")]
    encoded.clear()
    select_domains("How is my fitness going?", changed, root=tmp_path)
    assert encoded == [1, 1]  # the changed domain, then the question


def test_without_the_embedding_model_the_words_still_choose(monkeypatch):
    from uac.errors import StoreError

    def refuse(*args, **kwargs):
        raise StoreError("the embedding model cannot be loaded: gone.")

    monkeypatch.setattr("uac.index.embeddings.get_embedder", refuse)
    domain_meaning.forget_cached()
    assert [v.name for v in select_domains("How many things did I buy?", offline_views())][:1] == ["finance"]


@pytest.mark.embeddings
def test_modular_state_shows_the_purchases_for_a_question_about_buying(tmp_path):
    from .test_state_view import make_project

    views = {v.name: (v.schema_text, v.state_text, v.summary) for v in offline_views()}
    root = make_project(tmp_path / "p", views)
    channel = build_state_channel(root, "How many things did I buy?", loading="modular", budget=1500)
    assert channel.domains[:1] == ["finance"] and "class Purchase" in channel.text
