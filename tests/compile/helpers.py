"""Shared builders for the compile tests: facts, and a scripted model that answers
the operations protocol by rule (the benchmark's protocol model, reading the real prompts)."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import re
from pathlib import Path

from uac.facts.model import Fact

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
_PROTOCOL = Path(__file__).resolve().parents[2] / "benchmarks" / "protocol_model.py"
_spec = importlib.util.spec_from_file_location("uac_bench_protocol_model", _PROTOCOL)
protocol_model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(protocol_model)


def prompt_of(request) -> str:
    return "\n".join(m.content or "" for m in request.messages)


def domain_of_prompt(prompt: str) -> str | None:
    match = re.search(r'You maintain the "(\w+)" domain', prompt)
    return match.group(1) if match else None


def route_reply(prompt: str, domain_of=None) -> dict:
    ids = FACT_ID.findall(prompt.split("Facts (one per line", 1)[1])
    return {"routes": [{"id": i, "domain": domain_of(i) if domain_of else "life"} for i in ids]}


def handler_for(domain_of=None, *, failing_domains=(), wrap=None):
    """A ScriptedProvider handler: routes with ``domain_of``, then answers each batch with
    the protocol model's operations (one record per fact).  ``failing_domains``: the
    endpoint fails for them; ``wrap(request, reply) -> reply`` may alter a reply."""

    def handler(request):
        prompt = prompt_of(request)
        if "Route each fact" in prompt:
            reply = {"json": route_reply(prompt, domain_of)}
        elif domain_of_prompt(prompt) in failing_domains:
            reply = {"error": "fatal", "message": "503 from the endpoint"}
        else:
            reply = protocol_model.handler(request)
        return wrap(request, reply) if wrap else reply

    return handler


def dumps(data) -> str:
    return json.dumps(data)
