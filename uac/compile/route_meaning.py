"""Routing facts to life domains by meaning, with the bundled embedding model.

Each domain is described by a few short sentences (:data:`DESCRIPTIONS`);
``general`` has descriptions too (small talk, replies that say nothing about a
life).  A fact's vector is compared (cosine) with every description; a
domain's similarity is that of its closest description.  Then:

* a ``meta["domain"]``/``meta["topic"]`` hint naming a known domain wins
  (counted as routed by keywords, like every keyword decision);
* best similarity under :data:`THRESHOLD`: ``general`` -- the model sees
  nothing in the fact that it can place;
* the best two domains within :data:`MARGIN` of each other and the keyword
  classifier (:func:`uac.compile.routing.classify`) naming one of them: the
  keywords break the tie;
* else the best domain.

Both numbers were measured on the labelled sentences in the tests (see
``docs/structure.md``).  The vectors are the ones the search index already
holds for the facts (:func:`stored_vectors`); only facts the index lacks are
embedded.  Everything here is deterministic: the same facts and vectors give
the same routes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Mapping

from .routing import DEFAULT_DOMAIN, DOMAINS, Routing, classify

if TYPE_CHECKING:
    import numpy

    from ..facts.model import Fact
    from ..index.embeddings import Embedder
    from ..project import Project

log = logging.getLogger(__name__)

#: domain -> short descriptions of what belongs there (every domain of ``routing.DOMAINS``)
DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    "travel": (
        "Travel: a trip to another city or country, a vacation or holiday abroad.",
        "Flew somewhere, got back from a city, stayed a few nights in a hotel.",
        "Visiting a place, sightseeing, flights, trains, airports and passports.",
    ),
    "food": (
        "Food: a meal at a restaurant, dinner or lunch out with someone.",
        "Cooking at home, a recipe, baking, a dish someone made.",
        "Eating and drinking: ramen, sushi, tacos, pizza, coffee, favourite foods and tastes.",
    ),
    "health": (
        "Health: illness, an injury, pain, a doctor, hospital, vaccines or medication.",
        "Exercise and fitness: the gym, running, training for a race or a marathon, yoga, sleep and diet.",
        "Mental health: stress, anxiety, therapy.",
    ),
    "work": (
        "Work: a job, an employer, a role, colleagues, a manager and the office.",
        "Career changes: a new job, leaving a company, a promotion, an interview.",
        "Projects at work: meetings, clients, deadlines, releases and presentations.",
        "Studies: school, university, a degree, a course, exams and a thesis.",
    ),
    "relationships": (
        "Relationships: family, a partner, friends, parents, siblings and children.",
        "A wedding, a birthday, a breakup, getting married, a new baby.",
        "Arguments, support and news about the people in someone's life.",
    ),
    "hobbies": (
        "Hobbies: music, playing an instrument, reading books and novels, board games.",
        "Free time: films, series, concerts, sports, climbing, gardening, photography, crafts.",
        "Pets: adopting a dog or a cat, its name and breed.",
    ),
    "finance": (
        "Money: spending, paying, buying something, prices and bills.",
        "Finances: rent, savings, a budget, debt, taxes and investments.",
    ),
    DEFAULT_DOMAIN: (
        "Small talk: greetings, thanks, agreeing, saying goodbye.",
        "A reply in a chat that says nothing about someone's life.",
    ),
}
#: below this best similarity a fact goes to ``general``
THRESHOLD = 0.175
#: best two domains closer than this: the keyword classifier may break the tie
MARGIN = 0.02

_prototypes: dict[str, "numpy.ndarray"] = {}


def prototype_vectors(embedder: "Embedder") -> "numpy.ndarray":
    """The descriptions' vectors, rows in :func:`prototype_domains` order (once per process)."""
    key = f"{embedder.name}/{embedder.backend}"
    if key not in _prototypes:
        _prototypes[key] = embedder.encode([text for _, text in _described()])
    return _prototypes[key]


def _described() -> list[tuple[str, str]]:
    return [(domain, text) for domain in DOMAINS for text in DESCRIPTIONS[domain]]


