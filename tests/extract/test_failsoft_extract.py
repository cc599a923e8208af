"""Fail-soft extraction: keep what is valid, coerce the common slips, repair the rest
once, drop and count what stays bad, split cut-off windows, fall back to the rules --
and never stop an ingest because of what a model wrote."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from uac.errors import ContextOverflow
from uac.extract.coerce import KnownFacts, TurnIds, read_date, read_evidence, read_item
from uac.extract.llm import LLMExtractor
from uac.facts.model import Fact
from uac.llm import LLMClient
from uac.sessions import load_sessions

SESSION_DAY = dt.date(2023, 5, 8)
TURNS = TurnIds(("D1:3", "D1:4", "D1:5"), context=("D1:1", "D1:2"))


def fact(text, evidence, event_date=None, supersedes=None, speaker="Caroline"):
    return {"text": text, "evidence": evidence, "event_date": event_date, "supersedes": supersedes, "speaker": speaker}


@pytest.fixture
def session(locomo_file):
    return load_sessions(locomo_file, sample_id="conv-t1")[0]


# --- coercions, one field at a time -----------------------------------------------------------


@pytest.mark.parametrize(
    "value, day, precision",
    [
        ("2023-05-07", dt.date(2023, 5, 7), "day"),
        ("2023-05-07T18:00:00Z", dt.date(2023, 5, 7), "day"),
        ("May 7, 2023", dt.date(2023, 5, 7), "day"),
        ("Sunday, 7 May 2023", dt.date(2023, 5, 7), "day"),
        ("7th of May 2023", dt.date(2023, 5, 7), "day"),
        ("Sept 3 2023", dt.date(2023, 9, 3), "day"),
        ("2023/05/07", dt.date(2023, 5, 7), "day"),
        ("25/05/2023", dt.date(2023, 5, 25), "day"),
        ("May 2023", dt.date(2023, 5, 1), "month"),
        ("2023", dt.date(2023, 1, 1), "year"),
        ("yesterday", dt.date(2023, 5, 7), "day"),
        ("N/A", None, None),
        ("unknown", None, None),
        (None, None, None),
    ],
)
def test_dates_in_the_forms_models_write(value, day, precision):
    reading = read_date(value, SESSION_DAY)
    assert (reading.day, reading.precision, reading.problem) == (day, precision, None)


@pytest.mark.parametrize("value", ["05/06/2023", "summer", "2023-02-30", "the day after the party"])
def test_dates_that_cannot_be_read_are_problems(value):
    assert read_date(value, SESSION_DAY).problem


@pytest.mark.parametrize(
    "value, ids, dropped",
    [
        (["D1:3"], ["D1:3"], []),
        ("D1:4", ["D1:4"], []),
        ("D1:3, D1:5", ["D1:3", "D1:5"], []),
        ("D1:3-D1:5", ["D1:3", "D1:4", "D1:5"], []),
        ("D1:3 to D1:4", ["D1:3", "D1:4"], []),
        (["[D1:4]", "(D1:5)"], ["D1:4", "D1:5"], []),
        ([4, "5"], ["D1:4", "D1:5"], []),
        (["d1:3"], ["D1:3"], []),
        (["D1:2", "D1:3"], ["D1:3"], ["D1:2"]),
        (["D1:1"], [], ["D1:1"]),
        (["D9:9"], [], []),
        ({"turn": "D1:3"}, [], []),
    ],
)
def test_evidence_in_the_forms_models_write(value, ids, dropped):
    reading = read_evidence(value, TURNS)
    assert (reading.ids, reading.dropped_context) == (ids, dropped)


def test_turn_ids_with_dashes_are_not_ranges():
    turns = TurnIds(("s1-t1", "s1-t2", "s1-t3"))
    assert read_evidence("s1-t1-s1-t3", turns).ids == ["s1-t1", "s1-t2", "s1-t3"]
    assert read_evidence(["s1-t2"], turns).ids == ["s1-t2"]


def test_read_item_keeps_coerces_and_reports():
    known = KnownFacts([Fact("old-f1", "Caroline lives in Denver.", "old", dt.date(2023, 1, 1), ("D0:1",))])
    good = read_item(fact("A.", "D1:3", "May 7, 2023", "[old-f1]"), "facts[0]", TURNS, known, SESSION_DAY)
    assert good.fact.evidence == ("D1:3",) and good.fact.event_date == dt.date(2023, 5, 7)
    assert good.fact.supersedes == "old-f1" and good.coerced == ["event_date", "evidence", "supersedes"]
    # a proposed link is settled at the commit: its reading leaves no mark on the fact
    assert good.fact.meta["coerced"] == ["event_date", "evidence"]
    bad_date = read_item(fact("B.", ["D1:3"], "summer"), "facts[1]", TURNS, known, SESSION_DAY)
    assert bad_date.fact is None and "facts[1].event_date 'summer'" in bad_date.problem
    cleared = read_item(fact("B.", ["D1:3"], "summer"), "facts[1]", TURNS, known, SESSION_DAY, final=True)
    assert cleared.fact.event_date is None and cleared.fact.meta["cleared"] == ["event_date"]
    context_only = read_item(fact("C.", ["D1:1"]), "facts[2]", TURNS, known, SESSION_DAY, final=True)
    assert context_only.fact is None and "context turns" in context_only.problem
    for item in ("just text", fact("", ["D1:3"]), fact(None, ["D1:3"])):
        assert read_item(item, "facts[3]", TURNS, known, SESSION_DAY, final=True).fact is None
    number = read_item(fact(42, ["D1:3"], speaker=7), "facts[4]", TURNS, known, SESSION_DAY)
    assert (number.fact.text, number.fact.speaker) == ("42", "7")


# --- the extractor --------------------------------------------------------------------------


def test_one_bad_item_does_not_cost_the_window(scripted, scripted_llm, session):
    first = {
        "facts": [
            fact("Caroline went to a support group on 7 May 2023.", "D1:3", "May 7, 2023"),
            fact("Melanie painted a lake sunrise.", ["[D1:4]"], "N/A", speaker="Melanie"),
            fact("Melanie said hello.", ["D9:1"], speaker="Melanie"),
        ]
    }
    repair = {"facts": [fact("Melanie greeted Caroline.", ["D1:2"], speaker="Melanie")]}
    scripted.enqueue({"content": "Here it is:\n```json\n" + json.dumps(first) + "\n```"}, {"json": repair})
    extractor = LLMExtractor(scripted_llm)
    facts = extractor.extract(session)
    assert [f.text for f in facts] == [
        "Melanie greeted Caroline.",
        "Caroline went to a support group on 7 May 2023.",
        "Melanie painted a lake sunrise.",
    ]
    asked = scripted.requests[1].messages[-1].content
    assert "facts[2].evidence" in asked and "D9:1" in asked and "only the corrected versions" in asked
    assert "facts[0]" not in asked and "facts[1]" not in asked
    stats = extractor.stats.to_json()
    assert {k: stats[k] for k in ("items", "kept", "coerced", "repaired", "dropped", "repair_calls")} == {
        "items": 3,
        "kept": 3,
        "coerced": 2,
        "repaired": 1,
        "dropped": 0,
        "repair_calls": 1,
    }


def test_items_still_bad_after_the_repair_are_dropped_and_counted(scripted, scripted_llm, session):
    reply = {"facts": [fact("Caroline went to a support group.", ["D1:3"]), fact("Nobody said this.", ["D7:7"])]}
    scripted.enqueue({"json": reply}, {"json": reply})
    extractor = LLMExtractor(scripted_llm)
    assert [f.text for f in extractor.extract(session)] == ["Caroline went to a support group."]
    assert (extractor.stats.kept, extractor.stats.dropped, extractor.stats.repaired) == (1, 1, 0)
    assert any("D7:7" in p for p in extractor.stats.problems)


def test_a_cut_off_window_is_split_and_retried(scripted, scripted_llm, session):
    def reply(request):
        turns = [
            line.split("]")[0][1:]
            for line in request.messages[-1].content.split("Turns to extract from:")[1].splitlines()
            if line.startswith("[")
        ]
        if len(turns) > 2:
            return {"content": '{"facts": [{"text": "Caroline went', "finish_reason": "length"}
        return {"json": {"facts": [fact(f"Something said in {t}.", [t]) for t in turns]}}

    scripted.handler = reply
    extractor = LLMExtractor(scripted_llm, context_turns=1)
    facts = extractor.extract(session)
    assert [f.evidence[0] for f in facts] == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5"]
    assert extractor.stats.windows_split == 2 and extractor.stats.windows == 3
    assert "Earlier turns (context only, do not cite)" in scripted.requests[-1].messages[-1].content


def test_a_single_turn_cut_off_falls_back_to_the_rules(scripted, scripted_llm, session):
    scripted.handler = lambda request: {"content": '{"facts": [', "finish_reason": "length"}
    extractor = LLMExtractor(scripted_llm)
    facts = extractor.extract(session)
    assert facts and {f.meta["extractor"] for f in facts} == {"rules"}
    assert extractor.stats.windows_fallback == 5 and extractor.stats.windows_split == 4


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "\x00\x07\x1b" * 50,
        '{"facts": ' + '"x" ' * 260_000 + "}",
        {"json": {"facts": "none"}},
        {"json": [1, 2, 3]},
        {"json": {"facts": [{"text": ["a"], "evidence": 3.5}]}},
        {"tool_calls": [{"name": "nonsense", "arguments": "not json"}], "content": None},
    ],
)
def test_whatever_a_model_returns_an_ingest_completes(
    scripted, scripted_llm, scripted_memory, locomo_file, embedder, garbage
):
    scripted.handler = lambda request: garbage
    report = scripted_memory.ingest(locomo_file, sample_id="conv-t1", extractor="llm")
    assert len(report.sessions_added) == 3 and report.facts_appended > 0
    extraction = report.to_json()["extraction"]
    assert extraction["windows_fallback"] == 3 and extraction["fallback_facts"] == report.facts_appended
    assert all(f.meta.get("fallback") for f in scripted_memory.facts())
    assert report.to_json()["usage"]["calls"] == 6  # one call and one repair per session
    echoed = scripted.requests[1].messages[-2].content
    assert len(echoed) < 21_000  # a huge or binary reply is not sent back whole


def test_the_ingest_report_counts_tokens_and_cache_hits(tmp_path, locomo_file, embedder):
    from uac.llm import ResponseCache, ScriptedProvider
    from uac.memory import UserMemory

    def reply(request):
        first = request.messages[-1].content.split("Turns to extract from:")[1].split("[")[1].split("]")[0]
        return {
            "json": {"facts": [fact(f"Said at {first}.", [first])]},
            "usage": {"prompt_tokens": 100, "completion_tokens": 10},
        }

    cache = ResponseCache(tmp_path / "cache.sqlite")
    first = UserMemory.create(tmp_path / "a", llm=LLMClient(ScriptedProvider(handler=reply), cache=cache))
    report = first.ingest(locomo_file, sample_id="conv-t1", extractor="llm").to_json()
    first.close()
    assert report["usage"]["prompt_tokens"] == 300 and report["usage"]["cached"]["calls"] == 0
    again = UserMemory.create(tmp_path / "b", llm=LLMClient(ScriptedProvider(handler=reply), cache=cache))
    report = again.ingest(locomo_file, sample_id="conv-t1", extractor="llm").to_json()
    again.close()
    cache.close()
    assert report["usage"]["prompt_tokens"] == 0
    assert report["usage"]["cached"] == {"calls": 3, "prompt_tokens": 300, "completion_tokens": 30}


def test_a_cut_prompt_stops_the_ingest_and_writes_nothing_of_that_session(tmp_path, locomo_file, embedder):
    from tests.fixtures.fake_openai_server import FakeOpenAIServer, completion
    from uac.config import LLMConfig
    from uac.llm import resolve_settings
    from uac.llm.openai_provider import OpenAIProvider
    from uac.memory import UserMemory

    good = json.dumps({"facts": [fact("Caroline went to a support group.", ["D1:3"])]})
    with FakeOpenAIServer() as fake:
        fake.reply(completion(good, prompt_tokens=900))
        fake.reply(completion(good, prompt_tokens=20))
        settings = resolve_settings(LLMConfig(provider="openai", model="m", base_url=fake.base_url), env={})
        memory = UserMemory.create(tmp_path / "p", llm=LLMClient(OpenAIProvider(settings), limits=settings.limits))
        session_one, session_two = load_sessions(locomo_file, sample_id="conv-t1")[:2]
        memory.add_session(session_one, extractor="llm")
        long_two = type(session_two)(
            session_two.session_id,
            session_two.date,
            session_two.date_text,
            tuple(type(t)(t.turn_id, t.speaker, t.text + " and then" * 300) for t in session_two.turns),
        )
        with pytest.raises(ContextOverflow, match="num_ctx"):
            memory.add_session(long_two, extractor="llm")
    memory.close()
    assert [s.session_id for s in memory.sessions()] == [session_one.session_id]
    assert {f.session_id for f in memory.facts()} == {session_one.session_id}
