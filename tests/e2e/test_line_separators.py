"""Characters that ``str.splitlines()`` takes for line ends (U+2028, U+2029, U+0085, "\\r",
"\\x0b", "\\x0c", "\\x1c"-"\\x1e") are text inside a line of every JSONL and line-oriented
file uac reads: in record values, fact and turn texts, chat exports, transcripts, the
compile history and scripted-model files, the project keeps working."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.compile.report import append_history, read_history
from uac.errors import InputError
from uac.llm.scripted import load_script
from uac.memory import UserMemory
from uac.records.importer import read_records
from uac.sessions import load_sessions
from uac.sessions.reader import parse_jsonl

#: every character str.splitlines() breaks at besides "\n", by a word that names it
SEPARATORS = {
    "linesep": "\u2028",
    "parasep": "\u2029",
    "nextline": "\x85",
    "carriage": "\r",
    "vertab": "\x0b",
    "formfeed": "\x0c",
    "filesep": "\x1c",
    "groupsep": "\x1d",
    "recordsep": "\x1e",
}
#: the three that JSON written with ensure_ascii=False leaves unescaped in a string
RAW_IN_JSON = ("\u2028", "\u2029", "\x85")

TEXT = st.text(alphabet=st.sampled_from(list(SEPARATORS.values()) + ["a", "é", " ", '"', "\\", "\t"]), max_size=12)


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def trip_rows() -> list[dict]:
    """One trip per separator: the city names it (a word to search for), the note holds it."""
    return [
        {"city": f"Town{name}", "note": f"before{char}after {name}", "day": f"2023-01-{number:02d}"}
        for number, (name, char) in enumerate(SEPARATORS.items(), 1)
    ]


@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c"]), TEXT, min_size=1), min_size=1, max_size=5))
@settings(max_examples=60, deadline=None)
def test_jsonl_readers_keep_every_separator_inside_its_line(tmp_path_factory, rows):
    text = jsonl(rows)
    path = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    path.write_bytes(text.encode("utf-8"))
    assert parse_jsonl(text, path) == rows
    assert read_records(path) == (rows, "jsonl")
    crlf = path.with_name("crlf.jsonl")
    crlf.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    assert read_records(crlf) == (rows, "jsonl")


@pytest.mark.embeddings
def test_imported_records_with_separators_stay_searchable_importable_and_forgettable(memory, tmp_path):
    rows = trip_rows()
    listed = tmp_path / "trips.json"  # a JSON list: read whole, as before
    listed.write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    lines = tmp_path / "visits.jsonl"
    lines.write_text(jsonl(rows), "utf-8")
    assert all(char in lines.read_text("utf-8") for char in RAW_IN_JSON)

    assert memory.import_records(listed, domain="travel", collection="trips").records_added == len(rows)
    assert memory.import_records(lines, domain="travel", collection="visits").records_added == len(rows)
    notes = [t.note for t in memory.state["travel"].visits]
    assert notes == [row["note"] for row in rows]  # every character kept, none taken for a line end
    for name in SEPARATORS:
        hits = memory.search(f"Town{name}", channel="records", k=2)
        assert hits and f"Town{name}" in hits[0].text, name
    assert memory.search("Townlinesep", k=5)  # the default search (all channels)
    assert memory.ask("Which towns did I visit?").to_json()["channels"] is not None
    again = memory.import_records(lines, domain="travel", collection="visits")
    assert again.records_added == 0 and again.records_skipped == len(rows)
    report = memory.doctor(deep=True)
    assert report.ok and report.check("records_index").status == "ok", report.check("records_index").detail

    memory.forget(domain="travel", collection="visits")
    assert {h.record["collection"] for h in memory.search("Townlinesep", channel="records", k=20)} == {"trips"}
    memory.forget(domain="travel")
    assert memory.search("Townlinesep", channel="records", k=5) == []
    assert memory.doctor(deep=True).ok


@pytest.mark.slow
@pytest.mark.embeddings
def test_conversations_with_separators_ingest_compile_export_and_ingest_again(memory, tmp_path):
    said = {name: f"I visited Town{name} with Ana{char}it was lovely." for name, char in SEPARATORS.items()}
    export = tmp_path / "chat.jsonl"  # a chat export, one message a line
    export.write_text(jsonl([{"role": "user", "content": text} for text in said.values()]), "utf-8")
    transcript = tmp_path / "talk.txt"
    transcript.write_bytes(("# date: 2024-03-02\n" + "".join(f"Alice: {t}\r\n" for t in said.values())).encode("utf-8"))

    first = memory.ingest(export, date="2024-03-01")
    second = memory.ingest(transcript)
    for report in (first, second):
        [session] = [memory.session(sid) for sid in report.sessions_added]
        assert [t.text for t in session.turns] == list(said.values())
    assert (
        memory.ingest(export, date="2024-03-01").sessions_skipped == first.sessions_added
    )  # the same export again: a no-op
    for name in SEPARATORS:
        hits = memory.search(f"Town{name}", channel="facts", k=3)
        assert hits and f"Town{name}" in hits[0].text, name
    correction = memory.correct("I moved to Townmoved\u2028for good.")
    assert "\u2028" in correction.fact.text
    assert memory.search("Townmoved", channel="facts", k=1)[0].text == correction.fact.text
    assert memory.compile(mode="offline").ok
    assert memory.doctor(deep=True).ok
    facts = sorted((f.id, f.text) for f in memory.facts())

    copy = tmp_path / "copy"
    memory.export(copy)
    restored = UserMemory.open(copy)
    try:
        assert restored.doctor(repair=True).ok
        assert sorted((f.id, f.text) for f in restored.facts()) == facts
        assert (
            restored.search("Townparasep", channel="facts", k=3)[0].text
            == memory.search("Townparasep", channel="facts", k=3)[0].text
        )
        assert restored.doctor(deep=True).ok
    finally:
        restored.close()


def test_a_session_id_with_a_separator_is_refused_clearly(tmp_path):
    for char in SEPARATORS.values():
        path = tmp_path / "chat.json"
        path.write_text(
            json.dumps(
                {"session_id": f"chat{char}1", "date": "2024-03-01", "messages": [{"role": "user", "content": "hi"}]}
            )
        )
        with pytest.raises(InputError, match="session id"):
            load_sessions(path)


def test_the_compile_history_is_rewritten_line_for_line(memory, tmp_path):
    internal = memory.project.paths.internal
    kept = {"domain": "travel", "note": "".join(f"{name}{char}" for name, char in SEPARATORS.items())}
    append_history(internal, kept)
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps({"date": "2024-03-01", "messages": [{"role": "user", "content": "I adopted a cat named Ziggy."}]})
    )
    memory.ingest(chat, extractor="rules")
    fact = memory.facts()[0]
    append_history(internal, {"domain": "pets", "facts": [fact.id]})
    memory.forget(fact=fact.id)  # drops the history line that names the fact, keeps the other whole
    lines = (internal / "compile_history.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])
    assert [{k: v for k, v in entry.items() if k != "ts"} for entry in read_history(memory.project)] == [kept]


def test_scripted_model_files_keep_separators_inside_replies(tmp_path):
    replies = [f"reply {name}{char}end" for name, char in SEPARATORS.items()]
    path = tmp_path / "script.jsonl"
    path.write_text("# a comment line\n" + jsonl([{"content": r} for r in replies]), "utf-8")
    assert [entry["content"] for entry in load_script(path)] == replies