def similarities(vectors: "numpy.ndarray", prototypes: "numpy.ndarray") -> "numpy.ndarray":
    """(facts, domains) cosine similarity of each fact to each domain of ``routing.DOMAINS``
    (the closest of the domain's descriptions); vectors are unit length."""
    import numpy as np

    # einsum in float64, not BLAS: each fact's similarities are computed the same way
    # whatever else is in the batch, so a near tie cannot flip with the batch's shape
    sims = np.einsum("ij,kj->ik", np.asarray(vectors, dtype=np.float64), np.asarray(prototypes, dtype=np.float64))
    owners = [domain for domain, _ in _described()]
    out = np.empty((len(sims), len(DOMAINS)), dtype=np.float64)
    for column, domain in enumerate(DOMAINS):
        cols = [i for i, owner in enumerate(owners) if owner == domain]
        out[:, column] = sims[:, cols].max(axis=1)
    return out


def decide(text: str, meta: Mapping[str, Any] | None, scores: "numpy.ndarray") -> tuple[str, str]:
    """(domain, ``"meaning"`` or ``"keywords"``) for one fact and its row of :func:`similarities`."""
    for key in ("domain", "topic"):
        hint = (meta or {}).get(key)
        if isinstance(hint, str) and hint.lower() in DOMAINS:
            return hint.lower(), "keywords"
    # stable order: equal similarities keep the table's order
    order = sorted(range(len(DOMAINS)), key=lambda i: (-float(scores[i]), i))
    best, second = order[0], order[1]
    if float(scores[best]) < THRESHOLD:
        return DEFAULT_DOMAIN, "meaning"
    if float(scores[best]) - float(scores[second]) < MARGIN:
        by_words = classify(text)
        if by_words in (DOMAINS[best], DOMAINS[second]):
            return by_words, "keywords"
    return DOMAINS[best], "meaning"


def route_by_meaning(
    facts: list["Fact"], stored: Mapping[str, "numpy.ndarray"] | None = None, *, embedder: "Embedder | None" = None
) -> Routing:
    """Route ``facts`` by meaning; ``stored`` holds vectors the index already has (by fact id),
    the others are embedded now.  Without the model every fact is routed by keywords."""
    import numpy as np

    from ..errors import StoreError
    from ..index.embeddings import get_embedder

    routing = Routing()
    if not facts:
        return routing
    stored = stored or {}
    try:
        embedder = embedder or get_embedder()
        prototypes = prototype_vectors(embedder)
    except StoreError as exc:
        log.warning("routing by keywords only: %s", exc.message)
        for fact in facts:
            routing.routes[fact.id] = classify(fact.text, fact.meta)
            routing.by_keywords += 1
        return routing
    missing = [f for f in facts if f.id not in stored]
    fresh = embedder.encode([f.text for f in missing]) if missing else np.zeros((0, embedder.dim), dtype=np.float32)
    vectors = np.zeros((len(facts), embedder.dim), dtype=np.float32)
    fresh_row = {f.id: row for row, f in enumerate(missing)}
    for row, fact in enumerate(facts):
        vectors[row] = stored[fact.id] if fact.id in stored else fresh[fresh_row[fact.id]]
    scores = similarities(vectors, prototypes)
    for row, fact in enumerate(facts):
        domain, how = decide(fact.text, fact.meta, scores[row])
        routing.routes[fact.id] = domain
        if how == "meaning":
            routing.by_meaning += 1
        else:
            routing.by_keywords += 1
    routing.embedded = len(missing)
    return routing


def stored_vectors(project: "Project", facts: list["Fact"]) -> dict[str, "numpy.ndarray"]:
    """The vectors the facts index holds for ``facts``, read from its flat copy; empty
    when there is none in step with the corpus.

    When the index covers the fact log as it is (its manifest names the log's
    position), a fact whose text is the log's text for its id has its indexed
    vector; otherwise each entry's content checksum is compared with the fact's."""
    from ..facts.log import FactLog
    from ..index import open_index
    from ..index.catchup import coverage

    index = open_index(project)
    if not (index.dir / "facts.jsonl").exists():
        return {}
    channel = index.channel("facts")
    fact_log = FactLog(project.paths.facts)
    state = fact_log.read()
    if coverage(index, state, fact_log) == "current":
        logged = state.facts
        same = [f.id for f in facts if f.id in logged and logged[f.id].text == f.text]
        return channel.stored_vectors({i: None for i in same})
    return channel.stored_vectors({f.id: f.content_checksum() for f in facts})


__all__ = ["DESCRIPTIONS", "MARGIN", "THRESHOLD", "decide", "route_by_meaning", "similarities", "stored_vectors"]
