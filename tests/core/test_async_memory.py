"""``AsyncUserMemory``: the same results as ``UserMemory``, without blocking the event loop."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time

import pytest

from uac import AsyncUserMemory, IngestReport, InputError, SearchHit, UserMemory
from uac.aio import OFFLOADED

CHAT = {"date": "2024-05-02", "messages": [{"role": "user", "content": "I booked a trip to Kyoto for June."}]}


def test_every_public_method_of_user_memory_is_offered_or_left_out_on_purpose():
    public = {  # UserMemory and the parts it is assembled from (uac/memory/)
        name
        for part in UserMemory.__mro__
        for name, value in vars(part).items()
        if not name.startswith("_") and inspect.isfunction(value)
    }
    kept_sync = {"open", "create", "close", "sandbox_session"}  # own versions, or interactive
    assert public - kept_sync == set(OFFLOADED)
    for name in OFFLOADED:
        method = getattr(AsyncUserMemory, name)
        assert inspect.iscoroutinefunction(method), name
        assert inspect.signature(method) == inspect.signature(getattr(UserMemory, name)), name


def test_the_async_api_gives_the_sync_results(tmp_path):
    async def scenario():
        async with await AsyncUserMemory.create(tmp_path / "maya", user_name="Maya") as memory:
            report = await memory.add_session(CHAT)
            assert isinstance(report, IngestReport) and report.facts_appended >= 1
            hits = await memory.search("Kyoto trip", k=3)
            assert hits and isinstance(hits[0], SearchHit) and "Kyoto" in hits[0].text
            ran = await memory.run("result = 6 * 7")
            assert ran.ok and ran.result == 42
            with pytest.raises(InputError):
                await memory.add_session(42)
            return [hit.id for hit in hits]

    ids = asyncio.run(scenario())
    with UserMemory.open(tmp_path / "maya") as sync:
        assert [hit.id for hit in sync.search("Kyoto trip", k=3)] == ids


def test_a_slow_call_does_not_block_the_loop_and_calls_of_one_project_take_turns(tmp_path, monkeypatch):
    UserMemory.create(tmp_path / "a").close()
    UserMemory.create(tmp_path / "b").close()
    inside: list[str] = []
    overlap = {"same": 0, "other": 0}
    lock = threading.Lock()

    def slow_facts(self, **_kwargs):
        with lock:
            if inside:
                overlap["same" if self.root.name in inside else "other"] += 1
            inside.append(self.root.name)
        time.sleep(0.3)
        with lock:
            inside.remove(self.root.name)
        return []

    monkeypatch.setattr(UserMemory, "facts", slow_facts)

    async def scenario():
        a = await AsyncUserMemory.open(tmp_path / "a")
        b = await AsyncUserMemory.open(tmp_path / "b")
        ticks = 0

        async def heartbeat():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.02)
                ticks += 1

        beating = asyncio.create_task(heartbeat())
        started = time.monotonic()
        await asyncio.gather(a.facts(), a.facts(), b.facts())
        elapsed = time.monotonic() - started
        beating.cancel()
        await a.close()
        await b.close()
        return ticks, elapsed

    ticks, elapsed = asyncio.run(scenario())
    assert ticks >= 10  # the loop kept running while the calls slept in threads
    assert overlap["same"] == 0  # one project's calls never ran at once
    assert overlap["other"] >= 1  # two projects did
    assert elapsed < 0.9  # a's two calls in turn (0.6 s) with b's beside them, not 0.9 s in a row
