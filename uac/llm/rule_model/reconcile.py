"""The reconcile responder: what each new fact changes, by a few words.

It reads each ``new_fact`` block and the ``earlier_facts`` block after it, and names a
pair only where the new fact says so: "cancelled", "called off", "won't" cancel
the first earlier plan; "actually", "wrong", "mistake" correct the first earlier
fact; "no longer", "instead", "now" supersede it; a new fact that is no plan
fulfils the first earlier plan.  Everything else changes nothing.
"""

from __future__ import annotations

import re

from ..types import ChatRequest
from .reply import Reply
from .request import blocks, first_user, parse_fact_line

_CANCEL = re.compile(r"\b(?:cancel\w*|called off|calls? off|won't|will not|fell through|not going)\b", re.I)
_CORRECT = re.compile(r"\b(?:actually|wrong|mistake\w*|correct\w*)\b", re.I)
_SUPERSEDE = re.compile(r"\b(?:no longer|not any\s*more|instead|now)\b", re.I)
_PLAN = re.compile(r"\b(?:plans?|planned|planning|going to|will|wants? to|thinking (?:of|about)|next)\b", re.I)


def decide(new: tuple[str, str], earlier: list[tuple[str, str]]) -> dict[str, str] | None:
    """The change one new fact (id, text) makes among its earlier facts, if any."""
    if not earlier:
        return None
    ident, text = new
    plans = [e for e in earlier if _PLAN.search(e[1])]
    if _CANCEL.search(text) and plans:
        return {"new": ident, "old": plans[0][0], "relation": "cancels"}
    if _CORRECT.search(text):
        return {"new": ident, "old": earlier[0][0], "relation": "corrects"}
    if _SUPERSEDE.search(text):
        return {"new": ident, "old": earlier[0][0], "relation": "supersedes"}
    if plans and not _PLAN.search(text):
        return {"new": ident, "old": plans[0][0], "relation": "fulfils"}
    return None


def respond_reconcile(request: ChatRequest) -> Reply:
    """Each ``new_fact`` block is followed by the ``earlier_facts`` block of its candidates."""
    changes = []
    new: tuple[str, str] | None = None
    for name, lines in blocks(first_user(request)):
        facts = [fact for line in lines if (fact := parse_fact_line(line)) is not None]
        if name == "new_fact" and facts:
            new = (facts[0].fact_id, facts[0].text)
        elif name == "earlier_facts" and new is not None:
            change = decide(new, [(f.fact_id, f.text) for f in facts])
            if change is not None:
                changes.append(change)
            new = None
    return Reply("reconcile", {"changes": changes})


__all__ = ["decide", "respond_reconcile"]
