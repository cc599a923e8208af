"""What the extraction prompt tells a model: weekdays by tense, the assistant's own words are no
facts, and with no earlier facts shown, no "supersedes" to guess (a capable model asked to link
against "the known facts below" with none below guessed)."""

from __future__ import annotations

from types import SimpleNamespace

from uac.templating import render_prompt


def _render(known):
    turn = SimpleNamespace(turn_id="t1", speaker="Hannah", full_text="Back from Lisbon on Saturday!")
    return render_prompt(
        "extract_facts.j2",
        session_id="s1",
        session_date="2024-05-14",
        date_text=None,
        speakers=["Hannah", "assistant"],
        known=known,
        context=[],
        turns=[turn],
    )


def test_without_known_facts_supersedes_is_null_and_no_list_is_promised():
    text = _render([])
    assert '"supersedes": always null here. No earlier facts are shown' in text
    assert '"supersedes": null, "speaker"' in text and "[fact id]" not in text  # the reply's outline agrees
    assert "Known facts" not in text and "known facts below" not in text  # no rule pointing at a missing list
    assert '\n- "speaker" is the person who stated the fact.' in text


def test_with_known_facts_the_list_is_shown_and_no_null_instruction():
    text = _render([SimpleNamespace(id="s0-f1", text="Hannah works at Kestrel.")])
    assert "[s0-f1] Hannah works at Kestrel." in text
    assert "known facts below" in text and "always null here" not in text
    assert '"supersedes": [fact id], "speaker"' in text
    assert '\n- "speaker" is the person who stated the fact.' in text


def test_weekdays_and_the_assistants_words():
    text = _render([])
    assert "A weekday points back for something that happened" in text
    assert "An AI assistant's own suggestions, questions and pleasantries are no facts" in text


def test_a_plan_has_an_event_date_too():
    assert "or is to happen for a plan or a deadline" in _render([])
