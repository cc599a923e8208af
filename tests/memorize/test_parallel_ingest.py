"""Ingest and compile with model calls side by side: the same log and view at every concurrency."""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from pathlib import Path

import pytest

from tests.compile.helpers import handler_for, prompt_of, protocol_handler, session_of
from uac.errors import ModelError
from uac.fsutil import read_utf8, split_lines
from uac.llm import LLMClient, ScriptedProvider
from uac.memory import UserMemory


def conversation(sessions: int, turns: int = 6) -> dict:
    data: dict = {"speaker_a": "Maya", "speaker_b": "Theo"}
    topics = ["a trip to Lisbon", "dinner at a new restaurant", "a meeting at the office", "a visit to the doctor"]
    for number in range(1, sessions + 1):
        data[f"session_{number}_date_time"] = f"10:00 am on {number} May, 2023"
        data[f"session_{number}"] = [
            {
                "speaker": "Maya" if t % 2 else "Theo",
                "dia_id": f"D{number}:{t}",
                "text": f"In session {number} turn {t} we talked about {topics[(number + t) % 4]} at length.",
            }
            for t in range(1, turns + 1)
        ]
    return {"sample_id": "par", "conversation": data, "qa": []}


class Endpoint:
    """The rule model behind a scripted provider, answering after a random delay;
    replies for the turns in ``garbage`` are unreadable (the window falls back to the rules)."""

    def __init__(self, *, garbage: tuple[str, ...] = (), fail_session: int | None = None, seed: int = 0) -> None:
        self.random = random.Random(seed)
        self.garbage = garbage
        self.fail_session = fail_session
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.prompts: list[str] = []
        self.provider = ScriptedProvider(handler=self.answer)

    def answer(self, request):
        prompt = prompt_of(request)
        self.prompts.append(prompt)
        return self._reply(request, prompt)

    def _reply(self, request, prompt):
        if self.fail_session is not None and session_of(prompt) == f"par_s{self.fail_session}":
            return {"error": "fatal", "message": "the endpoint refused the request (HTTP 400)"}
        if any(f"[{turn}]" in prompt.split("Turns to extract from:")[-1] for turn in self.garbage):
            return "I would rather not answer in JSON."
        return protocol_handler(request)


class SlowScripted(ScriptedProvider):
    """The scripted provider, with a random delay outside its lock (so calls overlap)."""

    def __init__(self, endpoint: Endpoint) -> None:
        super().__init__(handler=endpoint.answer)
        self.endpoint = endpoint

    def complete(self, request):
        endpoint = self.endpoint
        with endpoint.lock:
            endpoint.running += 1
            endpoint.peak = max(endpoint.peak, endpoint.running)
            delay = endpoint.random.random() * 0.03
        try:
            time.sleep(delay)
            return super().complete(request)
        finally:
            with endpoint.lock:
                endpoint.running -= 1


def make_memory(root: Path, endpoint: Endpoint, concurrency: int, *, parallel_sessions: int = 3) -> UserMemory:
    client = LLMClient(SlowScripted(endpoint), concurrency=concurrency, sleep=lambda _s: None)
    memory = UserMemory.create(root, user_name="Maya", llm=client)
    config = memory.project.config
    memory.project.save_config(
        config.with_section("extract", parallel_sessions=parallel_sessions, window_chars=400).with_section(
            "compile", batch_facts=4
        )
    )
    return memory


def log_rows(root: Path) -> list[dict]:
    rows = [json.loads(line) for line in split_lines(read_utf8(root / "memory" / "facts.jsonl")) if line.strip()]
    return [
        {k: v for k, v in row.items() if row.get("kind") != "commit" or k not in ("committed_at", "checksum")}
        for row in rows
    ]


def tree_hash(root: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        sha.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return sha.hexdigest()


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(conversation(7)), "utf-8")
    return path


