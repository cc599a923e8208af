"""The routing responder: a keyword table, every fact id of the ``facts`` block answered.

A fact goes to the domain with the most word hits; one that also names a
relationship (a wedding, a partner) goes to ``relationships`` as well
(``"domains": ["travel", "relationships"]``, the main one first): "I flew to
Berlin for Clara's wedding" concerns the trip and the wedding.  A fact naming
only a relationship goes to ``relationships`` alone."""

from __future__ import annotations

import re

from ..types import ChatRequest
from .reply import Reply
from .request import block, fact_lines, first_user

#: domain -> word starts; the first domain with the most hits wins, none means "general"
DOMAIN_WORDS: dict[str, tuple[str, ...]] = {
    "travel": (
        "trip",
        "travel",
        "flew",
        "flight",
        "fly",
        "flying",
        "vacation",
        "holiday",
        "hotel",
        "airport",
        "visited",
    ),
    "food": ("restaurant", "dinner", "lunch", "breakfast", "cook", "recipe", "ate ", "meal", "bake", "pizza", "sushi"),
    "health": ("doctor", "gym", "yoga", "running", "workout", "sick", "therapy", "dentist"),
    "work": ("job", "work", "office", "boss", "colleague", "project", "promotion", "interview", "career"),
    "hobbies": ("paint", "guitar", "piano", "book", "novel", "hike", "hiking", "garden", "pottery", "photograph"),
    "pets": ("dog", "cat", "puppy", "kitten", "vet "),
}
#: the words of the domain a fact also goes to, besides its main one
ALSO_DOMAIN = "relationships"
ALSO_WORDS = ("wedding", "married", "partner", "wife", "husband", "girlfriend", "boyfriend")
#: the most domains one fact is routed to
MAX_DOMAINS = 3


def _hits(words: tuple[str, ...], lowered: str) -> int:
    return sum(1 for w in words if re.search(r"\b" + re.escape(w), lowered))


def domain_of(text: str) -> str:
    """The domain with the most word hits (ties: table order), else "general"."""
    lowered = " " + text.lower() + " "
    best, score = "general", 0
    for domain, words in DOMAIN_WORDS.items():
        hits = _hits(words, lowered)
        if hits > score:
            best, score = domain, hits
    return best


def domains_of(text: str) -> list[str]:
    """The main domain, then ``relationships`` when the text names a relationship."""
    main = domain_of(text)
    if not _hits(ALSO_WORDS, " " + text.lower() + " "):
        return [main]
    return [ALSO_DOMAIN] if main == "general" else [main, ALSO_DOMAIN][:MAX_DOMAINS]


def respond_route(request: ChatRequest) -> Reply:
    facts = fact_lines(block(first_user(request), "facts"))
    routes = []
    for fact in facts:
        names = domains_of(fact.text)
        routes.append(
            {"id": fact.fact_id, "domains": names} if len(names) > 1 else {"id": fact.fact_id, "domain": names[0]}
        )
    return Reply("route", {"routes": routes})


__all__ = ["ALSO_DOMAIN", "ALSO_WORDS", "DOMAIN_WORDS", "MAX_DOMAINS", "domain_of", "domains_of", "respond_route"]
