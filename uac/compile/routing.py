"""Routing facts to life domains.

* :func:`classify` -- the deterministic keyword classifier (no model): each
  domain of :data:`KEYWORDS` scores one point per keyword found as a word (or
  word prefix) in the fact's text; the best score wins, ties go to the earlier
  domain in the table, no hit means ``general``.  A ``meta["domain"]`` or
  ``meta["topic"]`` hint naming a known domain wins outright.
* :func:`route_with_model` -- the LLM routing call, in batches; a fact may go to
  up to :data:`MAX_DOMAINS` domains (``"domains": [...]``; the single
  ``"domain": "x"`` form is read too); ids the model misses (or routes only to
  invalid names) fall back to :func:`classify`, which gives one domain.
* :func:`route_offline` -- without a model: by meaning with the bundled
  embedding model (:mod:`uac.compile.route_meaning`), the keywords breaking ties.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from ..llm.structured import list_reply_schema
from .llm_shared import batch_facts, fact_line

if TYPE_CHECKING:
    from ..facts.model import Fact
    from ..llm import LLMClient

#: domain -> keywords (lowercase; matched at word starts, so "flight" hits "flights")
KEYWORDS: dict[str, tuple[str, ...]] = {
    "travel": (
        "trip",
        "travel",
        "flight",
        "fly",
        "flew",
        "airport",
        "hotel",
        "vacation",
        "holiday",
        "visit",
        "abroad",
        "beach",
        "passport",
        "tour",
        "road trip",
        "camping",
        "cruise",
        "journey",
        "destination",
    ),
    "food": (
        "food",
        "eat",
        "ate",
        "dinner",
        "lunch",
        "breakfast",
        "restaurant",
        "cook",
        "recipe",
        "meal",
        "bake",
        "baking",
        "cuisine",
        "coffee",
        "pizza",
        "vegan",
        "vegetarian",
        "dish",
        "snack",
        "cafe",
    ),
    "health": (
        "health",
        "doctor",
        "hospital",
        "sick",
        "ill",
        "medic",
        "therapy",
        "therapist",
        "workout",
        "gym",
        "run",
        "running",
        "yoga",
        "sleep",
        "diet",
        "injur",
        "pain",
        "surgery",
        "dentist",
        "exercise",
        "mental",
    ),
    "work": (
        "work",
        "job",
        "career",
        "office",
        "boss",
        "colleague",
        "coworker",
        "project",
        "meeting",
        "promotion",
        "interview",
        "company",
        "business",
        "salary",
        "client",
        "manager",
        "hired",
        "startup",
        "school",
        "study",
        "class",
        "course",
        "degree",
        "university",
        "college",
        "exam",
    ),
    "relationships": (
        "friend",
        "family",
        "mother",
        "mom",
        "father",
        "dad",
        "sister",
        "brother",
        "husband",
        "wife",
        "partner",
        "boyfriend",
        "girlfriend",
        "son",
        "daughter",
        "kid",
        "child",
        "parent",
        "married",
        "wedding",
        "date",
        "dating",
        "grandma",
        "grandpa",
        "neighbor",
        "cousin",
        "aunt",
        "uncle",
    ),
    "hobbies": (
        "hobby",
        "paint",
        "music",
        "guitar",
        "piano",
        "sing",
        "song",
        "book",
        "read",
        "novel",
        "game",
        "play",
        "photograph",
        "garden",
        "hike",
        "hiking",
        "craft",
        "draw",
        "movie",
        "film",
        "concert",
        "pottery",
        "dance",
        "art",
        "sport",
        "soccer",
        "football",
        "swim",
        "pet",
        "dog",
        "cat",
    ),
    "finance": (
        "money",
        "bank",
        "spent",
        "spend",
        "paid",
        "pay",
        "buy",
        "bought",
        "purchase",
        "price",
        "cost",
        "budget",
        "saving",
        "invest",
        "loan",
        "rent",
        "mortgage",
        "bill",
        "dollar",
        "$",
    ),
}
DEFAULT_DOMAIN = "general"
DOMAINS = tuple(KEYWORDS) + (DEFAULT_DOMAIN,)


def _pattern(words: Iterable[str]) -> re.Pattern[str]:
    parts = []
    for word in words:
        escaped = re.escape(word)
        parts.append(escaped if not word[0].isalnum() else r"\b" + escaped)
    return re.compile("|".join(parts))


_PATTERNS = {domain: _pattern(words) for domain, words in KEYWORDS.items()}


def classify(text: str, meta: dict[str, Any] | None = None) -> str:
    """The keyword classifier's domain for a fact text."""
    for key in ("domain", "topic"):
        hint = (meta or {}).get(key)
        if isinstance(hint, str) and hint.lower() in DOMAINS:
            return hint.lower()
    lowered = text.lower()
    best, best_score = DEFAULT_DOMAIN, 0
    for domain, pattern in _PATTERNS.items():
        score = len(pattern.findall(lowered))
        if score > best_score:
            best, best_score = domain, score
    return best


def classify_fact(fact: "Fact") -> str:
    return classify(fact.text, fact.meta)


#: the most domains one fact is sent to
MAX_DOMAINS = 3


