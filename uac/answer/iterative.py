"""Iterative evidence selection (Membase §5.2, Algorithm 1, capped-core variant).

Each round searches every open query (hybrid RRF underneath), keeps for every
discovered item its best score over the queries that found it (eq. 2:
``rho(d) = max_x s(d, x)``), reserves the first hit of each query that is not
yet core, and asks a *decider* model which candidates are useful and which
follow-up queries to run.  Selected evidence persists across rounds as the
core.  The loop stops when the decider says the evidence suffices, proposes no
new query, makes no progress for two consecutive rounds, or after ``rounds``
decisions.  Packing puts the core first (by best score), then reservations,
then the other discovered items, deduplicated by identity and capped at ``k``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from ..errors import ContextOverflow, ModelError
from ..llm import LLMClient, Message, clean_id
from ..templating import render_prompt
from .evidence import SearchFn
from .model import EvidenceItem

log = logging.getLogger(__name__)

DECIDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "selected": {"type": "array", "items": {"type": "string"}},
        "follow_up_queries": {"type": "array", "items": {"type": "string"}},
        "sufficient": {"type": "boolean"},
    },
    "required": ["selected", "follow_up_queries", "sufficient"],
}


@dataclass
class Selection:
    items: list[EvidenceItem]
    rounds: int
    queries: list[str]
    core_ids: list[str]
    decider_failures: int = 0
    trace: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "queries": self.queries,
            "core": self.core_ids,
            "decider_failures": self.decider_failures,
            "trace": self.trace,
        }


def _key(item: EvidenceItem) -> tuple[str, str]:
    return (item.channel, item.id)


class _Pool:
    """What the rounds found: every item at its best score, in order of discovery; the core
    the decider selected; and one reservation per query (its first hit not yet core)."""

    def __init__(self, reservation_cap: int) -> None:
        self.best: dict[tuple[str, str], EvidenceItem] = {}
        self.order: list[tuple[str, str]] = []
        self.core: dict[tuple[str, str], EvidenceItem] = {}
        self.reservations: dict[tuple[str, str], EvidenceItem] = {}
        self.reserved_queries: set[str] = set()
        self.reservation_cap = reservation_cap

    def gather(self, query: str, found: list[EvidenceItem]) -> None:
        """Keep what ``query`` found (``found``, best first)."""
        for item in found:
            key = _key(item)
            if key not in self.best:
                self.order.append(key)
                self.best[key] = item
            elif item.score > self.best[key].score:
                self.best[key] = item
        if found and query not in self.reserved_queries and len(self.reservations) < self.reservation_cap:
            lead = found[0]
            if _key(lead) not in self.core:
                self.reservations[_key(lead)] = lead
                self.reserved_queries.add(query)

    def candidates(self, block: list[EvidenceItem], most: int) -> list[EvidenceItem]:
        """The round's items not yet core, once each at their best score, the first ``most``."""
        seen: set[tuple[str, str]] = set()
        candidates = []
        for item in block:
            key = _key(item)
            if key in seen or key in self.core:
                continue
            seen.add(key)
            candidates.append(self.best[key])
        return candidates[:most]

    def adopt(self, selected_ids: list[str], candidates: list[EvidenceItem]) -> bool:
        """Add the selected candidates to the core; did it grow?"""
        by_id = {c.id: c for c in candidates}
        grew = False
        for item_id in selected_ids:
            item = by_id.get(item_id)
            if item is not None and _key(item) not in self.core:
                self.core[_key(item)] = item
                grew = True
        return grew

    def ranked_core(self) -> list[tuple[str, str]]:
        return sorted(self.core, key=lambda key: -self.best[key].score)

    def packed(self, k: int) -> list[EvidenceItem]:
        """The core (by best score), then the reservations, then the rest, each once, at most ``k``."""
        best = self.best
        packed: list[EvidenceItem] = []
        used: set[tuple[str, str]] = set()
        for key in [*self.ranked_core(), *self.reservations, *sorted(self.order, key=lambda key: -best[key].score)]:
            if key in used:
                continue
            used.add(key)
            packed.append(best[key])
            if len(packed) >= k:
                break
        return packed


def _search_all(search: SearchFn, query: str, channels: list[tuple[str, int]]) -> list[EvidenceItem]:
    found: list[EvidenceItem] = []
    for channel, per_channel in channels:
        found.extend(search(query, channel, per_channel))
    found.sort(key=lambda item: -item.score)
    return found


def _read_decision(
    decision: dict[str, Any] | None, candidates: list[EvidenceItem], fallback: int
) -> tuple[list[str], list[str], bool]:
    """The selected ids, the follow-up queries and whether the evidence suffices (without a
    decision: the ``fallback`` best candidates, nothing more to ask)."""
    if decision is None:
        return [c.id for c in candidates[:fallback]], [], False
    selected_ids = [clean_id(s) for s in decision.get("selected", [])]
    follow_ups = [str(q).strip() for q in decision.get("follow_up_queries", []) if str(q).strip()]
    return selected_ids, follow_ups, bool(decision.get("sufficient"))


def select_evidence(
    llm: LLMClient,
    question: str,
    search: SearchFn,
    *,
    channels: list[tuple[str, int]],
    rounds: int = 3,
    queries_per_round: int = 2,
    k: int = 30,
    candidates_per_round: int = 24,
    fallback: int = 5,
    patience: int = 2,
    retries: int = 1,
) -> Selection:
    """Run the rounds and return the packed evidence (see module docstring)."""
    pool = _Pool(max(1, queries_per_round) * max(1, rounds))
    asked: list[str] = []
    pending = [question]
    no_progress = 0
    failures = 0
    trace: list[dict[str, Any]] = []
    done_rounds = 0
    for round_no in range(1, max(1, rounds) + 1):
        block: list[EvidenceItem] = []
        for query in pending:
            asked.append(query)
            found = _search_all(search, query, channels)
            pool.gather(query, found)
            block.extend(found)
        candidates = pool.candidates(block, candidates_per_round)
        decision = _decide(llm, question, list(pool.core.values()), candidates, retries)
        done_rounds = round_no
        if decision is None:
            failures += 1
        selected_ids, follow_ups, sufficient = _read_decision(decision, candidates, fallback)
        no_progress = 0 if pool.adopt(selected_ids, candidates) else no_progress + 1
        pending = [q for q in follow_ups if q not in asked][: max(0, queries_per_round)]
        trace.append(
            {
                "round": round_no,
                "candidates": [c.id for c in candidates],
                "selected": selected_ids,
                "follow_up_queries": pending,
                "sufficient": sufficient,
            }
        )
        if sufficient or not pending or no_progress >= patience:
            break
    return Selection(pool.packed(k), done_rounds, asked, [key[1] for key in pool.ranked_core()], failures, trace)


def _decide(
    llm: LLMClient, question: str, core: list[EvidenceItem], candidates: list[EvidenceItem], retries: int
) -> dict[str, Any] | None:
    prompt = render_prompt("answer_decider.j2", question=question, core=core, candidates=candidates)
    for attempt in range(retries + 1):
        try:
            value, _ = llm.chat_json(
                [Message("user", prompt)], json_schema=DECIDER_SCHEMA, schema_name="evidence_decision", purpose="decide"
            )
        except ContextOverflow:
            raise  # a prompt cut by the server is the user's to fix, not a reason to guess
        except ModelError as exc:
            log.warning("evidence decider failed (attempt %d): %s", attempt + 1, exc)
            continue
        if isinstance(value, dict) and isinstance(value.get("selected", []), list):
            return value
        log.warning("evidence decider returned an unusable value: %r", value)
    return None