def test_the_log_the_counts_and_the_view_are_the_same_at_every_concurrency(tmp_path, source):
    results = {}
    for concurrency in (1, 4):
        endpoint = Endpoint(garbage=("D3:4",), seed=concurrency)
        memory = make_memory(tmp_path / f"c{concurrency}", endpoint, concurrency)
        try:
            seen = []
            report = memory.ingest(source, extractor="llm", progress=seen.append)
            compiled = memory.compile(mode="incremental")
            assert compiled.ok and len(compiled.domains) >= 3
            again = memory.ingest(source, extractor="llm")
            assert again.skipped and again.facts_appended == 0  # re-ingest is a no-op
            results[concurrency] = (
                log_rows(memory.root),
                report.extraction,
                report.usage.calls,
                tree_hash(memory.root / "domains"),
                [(d.domain, d.records, d.calls) for d in compiled.domains],
            )
            dones = [p.done for p in seen]
            assert dones == sorted(dones) and set(dones) == set(range(8))  # each session, in order
            assert seen[-1].total == 7 and seen[-1].calls == report.usage.calls
            if concurrency > 1:
                assert endpoint.peak > 1  # calls really ran side by side
        finally:
            memory.close()
    assert results[1] == results[4]
    rows, extraction, *_ = results[4]
    assert extraction["windows_fallback"] == 1 and extraction["windows"] > 7  # several windows per session
    facts = [r for r in rows if r.get("kind") == "fact"]
    assert [f["id"] for f in facts if f["session_id"] == "par_s1"][:3] == ["par_s1-f1", "par_s1-f2", "par_s1-f3"]
    order = [r["session_id"] for r in rows if r.get("kind") == "commit"]
    assert order == [f"par_s{n}" for n in range(1, 8)]  # committed in session order


def test_a_session_is_shown_the_facts_of_the_sessions_parallel_sessions_before_it(tmp_path, source):
    endpoint = Endpoint()
    memory = make_memory(tmp_path / "lag", endpoint, 4, parallel_sessions=3)
    try:
        memory.ingest(source, extractor="llm")
    finally:
        memory.close()
    fifth = [p for p in endpoint.prompts if session_of(p) == "par_s5"]
    assert fifth and all("[par_s2-f1]" in p and "[par_s1-f1]" in p for p in fifth)
    assert not any("[par_s3-f1]" in p or "[par_s4-f1]" in p for p in fifth)


def test_a_failed_session_stops_the_ingest_after_the_sessions_before_it(tmp_path, source):
    endpoint = Endpoint(fail_session=4)
    memory = make_memory(tmp_path / "fail", endpoint, 4)
    try:
        with pytest.raises(ModelError, match="HTTP 400"):
            memory.ingest(source, extractor="llm")
        committed = [r["session_id"] for r in log_rows(memory.root) if r.get("kind") == "commit"]
        assert committed == ["par_s1", "par_s2", "par_s3"]
        endpoint.fail_session = None
        report = memory.ingest(source, extractor="llm")
        assert report.sessions_added == ["par_s4", "par_s5", "par_s6", "par_s7"]
        assert report.sessions_skipped == ["par_s1", "par_s2", "par_s3"]
        ids = [r["id"] for r in log_rows(memory.root) if r.get("kind") == "fact"]
        assert len(ids) == len(set(ids))
    finally:
        memory.close()


def test_domains_compile_side_by_side_and_a_failing_domain_fails_alone(tmp_path, source):
    domain = {0: "travel", 1: "food", 2: "work", 3: "health"}
    handler = handler_for(lambda ident: domain[int(ident.rsplit("f", 1)[1]) % 4], failing_domains=("food",))
    memory = UserMemory.create(
        tmp_path / "compile", user_name="Maya", llm=LLMClient(ScriptedProvider(handler=handler), concurrency=4)
    )
    try:
        memory.ingest(source, extractor="rules")
        report = memory.compile(mode="incremental")
        status = {d.domain: d.status for d in report.domains}
        assert status["food"] == "failed" and all(s == "compiled" for n, s in status.items() if n != "food")
        assert [d.domain for d in report.domains] == sorted(status)
    finally:
        memory.close()
