"""The extraction prompt says the session once: its data block, not a line of prose beside it."""

from __future__ import annotations

from uac.llm.rule_model.request import block_json, session_date
from uac.templating import render_prompt


def _prompt(date_text: str | None) -> str:
    return render_prompt(
        "extract_facts.j2",
        session_id="s7",
        session_date="2024-06-09",
        date_text=date_text,
        speakers=["Thandi", "assistant"],
        known=[],
        context=[],
        turns=[],
    )


def test_the_session_is_said_once_in_its_block():
    prompt = _prompt("6:10 pm on 9 June, 2024")
    assert block_json(prompt, "session") == {
        "id": "s7",
        "date": "2024-06-09",
        "date_as_written": "6:10 pm on 9 June, 2024",
        "speakers": ["Thandi", "assistant"],
    }
    assert prompt.count("s7") == 1 and prompt.count("Thandi") == 1 and prompt.count("6:10 pm") == 1
    assert str(session_date(prompt)) == "2024-06-09"


def test_a_date_written_as_the_session_date_is_not_repeated():
    assert block_json(_prompt("2024-06-09"), "session") == {
        "id": "s7",
        "date": "2024-06-09",
        "speakers": ["Thandi", "assistant"],
    }