@dataclass
class Routing:
    #: fact id -> its first (main) domain
    routes: dict[str, str] = field(default_factory=dict)
    #: fact id -> the further domains the model gave it (at most MAX_DOMAINS - 1)
    also: dict[str, list[str]] = field(default_factory=dict)
    by_model: int = 0
    by_keywords: int = 0
    #: offline: routed by the embedding model's similarity to the domains' descriptions
    by_meaning: int = 0
    #: offline: facts the index held no vector for, embedded for routing
    embedded: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)

    def domains_of(self, fact_id: str) -> list[str]:
        """Every domain a fact goes to, its main one first."""
        first = self.routes.get(fact_id)
        return [first, *self.also.get(fact_id, [])] if first else []


ROUTE_SCHEMA = list_reply_schema(
    "routes",
    {"id": {"type": "string"}, "domains": {"type": "array", "items": {"type": "string"}}, "domain": {"type": "string"}},
    required=["id"],
)


def route_names(item: dict[str, Any]) -> list[str]:
    """The domain names of one answered route, in order, at most :data:`MAX_DOMAINS`:
    ``{"domains": ["travel", "relationships"]}`` or the single ``{"domain": "travel"}``
    (a list there, or a comma-separated string, is read too); invalid names are dropped."""
    from ..llm import clean_id
    from ..view.store import DOMAIN_RE

    given: list[Any] = []
    for key in ("domains", "domain"):
        value = item.get(key)
        if isinstance(value, str):
            given.append(value)
        elif isinstance(value, list):
            given.extend(value)
    names: list[str] = []
    for value in given:
        for part in value.split(",") if isinstance(value, str) else ():
            name = clean_id(part).lower()
            if DOMAIN_RE.match(name) and name not in names:
                names.append(name)
    return names[:MAX_DOMAINS]


def route_with_model(
    client: "LLMClient",
    facts: list["Fact"],
    domains: dict[str, str],
    *,
    max_chars: int,
) -> Routing:
    """Route ``facts`` with the model; ``domains`` maps existing names to what the router
    is shown of them (their description and collections with counts)."""
    import hashlib

    from ..errors import ContextOverflow, ModelError
    from ..llm import clean_id, system, user
    from ..templating import render_prompt

    routing = Routing()
    known = dict(domains)
    #: domains first named in this run: shown as such, never as "new domain" once facts go there
    created: dict[str, int] = {}
    for batch in batch_facts(facts, max_chars):
        ids = {f.id for f in batch}
        prompt = render_prompt(
            "structure_route.j2",
            domains=[{"name": n, "summary": s} for n, s in sorted(known.items())]
            + [
                {"name": n, "summary": f"created in this compile; {c} fact(s) so far"}
                for n, c in sorted(created.items())
            ],
            defaults=list(DOMAINS),
            max_domains=MAX_DOMAINS,
            facts=[fact_line(f) for f in batch],
        )
        messages = [system(render_prompt("system_json.j2", schema_name="routes")), user(prompt)]
        outcome = "ok"
        answer: dict[str, list[str]] = {}
        try:
            data, response = client.chat_json(
                messages, json_schema=ROUTE_SCHEMA, schema_name="routes", purpose="structure.route"
            )
            routing.prompt_tokens += response.usage.prompt_tokens
            routing.completion_tokens += response.usage.completion_tokens
            usage = response.usage.to_json()
            for item in (data or {}).get("routes", []) if isinstance(data, dict) else []:
                if not isinstance(item, dict):
                    continue
                fid, names = clean_id(item.get("id", "")), route_names(item)
                if fid in ids and names:
                    answer[fid] = list(dict.fromkeys([*answer.get(fid, []), *names]))[:MAX_DOMAINS]
        except ContextOverflow:
            raise  # the server cut the prompt: the user must fix the setting it names
        except ModelError as exc:
            outcome = f"error: {exc.message}"
            usage = {"prompt_tokens": 0, "completion_tokens": 0}
        for fact in batch:
            if fact.id in answer:
                first, *rest = answer[fact.id]
                routing.routes[fact.id] = first
                if rest:
                    routing.also[fact.id] = rest
                routing.by_model += 1
                for name in answer[fact.id]:
                    if name not in known:
                        created[name] = created.get(name, 0) + 1
            else:
                routing.routes[fact.id] = classify_fact(fact)
                routing.by_keywords += 1
        routing.calls.append(
            {
                "purpose": "route",
                "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
                **usage,
                "facts": len(batch),
                "routed_by_model": sum(1 for f in batch if f.id in answer),
                "outcome": outcome,
            }
        )
    return routing


def route_offline(facts: list["Fact"], stored: "dict[str, Any] | None" = None) -> Routing:
    """Route without a model: by meaning (:func:`uac.compile.route_meaning.route_by_meaning`),
    reusing the vectors in ``stored`` (fact id -> the index's vector)."""
    from .route_meaning import route_by_meaning

    return route_by_meaning(facts, stored)


def route_by_keywords(facts: list["Fact"]) -> Routing:
    """Route every fact with the keyword classifier alone."""
    routing = Routing()
    for fact in facts:
        routing.routes[fact.id] = classify_fact(fact)
        routing.by_keywords += 1
    return routing
