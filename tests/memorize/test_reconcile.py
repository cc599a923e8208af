"""Reconcile at commit: sessions extracted side by side write the log a sequential ingest writes."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

import pytest

from tests.compile.helpers import session_of
from tests.memorize.reconcile_model import Jittery, RealisticModel, locomo
from uac.fsutil import read_utf8, split_lines
from uac.llm import LLMClient
from uac.memory import UserMemory


def log_rows(root: Path) -> list[dict]:
    rows = [json.loads(line) for line in split_lines(read_utf8(root / "memory" / "facts.jsonl")) if line.strip()]
    return [
        {k: v for k, v in row.items() if row.get("kind") != "commit" or k not in ("committed_at", "checksum")}
        for row in rows
    ]


def ingest(root: Path, source: Path, model, *, parallel_sessions: int | None, concurrency: int = 4, seed: int = 0):
    provider = Jittery(model, seed=seed)
    memory = UserMemory.create(
        root, user_name="Maya", llm=LLMClient(provider, concurrency=concurrency, sleep=lambda _s: None)
    )
    try:
        if parallel_sessions is not None:
            config = memory.project.config
            memory.project.save_config(config.with_section("extract", parallel_sessions=parallel_sessions))
        report = memory.ingest(source, extractor="llm")
    finally:
        memory.close()
    return report, provider


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(locomo()), "utf-8")
    return path


def test_side_by_side_ingest_writes_the_log_of_a_sequential_ingest(tmp_path, source):
    sequential_model, parallel_model = RealisticModel(), RealisticModel()
    sequential, _ = ingest(tmp_path / "seq", source, sequential_model, parallel_sessions=1)
    parallel, provider = ingest(
        tmp_path / "par", source, parallel_model, parallel_sessions=None, seed=3
    )  # the defaults
    assert provider.peak >= 3  # the sessions' calls really ran side by side

    rows = log_rows(tmp_path / "par")
    assert rows == log_rows(tmp_path / "seq")

    # what the sequential extraction saw and the side-by-side one did not: the session before
    assert any(
        "[rec_s1-f1] Maya works at Acme Corp" in p for p in sequential_model.prompts if session_of(p) == "rec_s2"
    )
    assert not any(
        "[rec_s1-f1]" in p for p in parallel_model.prompts if p.startswith("Extract") and session_of(p) == "rec_s2"
    )

    facts = {r["id"]: r for r in rows if r["kind"] == "fact"}
    by_text = {r["text"]: r["id"] for r in facts.values()}
    links = [
        (r["id"], r["superseded_by"], r["invalid_at"], r.get("relation")) for r in rows if r["kind"] == "supersede"
    ]
    ids = lambda old, new: (by_text[old], by_text[new])  # noqa: E731
    assert links == [
        (
            *ids("Maya works at Acme Corp as an engineer.", "Maya just started at Initech as a designer."),
            "2023-05-08",
            "supersedes",
        ),
        (*ids("Maya lives in Lisbon by the river.", "Maya moved to Porto in May 2023."), "2023-05-22", "supersedes"),
        (
            *ids(
                "Maya is planning a trip to Kyoto in June 2023 to see the temples.",
                "Maya went to Kyoto in June 2023 and found the temples amazing.",
            ),
            None,
            "fulfils",
        ),
        (
            *ids(
                "Maya plans to run the Berlin marathon in September 2023.",
                "Maya cancelled the Berlin marathon because her knee hurts.",
            ),
            "2023-07-06",
            "cancels",
        ),
        # a misstated fact was never in force: it ends where it began (said on 6 July, put
        # right on 13 July), and the statement that corrects it holds from then on
        (
            *ids("Maya's sister Lena is a nurse in Porto.", "Maya's sister Lena is actually a doctor, not a nurse."),
            "2023-07-06",
            "corrects",
        ),
    ]
    assert facts[by_text["Maya's sister Lena is actually a doctor, not a nurse."]]["valid_from"] == "2023-07-06"
    # ids and order: every session's facts numbered from 1, the sessions in input order
    commits = [r["session_id"] for r in rows if r["kind"] == "commit"]
    assert commits == [f"rec_s{n}" for n in range(1, 8)]
    assert [i for i in facts if i.startswith("rec_s4-")] == ["rec_s4-f1", "rec_s4-f2"]

    # the replies' forms were met: a repair round (s3), a split window (s4); the calls are counted
    assert parallel.extraction["repair_calls"] == sequential.extraction["repair_calls"] == 1
    assert parallel.extraction["windows_split"] == 1
    block = parallel.reconcile
    assert block["links"] == {"rules": 2, "model": 3, "proposed": 0}
    assert block["relations"] == {"cancels": 1, "corrects": 1, "fulfils": 1, "supersedes": 2}
    assert block["calls"] == 4 and block["unreadable"] == 0 and block["dropped_total"] == 0  # one repair round (s6)
    assert block["usage"]["calls"] == block["calls"] and block["usage"]["prompt_tokens"] > 0
    assert parallel.usage.calls >= block["calls"] + 7
    assert sequential.reconcile["links"]["model"] == 3  # the model's pairs, whatever the extraction proposed

    memory = UserMemory.open(tmp_path / "par")
    try:
        now = {f.text for f in memory.facts()}
        assert (
            "Maya just started at Initech as a designer." in now
            and "Maya works at Acme Corp as an engineer." not in now
        )
        assert "Maya is planning a trip to Kyoto in June 2023 to see the temples." in now  # a plan that came true stays
        assert "Maya plans to run the Berlin marathon in September 2023." not in now
        before = {f.text for f in memory.facts(as_of=dt.date(2023, 7, 1))}
        assert "Maya plans to run the Berlin marathon in September 2023." in before
    finally:
        memory.close()


class BadReconcile(RealisticModel):
    """The realistic model, whose reconcile replies for session 7 name a fact that does not
    exist and a later fact, and for session 6 stop at the token limit after one whole pair."""

    def __call__(self, request):
        entry = super().__call__(request)
        prompt = next(m.content for m in request.messages if m.role == "user")
        if not prompt.startswith("Decide what each new fact changes"):
            return entry
        number = int((session_of(prompt) or "")[len("rec_s") :])
        if number == 7:
            value = {
                "changes": [
                    {"new": "rec_s7-f1", "old": "rec_s6-f9", "relation": "corrects"},  # no such fact
                    {"new": "rec_s7-f1", "old": "rec_s7-f1", "relation": "supersedes"},  # itself
                    {"new": "rec_s7-f1", "old": "rec_s6-f2", "relation": "corrected"},  # valid (a synonym)
                    {"new": "rec_s7-f1", "old": "rec_s5-f1", "relation": "replaced by magic"},  # unknown relation
                ]
            }
            return {"content": "<think>Checking each pair.</think>\nHere you go:\n" + json.dumps(value)}
        if number == 6:
            value = {
                "changes": [
                    {"new": "rec_s6-f1", "old": "rec_s5-f2", "relation": "cancels"},
                    {"new": "rec_s6-f1", "old": "rec_s7-f1", "relation": "supersedes"},  # a fact of a later session
                    {"new": "rec_s6-f2", "old": "rec_s4-f2", "relation": "supersedes"},
                ]
            }
            text = "```json\n" + json.dumps(value, indent=1)
            return {"content": text[: text.index("rec_s4-f2") - 3], "finish_reason": "length"}
        return entry


def test_bad_reconcile_replies_keep_the_valid_pairs_and_count_the_rest(tmp_path, source):
    good, _ = ingest(tmp_path / "good", source, RealisticModel(), parallel_sessions=None)
    bad, _ = ingest(tmp_path / "bad", source, BadReconcile(), parallel_sessions=None)
    rows = log_rows(tmp_path / "bad")
    facts = [r for r in rows if r["kind"] == "fact"]
    assert [r["id"] for r in facts] == [
        r["id"] for r in log_rows(tmp_path / "good") if r["kind"] == "fact"
    ]  # no fact lost
    links = [(r["id"], r["superseded_by"], r.get("relation")) for r in rows if r["kind"] == "supersede"]
    assert ("rec_s5-f2", "rec_s6-f1", "cancels") in links  # kept from the cut-off reply
    assert ("rec_s6-f2", "rec_s7-f1", "corrects") in links  # the valid pair of the bad reply
    assert len(links) == 5 and not any(old == "rec_s7-f1" or old == "rec_s6-f9" for old, _, _ in links)
    block = bad.reconcile
    assert block["dropped"] == {"cut_off": 1, "later_fact": 2, "unknown_fact": 1, "unknown_relation": 1}
    assert block["cut_off"] == 1 and block["dropped_total"] == 5
    assert any("stopped at the token limit" in p for p in block["problems"])
    assert good.reconcile["dropped_total"] == 0


class SlowReconcileThenFailure(Jittery):
    """Session 6's reconcile call takes a while; session 7's extraction is refused."""

    def complete(self, request):
        prompt = next(m.content for m in request.messages if m.role == "user")
        if prompt.startswith("Decide what each new fact changes") and session_of(prompt) == "rec_s6":
            time.sleep(0.3)
        if prompt.startswith("Extract") and session_of(prompt) == "rec_s7":
            from uac.errors import ModelError

            raise ModelError("the endpoint refused the request (HTTP 400)")
        return super().complete(request)


def test_a_failed_extraction_keeps_the_sessions_before_it_whose_reconcile_was_in_flight(tmp_path, source):
    from uac.errors import ModelError

    provider = SlowReconcileThenFailure(RealisticModel())
    memory = UserMemory.create(
        tmp_path / "fail", user_name="Maya", llm=LLMClient(provider, concurrency=4, sleep=lambda _s: None)
    )
    try:
        with pytest.raises(ModelError, match="HTTP 400"):
            memory.ingest(source, extractor="llm")
        committed = [r["session_id"] for r in log_rows(memory.root) if r["kind"] == "commit"]
        assert committed == [f"rec_s{n}" for n in range(1, 7)]
        assert any(r.get("relation") == "cancels" for r in log_rows(memory.root))  # session 6's pair, applied
    finally:
        memory.close()
