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
    best: dict[tuple[str, str], EvidenceItem] = {}
    order: list[tuple[str, str]] = []
    core: dict[tuple[str, str], EvidenceItem] = {}
    reservations: dict[tuple[str, str], EvidenceItem] = {}
    reserved_queries: set[str] = set()
    asked: list[str] = []
    pending = [question]
    no_progress = 0
    failures = 0
    trace: list[dict[str, Any]] = []
    reservation_cap = max(1, queries_per_round) * max(1, rounds)
    done_rounds = 0
    for round_no in range(1, max(1, rounds) + 1):
        block: list[EvidenceItem] = []
        for query in pending:
            asked.append(query)
            found: list[EvidenceItem] = []
            for channel, per_channel in channels:
                found.extend(search(query, channel, per_channel))
            found.sort(key=lambda item: -item.score)
            for item in found:
                key = _key(item)
                if key not in best:
                    order.append(key)
                    best[key] = item
                elif item.score > best[key].score:
                    best[key] = item
            if found and query not in reserved_queries and len(reservations) < reservation_cap:
                lead = found[0]
                if _key(lead) not in core:
                    reservations[_key(lead)] = lead
                    reserved_queries.add(query)
            block.extend(found)
        seen: set[tuple[str, str]] = set()
        candidates = []
        for item in block:
            key = _key(item)
            if key in seen or key in core:
                continue
            seen.add(key)
            candidates.append(best[key])
        candidates = candidates[:candidates_per_round]
        decision = _decide(llm, question, list(core.values()), candidates, retries)
        done_rounds = round_no
        if decision is None:
            failures += 1
            selected_ids = [c.id for c in candidates[:fallback]]
            follow_ups: list[str] = []
            sufficient = False
        else:
            selected_ids = [clean_id(s) for s in decision.get("selected", [])]
            follow_ups = [str(q).strip() for q in decision.get("follow_up_queries", []) if str(q).strip()]
            sufficient = bool(decision.get("sufficient"))
        by_id = {c.id: c for c in candidates}
        grew = False
        for item_id in selected_ids:
            chosen = by_id.get(item_id)
            if chosen is not None and _key(chosen) not in core:
                core[_key(chosen)] = chosen
                grew = True
        no_progress = 0 if grew else no_progress + 1
        pending = [q for q in follow_ups if q not in asked][: max(0, queries_per_round)]
        trace.append(
            {"round": round_no, "candidates": [c.id for c in candidates], "selected": selected_ids, "follow_up_queries": pending, "sufficient": sufficient}
        )
        if sufficient or not pending or no_progress >= patience:
            break
    ranked_core = sorted(core, key=lambda key: -best[key].score)
    packed: list[EvidenceItem] = []
    used: set[tuple[str, str]] = set()
    for key in [*ranked_core, *reservations, *sorted(order, key=lambda key: -best[key].score)]:
        if key in used:
            continue
        used.add(key)
        packed.append(best[key])
        if len(packed) >= k:
            break
    return Selection(packed, done_rounds, asked, [key[1] for key in ranked_core], failures, trace)


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
