"""End to end through UserMemory and the CLI: ingest, re-ingest, search, as-of,
forget, doctor and repair, bad input leaving the project unchanged."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

from tests.fixtures.conversations import tree_hash
from uac.cli import main
from uac.errors import FactNotFound, InputError, ModelNotConfigured, SessionNotFound
from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings


@pytest.fixture
def ingested(memory, locomo_file, embedder):
    report = memory.ingest(locomo_file, sample_id="conv-t1")
    return memory, report


def test_ingest_report_archive_and_log(ingested):
    memory, report = ingested
    assert report.extractor == "rules"
    assert report.sessions_added == ["conv-t1_s1", "conv-t1_s2", "conv-t1_s3"]
    assert report.facts_appended == len(memory.facts()) > 5
    assert report.chunks_indexed > 0
    assert {s.session_id for s in memory.sessions()} == set(report.sessions_added)
    session = memory.session("conv-t1_s1")
    assert session.turn("D1:4").image_caption.startswith("a photo of a painting")
    assert (memory.root / "memory" / "sessions" / "conv-t1_s1.json").is_file()
    fact = next(f for f in memory.facts() if f.evidence == ("D1:3",))
    assert fact.session_date == dt.date(2023, 5, 8) and fact.event_date == dt.date(2023, 5, 7)


def test_reingest_is_a_noop(ingested, locomo_file, capsys):
    memory, _ = ingested
    before = tree_hash(memory.root / "memory")
    again = memory.ingest(locomo_file, sample_id="conv-t1")
    assert again.skipped and again.facts_appended == 0 and again.sessions_added == []
    assert tree_hash(memory.root / "memory") == before
    assert main(["ingest", str(memory.root), str(locomo_file), "--sample-id", "conv-t1"]) == 0
    assert "Already ingested" in capsys.readouterr().out
    assert main(["ingest", str(memory.root), str(locomo_file), "--sample-id", "conv-t1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["skipped"] is True and data["facts_appended"] == 0


def test_search_finds_the_evidence(ingested):
    memory, _ = ingested
    hits = memory.search("When did Caroline go to the LGBTQ support group?", k=5, channel="facts")
    assert hits[0].evidence == ("D1:3",)
    assert hits[0].channel == "facts" and hits[0].session_id == "conv-t1_s1"
    archive = memory.search("Melanie's cat", k=3, channel="archive")
    assert all(h.channel == "archive" for h in archive)
    assert "D2:3" in archive[0].evidence
    both = memory.search("Oliver the cat", k=10)
    assert {h.channel for h in both} == {"facts", "archive"}
    scores = [h.score for h in both]
    assert scores == sorted(scores, reverse=True)


def test_search_json_shape_through_the_cli(ingested, capsys):
    memory, _ = ingested
    code = main(["search", str(memory.root), "pottery class", "--k", "4", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["results"]
    assert 0 < len(data["results"]) <= 4
    for hit in data["results"]:
        assert list(hit) == ["id", "channel", "text", "score", "session_id", "session_date", "evidence"]
        assert hit["channel"] in ("facts", "archive")
        assert isinstance(hit["evidence"], list)
    assert data["results"][0]["evidence"] == ["D3:2"]
    assert main(["search", str(memory.root), "pottery", "--channel", "nope"]) == 2
    assert "unknown channel" in capsys.readouterr().err


def test_as_of_hides_later_sessions(ingested):
    memory, _ = ingested
    hits = memory.search("pottery class", k=20, channel="all", as_of="2023-06-01")
    assert hits and all(h.session_date <= "2023-06-01" for h in hits)
    assert all(f.session_date <= dt.date(2023, 6, 1) for f in memory.facts(as_of="2023-06-01"))
    with pytest.raises(InputError, match="not a date"):
        memory.search("x", as_of="yesterday")


def test_search_many_is_search_for_each_query(ingested):
    memory, _ = ingested
    queries = ["When did Caroline go to the LGBTQ support group?", "Melanie's cat", "pottery class"]
    for channel in ("facts", "archive", "all"):
        batched = memory.search_many(queries, k=5, channel=channel, as_of="2023-07-15")
        one_by_one = [memory.search(q, k=5, channel=channel, as_of="2023-07-15") for q in queries]
        assert [[h.id for h in hits] for hits in batched] == [[h.id for h in hits] for hits in one_by_one]
    assert batched[0] and memory.search_many([]) == []
    with pytest.raises(InputError, match="unknown channel"):
        memory.search_many(queries, channel="nope")


def test_llm_ingest_with_supersession_and_as_of(scripted, scripted_memory, tmp_path, embedder):
    first = tmp_path / "one.txt"
    first.write_text("# date: 2024-01-10\nAlice: I live in Denver and work as a nurse.\n", "utf-8")
    second = tmp_path / "two.txt"
    second.write_text("# date: 2024-03-05\nAlice: I moved to Boston last week.\n", "utf-8")
    scripted.enqueue(
        {
            "json": {
                "facts": [
                    {
                        "text": "Alice lives in Denver.",
                        "evidence": [],
                        "event_date": None,
                        "supersedes": None,
                        "speaker": "Alice",
                    },
                ]
            }
        },
    )
    memory = scripted_memory
    with pytest.raises(Exception, match="invalid output twice|no response left"):
        memory.ingest(first)  # empty evidence: repair round finds the script exhausted
    assert memory.facts() == []  # nothing committed
    sessions = __import__("uac.sessions", fromlist=["load_sessions"]).load_sessions(first)
    turn = sessions[0].turns[0].turn_id
    scripted.enqueue(
        {
            "json": {
                "facts": [
                    {
                        "text": "Alice lives in Denver.",
                        "evidence": [turn],
                        "event_date": None,
                        "supersedes": None,
                        "speaker": "Alice",
                    },
                    {
                        "text": "Alice works as a nurse.",
                        "evidence": [turn],
                        "event_date": None,
                        "supersedes": None,
                        "speaker": "Alice",
                    },
                ]
            }
        },
    )
    report = memory.ingest(first)
    assert report.extractor == "llm" and report.facts_appended == 2
    denver = next(f for f in memory.facts() if "Denver" in f.text)
    turn2 = __import__("uac.sessions", fromlist=["load_sessions"]).load_sessions(second)[0].turns[0].turn_id
    scripted.enqueue(
        {
            "json": {
                "facts": [
                    {
                        "text": "Alice moved to Boston in the week of 26 February 2024.",
                        "evidence": [turn2],
                        "event_date": "2024-02-26",
                        "supersedes": denver.id,
                        "speaker": "Alice",
                    },
                ]
            }
        },
    )
    report = memory.ingest(second)
    assert report.supersessions == 1
    assert denver.id in scripted.requests[-1].messages[-1].content  # shown as a known fact
    now = memory.facts()
    assert [f.text for f in now] == [
        "Alice works as a nurse.",
        "Alice moved to Boston in the week of 26 February 2024.",
    ]
    history = {f.id: f for f in memory.facts(include_superseded=True)}
    assert history[denver.id].invalid_at == dt.date(2024, 3, 5)
    assert history[denver.id].superseded_by.endswith("-f1")
    assert [f.text for f in memory.facts(as_of="2024-02-01")] == ["Alice lives in Denver.", "Alice works as a nurse."]
    hits = memory.search("Where does Alice live?", channel="facts")
    assert any(h.text.startswith("Alice moved to Boston") for h in hits[:2])
    # the past stays findable, marked with the day it stopped being true
    assert [h.invalid_at for h in hits if h.text == "Alice lives in Denver."] == ["2024-03-05"]
    assert all(h.invalid_at is None for h in hits if h.text.startswith("Alice moved to Boston"))
    where_then = [h.text for h in memory.search("Where does Alice live?", channel="facts", as_of="2024-02-01")]
    assert "Alice lives in Denver." in where_then[:2]
    assert all("Boston" not in t for t in where_then)


def test_forced_llm_without_model(memory, transcript_file):
    with pytest.raises(ModelNotConfigured):
        memory.ingest(transcript_file, extractor="llm")


def test_forget_fact_and_session(ingested, capsys):
    memory, _ = ingested
    cat = next(f for f in memory.facts() if "Oliver" in f.text)
    assert main(["forget", str(memory.root), "--fact", cat.id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["facts_removed"] == [cat.id]
    assert cat.id not in {f.id for f in memory.facts()}
    assert cat.id not in {h.id for h in memory.search("Oliver the cat", k=50, channel="facts")}
    report = memory.forget(session="conv-t1_s1")
    assert report.archive_deleted and report.sessions_removed == ["conv-t1_s1"]
    assert not any(f.session_id == "conv-t1_s1" for f in memory.facts())
    assert all(h.session_id != "conv-t1_s1" for h in memory.search("LGBTQ support group", k=50))
    # nothing of the forgotten session is left anywhere in the project, and the
    # forgotten fact's text is gone (its raw turn stays in the archive: only the fact was forgotten)
    assert "I have a cat named Oliver" in memory.session("conv-t1_s2").turn("D2:3").text
    for path in memory.root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"support group" not in data, path
            assert cat.text.encode() not in data, path
    assert memory.doctor().check("indexes").status == "ok"
    with pytest.raises(FactNotFound, match="no fact 'nope'") as missing:
        memory.forget(fact="nope")
    assert str(memory.root) not in str(missing.value)
    with pytest.raises(SessionNotFound, match="no session 'nope'"):
        memory.forget(session="nope")
    with pytest.raises(InputError, match="exactly one"):
        memory.forget()


def test_doctor_repair_after_deleting_the_internal_dir(ingested):
    memory, _ = ingested
    assert memory.doctor().check("indexes").status == "ok"
    assert memory.doctor().check("fact_log").status == "ok"
    query = "What did Melanie sign up for?"
    before = [(h.id, round(h.score, 6)) for h in memory.search(query, k=10)]
    shutil.rmtree(memory.root / ".uac")
    fresh = UserMemory.open(memory.root)
    assert fresh.doctor().check("indexes").status == "fail"
    report = fresh.doctor(repair=True)
    assert report.check("indexes").status == "ok" and report.check("indexes").repaired

    def same(results):  # same hits with the same scores (equal-scored hits may swap places)
        return sorted(results) == sorted(before) and [s for _, s in results] == [s for _, s in before]

    assert same([(h.id, round(h.score, 6)) for h in fresh.search(query, k=10)])
    # the original object (whose client saw the directory vanish) also recovers
    assert memory.doctor(repair=True).check("indexes").status == "ok"
    assert same([(h.id, round(h.score, 6)) for h in memory.search(query, k=10)])


def test_doctor_notices_an_index_behind_the_log(ingested):
    memory, _ = ingested
    memory.index.channel("facts").remove([memory.facts()[0].id])
    result = memory.doctor().check("indexes")
    assert result.status == "fail" and "not indexed" in result.detail


def test_doctor_reports_torn_log(ingested):
    memory, _ = ingested
    path = memory.project.paths.facts
    path.write_bytes(path.read_bytes() + b'{"kind":"fact","id":"x')
    result = memory.doctor().check("fact_log")
    assert result.status == "warn" and "incomplete" in result.detail
    lines = path.read_bytes().split(b"\n")
    lines[0] = lines[0].replace(b"Melanie", b"Melania", 1)
    path.write_bytes(b"\n".join(lines))
    result = memory.doctor().check("fact_log")
    assert result.status == "fail" and "line 1" in result.detail


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("bad.json", b'{"date": "2024-01-01", "messages": [}', "not valid JSON"),
        ("latin.txt", "# date: 2024-01-01\nAnn: caf\xe9\n".encode("latin-1"), "not UTF-8"),
        ("nodate.txt", b"Ann: I like tea.\n", "no date"),
        ("empty.json", b'{"date": "2024-01-01", "messages": []}', "empty session"),
        (
            "huge.json",
            json.dumps({"date": "2024-01-01", "messages": [{"role": "user", "content": "a" * 5_000_000}]}).encode(),
            "characters",
        ),
        ("odd.json", b'{"x": 1}', "neither"),
    ],
)
def test_bad_input_changes_nothing(ingested, tmp_path, name, content, message, capsys):
    memory, _ = ingested
    path = tmp_path / name
    path.write_bytes(content)
    before = tree_hash(memory.root)
    with pytest.raises(InputError, match=message):
        memory.ingest(path)
    assert main(["ingest", str(memory.root), str(path)]) == 2
    assert str(path) in capsys.readouterr().err
    assert tree_hash(memory.root) == before


def test_messages_and_transcript_ingest(memory, messages_file, transcript_file, embedder):
    one = memory.ingest(messages_file)
    two = memory.ingest(transcript_file)
    assert one.format == "messages" and two.format == "transcript"
    texts = [f.text for f in memory.facts()]
    assert "Alice adopted a puppy called Biscuit yesterday (on 29 February 2024)." in texts
    assert any("Alice ran a half marathon last Sunday (on 25 February 2024)" in t for t in texts)
    hit = memory.search("What is the puppy called?", k=1, channel="facts")[0]
    assert "Biscuit" in hit.text
    assert memory.ingest(messages_file).skipped
