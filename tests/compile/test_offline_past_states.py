"""The offline view keeps a person's past jobs and homes: facts a later state superseded are
history, read by the kinds (never a fact a correction superseded)."""

from __future__ import annotations

import json

from uac.compile.ended import past_states


def _chat(path, *sessions):
    lines = [
        {
            "session_id": sid,
            "date": f"{date}T10:00:00",
            "messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted!"}],
        }
        for sid, date, text in sessions
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def _jobs(memory):
    return {job.employer: job for job in memory.state["work"].jobs}


def _two_jobs(memory, tmp_path) -> None:
    chat = _chat(
        tmp_path / "chat.jsonl",
        ("s1", "2026-02-01", "I've been teaching at Sunflower English Centre since August 2023, mostly IELTS."),
        ("s2", "2026-08-12", "Big news: I started at Riverside International School on Monday!"),
    )
    memory.ingest(chat, extractor="rules", compile=False)


def test_a_job_a_later_state_ended_stays_in_the_view_with_its_start(memory, tmp_path):
    _two_jobs(memory, tmp_path)
    valid = memory.facts()
    assert not any("since August 2023" in f.text for f in valid)  # the extractor ended it
    assert [f.text for f in past_states(memory.project, valid)] == [
        t.text for t in memory.facts(include_superseded=True) if "since August 2023" in t.text
    ]
    memory.compile(mode="offline")
    jobs = _jobs(memory)
    assert str(jobs["Sunflower English Centre"].start) == "August 2023"
    assert jobs["Sunflower English Centre"].current is False and jobs["Riverside International School"].current


def test_a_fact_a_correction_superseded_is_no_history(memory, tmp_path):
    chat = _chat(tmp_path / "chat.jsonl", ("s1", "2026-02-01", "I work at Globex Corporation as an analyst."))
    memory.ingest(chat, extractor="rules", compile=False)
    [wrong] = [f for f in memory.facts() if "Globex" in f.text]
    memory.correct("I work at Initech, not Globex.", supersedes=[wrong.id])
    assert past_states(memory.project, memory.facts()) == []
    memory.compile(mode="offline")
    assert "Globex Corporation" not in _jobs(memory)


def test_a_compile_of_facts_that_ended_nothing_reads_no_history(memory, tmp_path):
    _two_jobs(memory, tmp_path)
    assert past_states(memory.project, memory.facts())  # the new job's fact ended the old one
    unrelated = [f for f in memory.facts() if "Riverside" not in f.text]
    assert past_states(memory.project, unrelated) == []
