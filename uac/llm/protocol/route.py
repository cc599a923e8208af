"""The routing responder: a keyword table, every fact id answered."""

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
}


def domain_of(text: str) -> str:
    lowered = " " + text.lower() + " "
    best, score = "general", 0
    for domain, words in DOMAIN_WORDS.items():
        hits = sum(1 for w in words if re.search(r"\b" + re.escape(w), lowered))
        if hits > score:
            best, score = domain, hits
    return best


def respond_route(request: ChatRequest) -> Reply:
    facts = fact_lines(first_user(request), FACTS_HEADING)
    return Reply("route", {"routes": [{"id": f.fact_id, "domain": domain_of(f.text)} for f in facts]})


__all__ = ["DOMAIN_WORDS", "FACTS_HEADING", "domain_of", "respond_route"]
