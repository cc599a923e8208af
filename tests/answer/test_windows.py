"""Overlapping archive windows of one session reach the reader as one excerpt."""

from __future__ import annotations

import datetime as dt

from uac.answer.model import EvidenceItem
from uac.answer.windows import merge_windows
from uac.sessions.model import Session, Turn

SESSION = Session(
    "s1",
    dt.date(2024, 6, 9),
    "2024-06-09",
    tuple(Turn(f"s1:{n}", "Thandi" if n % 2 else "assistant", f"turn {n}\nsecond line") for n in range(1, 9)),
)


def window(number: int, first: int, last: int, score: float, session: str = "s1") -> EvidenceItem:
    turns = tuple(f"{session}:{n}" for n in range(first, last + 1))
    return EvidenceItem(f"{session}/c{number}", "archive", "(as indexed)", score, session, "2024-06-09", turns)


def read(session_id: str) -> Session | None:
    return SESSION if session_id == "s1" else None


def test_overlapping_windows_become_one_excerpt_where_the_best_ranked():
    other = window(1, 1, 3, 0.8, session="s2")
    items = [window(3, 3, 5, 0.9), other, window(1, 1, 3, 0.7), window(6, 6, 8, 0.5)]
    merged = merge_windows(items, read)
    assert [m.id for m in merged] == ["s1/c1+c3", "s2/c1", "s1/c6"]
    first = merged[0]
    assert first.evidence == ("s1:1", "s1:2", "s1:3", "s1:4", "s1:5") and first.score == 0.9
    assert first.text.count("turn 3") == 1 and first.text.startswith("Thandi: turn 1\nsecond line\nassistant: turn 2")
    assert merged[1] is other and merged[2].text == "(as indexed)"  # alone: as retrieved


def test_a_window_that_bridges_two_groups_joins_them():
    merged = merge_windows([window(1, 1, 3, 0.9), window(5, 5, 7, 0.8), window(3, 3, 5, 0.1)], read)
    assert [m.id for m in merged] == ["s1/c1+c3+c5"]
    assert merged[0].evidence == tuple(f"s1:{n}" for n in range(1, 8))


def test_an_unreadable_session_keeps_its_windows_as_they_were():
    items = [window(1, 1, 3, 0.9, session="s2"), window(2, 2, 4, 0.8, session="s2")]
    assert merge_windows(items, read) == items


def test_the_reader_prompt_shows_each_turn_once(sample_project):
    import re

    from uac.memory import UserMemory

    memory = UserMemory.open(sample_project)
    try:
        answer = memory.ask("When did Maya plan the Kyoto trip and with whom?", top_archive=8, include_context=True)
    finally:
        memory.close()
    archive = answer.context.split("<archive>\n", 1)[1].split("</archive>", 1)[0]
    turns = [t for line in re.findall(r"\| turns ([^\]]+)\]", archive) for t in line.split(", ")]
    assert len(turns) > 3 and len(turns) == len(set(turns))
