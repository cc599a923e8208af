"""What an LLM extraction is shown of the facts in force: those the session mentions
(found like reconcile's candidates), then the latest, bounded; with sessions side by side,
those committed before (reconcile settles the rest at the commit)."""

from __future__ import annotations

import datetime as dt
import json

from tests.compile.helpers import session_of
from uac.facts.log import FactLog
from uac.facts.model import Fact
from uac.llm.rule_model import respond_entry
from uac.memorize.reconcile import Reconciler
from uac.memorize.shown import SHOWN_CHARS
from uac.sessions.model import Session, Turn

HOBBIES = ["chess", "pottery", "cycling", "baking", "sailing", "knitting", "gardening", "climbing", "rowing", "singing"]


def _earlier() -> list[Fact]:
    day = dt.date(2022, 1, 3)
    facts = [Fact("s0-f1", "Sam works at Acme Corp as an engineer.", "s0", day, speaker="Sam", valid_from=day)]
    for number in range(2, 80):
        hobby = HOBBIES[number % len(HOBBIES)]
        facts.append(
            Fact(
                f"s0-f{number}",
                f"Sam spent evening {number} {hobby} with neighbours.",
                "s0",
                day,
                speaker="Sam",
                valid_from=day,
            )
        )
    return facts


def _session(sid: str, day: str, text: str) -> dict:
    return {"session_id": sid, "date": day, "messages": [{"role": "user", "content": text}]}


def _extraction_prompts(scripted):
    return [
        "\n".join(m.content or "" for m in r.messages)
        for r in scripted.requests
        if "Extract every individual fact" in (r.messages[-1].content or "")
    ]


def test_an_early_fact_the_session_mentions_is_shown_and_the_list_is_bounded(scripted, scripted_memory, tmp_path):
    memory = scripted_memory
    memory.project.save_config(memory.project.config.with_section("user", name="Sam"))
    with memory.project.lock("test"):
        FactLog(memory.project.paths.facts).append_session("s0", _earlier())
    scripted.handler = respond_entry
    path = tmp_path / "s1.json"
    path.write_text(json.dumps(_session("s1", "2024-03-05", "I left Acme Corp last week.")), "utf-8")
    report = memory.ingest(path)
    (prompt,) = _extraction_prompts(scripted)
    known = prompt.split('Known facts (for "supersedes" only):')[1].split("\n\n")[0]
    lines = [line for line in known.split("\n") if line.startswith("[")]
    assert "[s0-f1] Sam works at Acme Corp as an engineer." in lines  # 78 facts later, found by what it mentions
    assert len(lines) == memory.project.config.extract.known_facts == 30 and len(known) < SHOWN_CHARS + 200
    assert "[s0-f79]" in known  # the rest of the room goes to the latest
    # the link itself: the fact that leaves Acme ends the job
    assert report.supersessions == 1 and memory.fact("s0-f1").fact.superseded_by == "s1-f1"


def test_sessions_side_by_side_see_what_was_committed_before_and_reconcile_links_the_rest(
    scripted, scripted_memory, tmp_path
):
    memory = scripted_memory
    memory.project.save_config(
        memory.project.config.with_section("user", name="Sam").with_section("extract", parallel_sessions=2)
    )
    scripted.handler = respond_entry
    sessions = [
        _session("s1", "2024-01-10", "I joined Initech as a designer in January."),
        _session("s2", "2024-02-10", "I left Initech after a month."),
        _session("s3", "2024-03-10", "I joined Globex as a designer in March."),
    ]
    path = tmp_path / "three.jsonl"
    path.write_text("\n".join(json.dumps(s) for s in sessions), "utf-8")
    memory.ingest(path)
    prompts = {session_of(p): p for p in _extraction_prompts(scripted)}
    assert "Known facts" not in prompts["s2"]  # s1 was not committed when s2 was extracted
    assert "[s1-f1]" in prompts["s3"]  # s1 was: shown to s3 (lag 2)
    # what s2 changes in s1 was settled at its commit, against every fact committed before it
    assert memory.fact("s1-f1").fact.superseded_by == "s2-f1"


def test_the_snapshot_ignores_facts_of_sessions_prepared_after_it_and_facts_ended_since():
    day = dt.date(2024, 1, 1)
    acme = Fact("s0-f1", "Sam works at Acme Corp as an engineer.", "s0", day, speaker="Sam")
    reconciler = Reconciler(None, lambda: [acme], ["s1", "s2"])
    before = reconciler.shown_after(None)
    later = Fact("s1-f1", "Sam got a raise at Acme Corp.", "s1", day, speaker="Sam")
    session = Session("s1", day, "", (Turn("s1:1", "Sam", "I got a raise at Acme Corp."),))
    reconciler.prepare(session, [later], [], lambda *a: None)
    probe = Session("s2", day, "", (Turn("s2:1", "Sam", "Acme Corp moved my desk."),))
    assert [f.id for f in before.for_session(probe, 30)] == ["s0-f1"]  # taken before s1 was added
    assert [f.id for f in reconciler.shown_after("s1").for_session(probe, 30)] == ["s0-f1", "s1-f1"]
    reconciler._ended.add("s0-f1")
    assert [f.id for f in reconciler.shown_after("s1").for_session(probe, 30)] == ["s1-f1"]
    assert before.for_session(probe, 0) == []
