"""Facts keep their dates' precision from a model's reply to search, the sandbox and
the prompts; superseded facts stay findable with their validity; ``as_of`` is when
things were said, ``happened`` when they happened."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from uac.compile.llm_shared import fact_line


def _reply(session_id: str) -> str:
    """What a real model sends back: prose, a fenced block, dates in its own forms."""
    items = {
        "conv-t1_s1": [
            {
                "text": "Caroline went to an LGBTQ support group on 7 May 2023.",
                "evidence": ["D1:3"],
                "event_date": "May 7th, 2023",
                "supersedes": None,
                "speaker": "Caroline",
            },
            {
                "text": "Melanie painted a lake sunrise in 2022.",
                "evidence": ["D1:4"],
                "event_date": "last year",
                "supersedes": None,
                "speaker": "Melanie",
            },
        ],
        "conv-t1_s2": [
            {
                "text": "Melanie lives in Denver.",
                "evidence": ["D2:3"],
                "event_date": None,
                "supersedes": None,
                "speaker": "Melanie",
            },
            {
                "text": "Melanie is moving to Boston in June 2023.",
                "evidence": ["D2:3"],
                "event_date": "June 2023",
                "supersedes": "null",
                "speaker": "Melanie",
            },
            {
                "text": "Melanie went camping with the kids on 23 May 2023.",
                "evidence": ["D2:1"],
                "event_date": {"start": "2023-05-23", "end": "2023-05-23"},
                "supersedes": None,
                "speaker": "Melanie",
            },
        ],
        "conv-t1_s3": [
            {
                "text": "Caroline started a new job as a counselor the week before 2 July 2023.",
                "evidence": ["D3:1"],
                "event_date": "the week before 2 July 2023",
                "supersedes": None,
                "speaker": "Caroline",
            },
            {
                "text": "Melanie moved to Boston.",
                "evidence": ["D3:2"],
                "event_date": "2023-06",
                "supersedes": "Melanie lives in Denver.",
                "speaker": "Melanie",
            },
        ],
    }[session_id]
    return (
        "Sure! Here are the facts I found in this excerpt:\n\n```json\n"
        + json.dumps({"facts": items}, indent=2)
        + "\n```\nLet me know if you need anything else."
    )


@pytest.fixture
def dated(scripted, scripted_memory, locomo_file, embedder):
    def answer(request):
        prompt = next(m.content for m in request.messages if m.role == "user")  # a repair round repeats the list
        if prompt.startswith("Decide what each new fact changes"):
            return {"content": '{"changes": []}'}
        session_id = json.loads(prompt.split("<session>", 1)[1].split("</session>", 1)[0])["id"]
        return {"content": _reply(session_id)}

    scripted.handler = answer
    scripted_memory.ingest(locomo_file, sample_id="conv-t1", extractor="llm")
    return scripted_memory


def _by_text(memory, start):
    [fact] = [f for f in memory.facts(include_superseded=True) if f.text.startswith(start)]
    return fact


@pytest.mark.embeddings
def test_model_dates_become_periods(dated, scripted):
    assert _by_text(dated, "Caroline went to an LGBTQ").event_date.code == "2023-05-07"
    assert _by_text(dated, "Melanie painted").event_date.code == "2022"
    assert _by_text(dated, "Melanie is moving").event_date.render() == "June 2023"
    assert _by_text(dated, "Melanie went camping").event_date.code == "2023-05-23"
    job = _by_text(dated, "Caroline started")
    assert job.event_date.code == "2023-06-25/2023-07-01" and job.event_date.render() == "the week before 2 July 2023"
    assert _by_text(dated, "Melanie lives in Denver").event_date is None
    # the prompt asks for the date's own precision and says what supersession is for
    prompt = scripted.requests[0].messages[-1].content
    assert '"YYYY-MM"' in prompt and "Never invent a day" in prompt
    # (the first session has no earlier facts: no link to guess, the change is stated in the text)
    assert '"supersedes": always null here' in prompt and "state the change plainly" in prompt


@pytest.mark.embeddings
def test_superseded_facts_stay_findable_with_their_validity(dated):
    denver = _by_text(dated, "Melanie lives in Denver")
    assert denver.invalid_at == dt.date(2023, 7, 2) and denver.superseded_by
    hits = dated.search("Where did Melanie live before Boston? Denver", k=10, channel="facts")
    [hit] = [h for h in hits if h.id == denver.id]
    assert hit.invalid_at == "2023-07-02" and hit.validity() == "until 2023-07-02"
    assert set(hit.to_json()) == {"id", "channel", "text", "score", "session_id", "session_date", "evidence"}

    # only as_of filters by time: by when things were said, and what was in force then
    def ids(**kw):
        return {h.id for h in dated.search("Melanie lives Denver Boston", k=20, channel="facts", **kw)}

    assert denver.id not in ids(as_of="2023-07-05")
    assert denver.id in ids(as_of="2023-06-01")
    moved = _by_text(dated, "Melanie moved to Boston")
    assert moved.id not in ids(as_of="2023-06-01")  # said on 2 July: not known yet in June
    assert moved.id in ids() and moved.id in ids(as_of="2023-07-05")


@pytest.mark.embeddings
def test_happened_filters_by_event_period(dated):
    def texts(period):
        return {h.text for h in dated.search("Melanie Caroline", k=20, channel="facts", happened=period)}

    assert texts("2022") == {"Melanie painted a lake sunrise in 2022."}
    assert texts("2023-06") == {
        "Melanie is moving to Boston in June 2023.",
        "Melanie moved to Boston.",
        "Caroline started a new job as a counselor the week before 2 July 2023.",
    }
    # an undated fact happened when it was said
    assert "Melanie lives in Denver." in texts("2023-05-25")
    from uac.errors import InputError

    with pytest.raises(InputError, match="happened"):
        dated.search("x", happened="someday")


@pytest.mark.embeddings
def test_the_sandbox_sees_periods_with_start_and_end(dated):
    code = """
