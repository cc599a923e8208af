"""The rule model reads the structure of uac's requests, not the wording of the templates.

Every prompt template is reworded (:mod:`.reworded`: other words, headings
renamed, prose paragraphs reordered; the data blocks kept) and the offline
flows run under the rule model -- ingest with the model (extraction and
reconcile), an incremental compile (routing, operations and a repair round),
questions (the python tool natively and in a fenced block, step by step, the
iterative evidence selection) and a bounded compile: every reply, every fact
and the compiled view are the same as with the real templates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from uac.llm import LLMClient, ScriptedProvider
from uac.llm.rule_model import call_kind, respond_entry
from uac.llm.types import ChatRequest
from uac.memory import UserMemory
from uac.templating import render_prompt

from .reworded import reworded_prompts, reworded_source

SESSIONS = [
    (
        "9:00 am on 1 May, 2023",
        [
            ("Alice", "Hi Bob! I flew to Oslo on 3 April 2023 for a conference on rooftop gardens."),
            ("Bob", "Welcome back! How was it?"),
            ("Alice", "I am planning a trip to Rome next month with my sister Ana."),
            ("Alice", "I work at Acme as a garden designer and I love the team there."),
        ],
    ),
    (
        "6:30 pm on 20 May, 2023",
        [
            ("Alice", "We cancelled the trip to Rome because Ana is sick."),
            ("Bob", "Sorry to hear that. I cooked a lentil soup with smoked paprika for dinner."),
            ("Alice", "I left Acme last week and I am looking for a new studio."),
            ("Alice", "I flew to Lisbon on 12 May 2023 and stayed for five nights."),
        ],
    ),
]
QUESTIONS = [
    ("How many trips did Alice take in 2023?", {}),
    ("How many trips did Alice take in 2023?", {"tool_mode": "codeblock"}),
    ("How many trips did Alice take in 2023?", {"reasoning": "step_by_step", "iterative": True}),
    ("What did Bob cook for dinner?", {"use_state": False}),
]
#: every kind of call the flows make
KINDS = {"extract", "reconcile", "route", "compile", "compile_repair", "compile_bounded", "answer", "decide"}


def write_conversation(path: Path) -> Path:
    conversation: dict[str, Any] = {"speaker_a": "Alice", "speaker_b": "Bob"}
    for number, (when, turns) in enumerate(SESSIONS, 1):
        conversation[f"session_{number}_date_time"] = when
        conversation[f"session_{number}"] = [
            {"speaker": speaker, "dia_id": f"D{number}:{index}", "text": text}
            for index, (speaker, text) in enumerate(turns, 1)
        ]
    path.write_text(json.dumps([{"sample_id": "reworded-1", "conversation": conversation, "qa": []}]), "utf-8")
    return path


class Recorder:
    """The rule model's replies, in the order of the calls; the first compile answer forgets its
    last ``add``, so that uac asks again (a repair round)."""

    def __init__(self) -> None:
        self.replies: list[tuple[str | None, Any]] = []
        self.forgot = False

    def __call__(self, request: ChatRequest) -> dict[str, Any]:
        kind, entry = call_kind(request), respond_entry(request)
        if kind == "compile" and not self.forgot and "json" in entry:
            ops = entry["json"]["operations"]
            adds = [n for n, op in enumerate(ops) if op["op"] == "add"]
            if adds:
                entry = {"json": {"operations": [op for n, op in enumerate(ops) if n != adds[-1]]}}
                self.forgot = True
        self.replies.append((kind, entry))
        return entry


def _view(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text("utf-8") for p in sorted((root / "domains").rglob("*.py"))}


def run_flows(root: Path, conversation: Path) -> dict[str, Any]:
    recorder = Recorder()
    memory = UserMemory.create(
        root, user_name="Alice", llm=LLMClient(ScriptedProvider(handler=recorder), sleep=lambda _s: None)
    )
    try:
        ingested = memory.ingest(conversation, compile=False)
        facts = [(f.id, f.text, str(f.event_date), f.speaker) for f in memory.facts(include_superseded=True)]
        current = sorted(f.id for f in memory.facts())
        compiled = memory.compile(mode="incremental")
        incremental = _view(root)
        answers = [memory.ask(question, **options).answer for question, options in QUESTIONS]
        bounded = memory.compile(mode="bounded")
        return {
            "ok": (ingested.extractor, ingested.sessions_added, ingested.supersessions, compiled.ok, bounded.ok),
            "facts": facts,
            "current": current,
            "incremental": incremental,
            "answers": answers,
            "bounded": _view(root),
            "replies": recorder.replies,
        }
    finally:
        memory.close()


def test_the_rewording_leaves_no_prose_and_every_data_block():
    from uac.templating import _environment

    loader = _environment("prompts").loader
    for name in ("extract_facts.j2", "structure_ops.j2", "answer_system.j2"):
        source = loader.get_source(_environment("prompts"), name)[0]
        reworded = reworded_source(source)
        assert reworded != source
        first_prose = next(line for line in source.split("\n") if line and not line.startswith("{%"))
        assert first_prose not in reworded
        opened = [line for line in source.split("\n") if line.startswith("<") and not line.startswith("</")]
        assert opened and all(line in reworded.split("\n") for line in opened)
    with reworded_prompts():
        text = render_prompt("system_json.j2", schema_name="facts")
    assert "careful assistant" not in text and "<reply_schema>\nfacts\n</reply_schema>" in text


@pytest.mark.slow
def test_reworded_templates_give_the_same_replies_facts_and_view(tmp_path):
    conversation = write_conversation(tmp_path / "conversation.json")
    real = run_flows(tmp_path / "real", conversation)
    with reworded_prompts():
        reworded = run_flows(tmp_path / "reworded", conversation)
    kinds = {kind for kind, _ in real["replies"]}
    assert kinds >= KINDS, f"the flows made no {sorted(KINDS - kinds)} call"
    assert None not in kinds
    assert real["incremental"] and real["bounded"] and len(real["facts"]) > 6
    assert len(real["current"]) < len(real["facts"])  # the cancelled plan and the job left were superseded
    assert any("3" in (answer or "") for answer in real["answers"][:3])
    for key in ("replies", "facts", "current", "incremental", "answers", "bounded", "ok"):
        assert reworded[key] == real[key], key
