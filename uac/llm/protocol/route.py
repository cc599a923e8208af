"""The routing responder: a keyword table, every fact id answered.

A fact goes to the domain with the most word hits and, when it also hits the
words of others, to up to two of those as well (``"domains": [...]``, the best
first): "the wedding in Bristol after the trip" concerns travel and
relationships."""

from __future__ import annotations

import re

from ..types import ChatRequest
from .prompts import fact_lines, first_user
from .reply import Reply

#: the facts follow the line that starts so
FACTS_HEADING = "Facts (one per line"

#: domain -> word starts; the first domain with the most hits wins, none means "general"
DOMAIN_WORDS: dict[str, tuple[str, ...]] = {
    "travel": ("trip", "travel", "flew", "flight", "fly", "flying", "vacation", "holiday", "hotel", "airport", "visited"),
    "food": ("restaurant", "dinner", "lunch", "breakfast", "cook", "recipe", "ate ", "meal", "bake", "pizza", "sushi"),
    "health": ("doctor", "gym", "yoga", "running", "workout", "sick", "therapy", "dentist"),
    "work": ("job", "work", "office", "boss", "colleague", "project", "promotion", "interview", "career"),
    "hobbies": ("paint", "guitar", "piano", "book", "novel", "hike", "hiking", "garden", "pottery", "photograph"),
    "pets": ("dog", "cat", "puppy", "kitten", "vet "),
    "relationships": ("wedding", "married", "partner", "wife", "husband", "girlfriend", "boyfriend"),
}
#: the most domains one fact is routed to
MAX_DOMAINS = 3


def domains_of(text: str) -> list[str]:
    """Every domain whose words the text hits, the most hits first (ties: table order)."""
    lowered = " " + text.lower() + " "
    scored = []
    for position, (domain, words) in enumerate(DOMAIN_WORDS.items()):
        hits = sum(1 for w in words if re.search(r"\b" + re.escape(w), lowered))
        if hits:
            scored.append((-hits, position, domain))
    return [domain for _, _, domain in sorted(scored)][:MAX_DOMAINS] or ["general"]


def domain_of(text: str) -> str:
    return domains_of(text)[0]


def respond_route(request: ChatRequest) -> Reply:
    facts = fact_lines(first_user(request), FACTS_HEADING)
    routes = []
    for fact in facts:
        names = domains_of(fact.text)
        routes.append({"id": fact.fact_id, "domains": names} if len(names) > 1 else {"id": fact.fact_id, "domain": names[0]})
    return Reply("route", {"routes": routes})


__all__ = ["DOMAIN_WORDS", "FACTS_HEADING", "MAX_DOMAINS", "domain_of", "domains_of", "respond_route"]
