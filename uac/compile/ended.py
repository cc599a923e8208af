"""Facts no longer in force that a compile still reads: the record of their time.

A later fact may supersede an earlier one: the old job of the current one ("last day at
Sunflower will be 31/7" after "has been teaching at Sunflower since August 2023"), the plan
a cancellation ended, a value since corrected.  :func:`ended_facts` finds those whose line of
replacements ends in the facts being compiled; the model's compile reads them all, marked
as ended.  The offline kinds read only the past employers and homes (:func:`past_states`):
the rule extractor links those as states (:func:`uac.extract.states.link_states`), so a job
left or a home moved out of is no longer valid now, yet is the person's history; a fact a
correction superseded was wrong, not past, and stays out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..facts.log import LogState
    from ..facts.model import Fact
    from ..project import Project

#: the states whose earlier values are history (:data:`uac.extract.states.EMPLOYER`, ``HOME``)
STATES = ("employer", "home")


def ended_facts(log_state: "LogState", current: dict[str, "Fact"]) -> dict[str, "Fact"]:
    """The facts no longer in force whose line of replacements ends in one of ``current``
    (the old job of the current one, the plan a cancellation ended, a value since corrected):
    compiled with them, so the view keeps the record of their time.  Facts ended by facts
    outside ``current`` (a compile of a subset) are left out."""
    out: dict[str, "Fact"] = {}
    facts = log_state.facts
    for fact in facts.values():
        if not fact.superseded_by or fact.id in current:
            continue
        newer, steps = fact.superseded_by, 0
        while newer not in current and steps < 64:
            later = facts.get(newer)
            if later is None or not later.superseded_by:
                break
            newer, steps = later.superseded_by, steps + 1
        if newer in current:
            out[fact.id] = fact
    return out


def past_states(project: "Project", facts: "list[Fact]") -> "list[Fact]":
    """The employer and home facts a later state of ``facts`` superseded (directly or through
    others, never through a correction), in log order."""
    from ..context import project_log

    state = project_log(project).read()
    current = {fact.id: fact for fact in facts}
    ended = ended_facts(state, current)
    if not ended:
        return []
    corrected = {fact_id for fact_id, fact in state.facts.items() if (fact.meta or {}).get("correction")}
    out = []
    for fact in ended.values():
        if (fact.meta or {}).get("state") not in STATES or _through(fact, state, current, corrected):
            continue
        out.append(fact)
    order = {fact_id: index for index, fact_id in enumerate(state.facts)}
    return sorted(out, key=lambda fact: order.get(fact.id, 0))


def _through(fact: "Fact", state: "LogState", current: "dict[str, Fact]", corrected: set[str]) -> bool:
    """Whether the line of replacements from ``fact`` passes through a correction."""
    newer, steps = fact.superseded_by, 0
    while newer is not None and steps < 64:
        if newer in corrected:
            return True
        if newer in current:
            return False
        later = state.facts.get(newer)
        newer, steps = (later.superseded_by if later is not None else None), steps + 1
    return False