from datetime import date
dated = [f for f in facts if f.event_date is not None]
result = {
    "spans": sorted((f.event_date.code, f.event_date.start.isoformat(), f.event_date.end.isoformat(), f.event_date.precision, str(f.event_date)) for f in dated),
    "before_2023": [f.text for f in dated if f.event_date < date(2023, 1, 1)],
    "in_june": sorted(f.text for f in dated if date(2023, 6, 15) in f.event_date),
    "exact": [f.text for f in dated if f.event_date == date(2023, 5, 7)],
    "superseded": [f.text for f in facts if f.invalid_at is not None],
    "first": str(min(f.event_date for f in dated)),
}
"""
    run = dated.run(code, include_facts=True)
    assert run.ok, run.error
    result = run.to_json()["result"]
    assert ["2022", "2022-01-01", "2022-12-31", "year", "2022"] in result["spans"]
    assert ["2023-06-25/2023-07-01", "2023-06-25", "2023-07-01", "week", "the week before 2 July 2023"] in result[
        "spans"
    ]
    assert result["before_2023"] == ["Melanie painted a lake sunrise in 2022."]
    assert result["in_june"] == ["Melanie is moving to Boston in June 2023.", "Melanie moved to Boston."]
    assert result["exact"] == ["Caroline went to an LGBTQ support group on 7 May 2023."]
    assert result["superseded"] == ["Melanie lives in Denver."]
    assert result["first"] == "2022"
    # a value sent back keeps its stored form
    again = dated.run("result = [f.event_date for f in facts if f.event_date is not None][:2]", include_facts=True)
    assert again.to_json()["result"] == ["2023-05-07", "2022"]


@pytest.mark.embeddings
def test_prompts_show_the_period(dated):
    assert fact_line(_by_text(dated, "Melanie painted")).startswith(
        "[conv-t1_s1-f2] (said 2023-05-08; happened 2022) Melanie:"
    )
    job = fact_line(_by_text(dated, "Caroline started"))
    assert "(said 2023-07-02; happened the week before 2 July 2023)" in job
    exact = fact_line(_by_text(dated, "Caroline went to an LGBTQ"))
    assert "(said 2023-05-08; happened 2023-05-07)" in exact


@pytest.mark.embeddings
def test_the_command_line_shows_validity_and_filters_by_period(dated, capsys):
    from uac.cli import main

    code = main(["search", str(dated.root), "Where did Melanie live? Denver", "--channel", "facts", "--k", "10"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Melanie lives in Denver. (until 2023-07-02)" in out
    assert "Melanie painted a lake sunrise in 2022. (happened 2022)" in out
    code = main(["search", str(dated.root), "Melanie", "--channel", "facts", "--happened", "2022", "--json"])
    results = json.loads(capsys.readouterr().out)["results"]
    assert code == 0 and [r["text"] for r in results] == ["Melanie painted a lake sunrise in 2022."]
    code = main(["search", str(dated.root), "Melanie", "--happened", "soon"])
    err = capsys.readouterr().err
    assert code != 0 and "--happened" in err


@pytest.mark.embeddings
def test_the_reader_sees_periods_and_validity(dated):
    from uac.answer.evidence import EvidenceRetriever

    items = {i.text: i for i in EvidenceRetriever(dated.context, None).search("Melanie Denver painted", "facts", 10)}
    denver = items["Melanie lives in Denver."]
    assert denver.invalid_at == "2023-07-02" and "said 2023-05-25; until 2023-07-02" in denver.line()
    assert "happened 2022" in items["Melanie painted a lake sunrise in 2022."].line()
