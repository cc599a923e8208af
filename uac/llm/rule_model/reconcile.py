"""The reconcile responder: what each new fact changes, by a few words.

It reads the new facts and the earlier facts listed under each, and names a
pair only where the new fact says so: "cancelled", "called off", "won't" cancel
the first earlier plan; "actually", "wrong", "mistake" correct the first earlier
fact; "no longer", "instead", "now" supersede it; a new fact that is no plan
fulfils the first earlier plan.  Everything else changes nothing.
"""

from __future__ import annotations

import re

from ..types import ChatRequest
from .prompts import first_user, parse_fact_line
from .reply import Reply

_NEW = re.compile(r"^New fact \[(?P<id>[^\]]+)\] (?P<text>.*)$")
_CANCEL = re.compile(r"\b(?:cancel\w*|called off|calls? off|won't|will not|fell through|not going)\b", re.I)
_CORRECT = re.compile(r"\b(?:actually|wrong|mistake\w*|correct\w*)\b", re.I)
_SUPERSEDE = re.compile(r"\b(?:no longer|not any\s*more|instead|now)\b", re.I)
_PLAN = re.compile(r"\b(?:plans?|planned|planning|going to|will|wants? to|thinking (?:of|about)|next)\b", re.I)


def respond_reconcile(request: ChatRequest) -> Reply:
    changes = []
    new: tuple[str, str] | None = None
    earlier: list[tuple[str, str]] = []

    def decide() -> None:
        if new is None or not earlier:
            return
        ident, text = new
        plans = [e for e in earlier if _PLAN.search(e[1])]
        if _CANCEL.search(text) and plans:
            changes.append({"new": ident, "old": plans[0][0], "relation": "cancels"})
        elif _CORRECT.search(text):
            changes.append({"new": ident, "old": earlier[0][0], "relation": "corrects"})
        elif _SUPERSEDE.search(text):
            changes.append({"new": ident, "old": earlier[0][0], "relation": "supersedes"})
        elif plans and not _PLAN.search(text):
            changes.append({"new": ident, "old": plans[0][0], "relation": "fulfils"})

    for line in first_user(request).split("\n"):
        match = _NEW.match(line.strip())
        if match:
            decide()
            new, earlier = (match["id"], match["text"]), []
            continue
        fact = parse_fact_line(line) if new is not None and line.startswith("[") else None
        if fact is not None:
            earlier.append((fact.fact_id, fact.text))
    decide()
    return Reply("reconcile", {"changes": changes})


__all__ = ["respond_reconcile"]
