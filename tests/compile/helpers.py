"""Shared builders for the compile tests: facts, and a scripted handler that answers the
operations protocol by rule (the rule model of :mod:`uac.llm.rule_model`, reading the real
prompts: a ``Trip`` per fact about a trip, an ``Event`` per other fact)."""

from __future__ import annotations

import datetime as dt
import json
import re

from uac.facts.model import Fact
from uac.llm.rule_model import respond_entry
from uac.llm.rule_model.request import block_json

TOPICS = [
    ("travel", "I took a trip to {place} and stayed in a hotel near the beach"),
    ("food", "I cooked a new {place} recipe for dinner with my friends at the restaurant"),
    ("hobbies", "I played guitar and painted a picture of {place} for my art hobby"),
    ("work", "My boss asked me to lead the {place} project at the office meeting"),
]
PLACES = ["Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Tunis", "Porto", "Seoul"]


def make_facts(n: int, *, sessions: int = 10, pad: int = 0) -> list[Fact]:
    """``n`` facts over ``sessions`` sessions; ``pad`` adds filler words to each text."""
    facts = []
    for i in range(n):
        session = i % sessions
        _topic, template = TOPICS[i % len(TOPICS)]
        text = template.format(place=PLACES[i % len(PLACES)]) + f" (note {i})"
        if pad:
            text += " " + " ".join(["detail"] * pad)
        facts.append(
            Fact(
                id=f"f{i:04d}",
                text=text,
                session_id=f"S{session + 1}",
                session_date=dt.date(2023, 1, 1) + dt.timedelta(days=7 * session),
                speaker="Alice",
            )
        )
    return facts


FACT_ID = re.compile(r"^\[([^\]]+)\]", re.MULTILINE)
#: a ScriptedProvider handler: the rule model's reply to every call (routing included)
protocol_handler = respond_entry


def prompt_of(request) -> str:
    return "\n".join(m.content or "" for m in request.messages)


def session_of(prompt: str) -> str | None:
    """The session a prompt is about: the ``id`` of an extraction prompt's ``<session>`` block,
    else the session named by a reconcile prompt's opening line (``Session ID, dated ...``)."""
    data = block_json(prompt, "session")
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        return data["id"]
    match = re.search(r"^Session (\S+), dated ", prompt, flags=re.M)
    return match.group(1) if match else None


def domain_of_prompt(prompt: str) -> str | None:
    match = re.search(r'You maintain the "(\w+)" domain', prompt)
    return match.group(1) if match else None


def route_reply(prompt: str, domain_of=None) -> dict:
    ids = FACT_ID.findall(prompt.split("Facts (one per line", 1)[1])
    return {"routes": [{"id": i, "domain": domain_of(i) if domain_of else "life"} for i in ids]}


def handler_for(domain_of=None, *, failing_domains=(), wrap=None):
    """A ScriptedProvider handler: routes with ``domain_of``, then answers each batch (and
    each repair request) with the rule model's operations (one record per fact).
    ``failing_domains``: the endpoint fails for them; ``wrap(request, reply) -> reply`` may
    alter a reply."""

    def handler(request):
        prompt = prompt_of(request)
        if "Route each fact" in prompt:
            reply = {"json": route_reply(prompt, domain_of)}
        elif domain_of_prompt(prompt) in failing_domains:
            reply = {"error": "fatal", "message": "503 from the endpoint"}
        else:
            reply = protocol_handler(request)
        return wrap(request, reply) if wrap else reply

    return handler


def records(memory, domain: str) -> list:
    """Every record of one domain, all collections (trips and events alike)."""
    state = memory.state[domain]
    return [record for name in state for record in (state[name] if isinstance(state[name], tuple) else ())]


def adds_by_fact(operations: list[dict]) -> dict[str, dict]:
    """The ``add`` operations of a reply by the (first) fact each cites."""
    return {op["sources"][0]: op for op in operations if op.get("op") == "add"}


def dumps(data) -> str:
    return json.dumps(data)
