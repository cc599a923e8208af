"""One tenant cannot stall the others: writes, sandbox workers and model calls are bounded
per project and overall, and waiting never holds a server thread."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from uac.errors import ProjectLocked, ServerBusy
from uac.lock import project_lock
from uac.server.admission import ServerLimits, Slots

# --- the slots themselves ------------------------------------------------------------------


def _slots(**kwargs) -> Slots:
    return Slots("test", refuse=lambda key, why: ServerBusy(f"{key} {why}"), **kwargs)


def test_slots_bound_each_key_and_the_total():
    from contextlib import ExitStack

    slots = _slots(per_key=2, total=3)

    def attempt(key: str) -> str:
        with ThreadPoolExecutor(1) as pool:  # another thread: another holder

            def once() -> str:
                try:
                    with slots.hold(key, wait=0.1):
                        return "ran"
                except ServerBusy:
                    return "busy"

            return pool.submit(once).result()

    with ExitStack() as held:
        held.enter_context(slots.hold("a", wait=0))
        assert attempt("a") == "ran"
        with ThreadPoolExecutor(2) as pool:
            second = threading.Event()
            done = threading.Event()

            def hold_second_a() -> None:
                with slots.hold("a", wait=1):
                    second.set()
                    done.wait(5)

            pool.submit(hold_second_a)
            assert second.wait(5)
            assert attempt("a") == "busy"  # two per key
            assert attempt("b") == "ran"
            third = threading.Event()

            def hold_b() -> None:
                with slots.hold("b", wait=1):
                    third.set()
                    done.wait(5)

            pool.submit(hold_b)
            assert third.wait(5)
            assert slots.in_use() == 3
            assert attempt("c") == "busy"  # three in all
            done.set()
    assert slots.in_use() == 0 and slots.peak_total == 3 and slots.peak_per_key == 2


def test_waiters_are_woken_as_slots_free_up():
    slots = _slots(per_key=2, total=3)
    running: dict[str, int] = {}
    peak: dict[str, int] = {}
    overall = [0, 0]
    guard = threading.Lock()

    def work(key: str) -> None:
        with slots.hold(key, wait=30):
            with guard:
                running[key] = running.get(key, 0) + 1
                peak[key] = max(peak.get(key, 0), running[key])
                overall[0] += 1
                overall[1] = max(overall[1], overall[0])
            time.sleep(0.02)
            with guard:
                running[key] -= 1
                overall[0] -= 1

    with ThreadPoolExecutor(12) as pool:
        list(pool.map(work, ["a"] * 8 + ["b"] * 4))
    assert max(peak.values()) <= 2 and overall[1] <= 3
    assert slots.in_use() == 0


def _held_elsewhere(slots: Slots, key: str):
    """Hold a slot of ``key`` from another thread until the returned event is set."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with slots.hold(key, wait=1):
            taken.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(5)
    return release, thread


def test_a_full_queue_and_a_long_wait_are_refused():
    slots = _slots(per_key=1, max_waiting=1)
    release, thread = _held_elsewhere(slots, "a")
    try:
        with pytest.raises(ServerBusy, match="a timeout"):
            with slots.hold("a", wait=0.1):
                pass

        async def two_waiters() -> list[str]:
            async def wait_once() -> str:
                try:
                    async with slots.hold_async("a", wait=0.3):
                        return "got"
                except ServerBusy as exc:
                    return exc.message

            return await asyncio.gather(wait_once(), wait_once())

        outcomes = asyncio.run(two_waiters())
        assert sorted(outcomes) == ["a queue", "a timeout"]
        with slots.hold("b", wait=0):  # another key is not affected
            pass
    finally:
        release.set()
        thread.join()
    assert slots.in_use() == 0
    with slots.hold("a", wait=0):  # free again
        assert slots.in_use("a") == 1


def test_holding_is_reentrant_within_one_call():
    slots = _slots(per_key=1, total=1)

    async def outer() -> int:
        async with slots.hold_async("a", wait=1):
            # the thread a request hands its work to still counts as the same holder
            return await asyncio.to_thread(inner)

    def inner() -> int:
        with slots.hold("a", wait=0):
            return slots.in_use("a")

    assert asyncio.run(outer()) == 1
    with slots.hold("a", wait=0):
        with ThreadPoolExecutor(1) as pool:  # a plain thread is another holder
            with pytest.raises(ServerBusy):
                pool.submit(lambda: slots.hold("a", wait=0).__enter__()).result()


def test_two_slots_with_the_same_limits_are_two_gates():
    first, second = _slots(per_key=1), _slots(per_key=1)
    assert first != second and len({first, second}) == 2  # compared by identity, usable as keys
    with first.hold("a", wait=0):
        assert first.in_use("a") == 1 and second.in_use("a") == 0


def test_limits_must_be_positive():
    with pytest.raises(ValueError, match="sandbox_workers"):
        ServerLimits(sandbox_workers=0)
    with pytest.raises(ValueError, match="lock_wait_seconds"):
        ServerLimits(lock_wait_seconds=-1)


# --- over HTTP ----------------------------------------------------------------------------


def _client(root, **limits):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    return TestClient(create_app(root, limits=ServerLimits(**limits)))


@pytest.mark.embeddings
def test_a_locked_project_hammered_by_its_tenant_does_not_stall_another(fresh_root):
    alice, bob = fresh_root.auth("alice"), fresh_root.auth("bob")
    with _client(fresh_root.root, lock_wait_seconds=3, queued_per_project=8) as client:
        assert client.get("/v1/projects/bob/manifest", headers=bob).status_code == 200
        quiet = []
        for _ in range(5):
            started = time.perf_counter()
            client.get("/v1/projects/bob/manifest", headers=bob)
            quiet.append(time.perf_counter() - started)
        # another process (here: this thread) holds alice's lock, as a long 'uac ingest' would
        with project_lock(fresh_root.root / "alice" / ".uac" / "lock", purpose="a long ingest", timeout=5):
            with ThreadPoolExecutor(60) as pool:
                deletes = [
                    pool.submit(client.delete, f"/v1/projects/alice/facts/f{n}", headers=alice) for n in range(50)
                ]
                time.sleep(0.5)  # the deletes are in flight, waiting for alice's lock
                noisy = []
                for _ in range(5):
                    started = time.perf_counter()
                    response = client.get("/v1/projects/bob/manifest", headers=bob)
                    noisy.append(time.perf_counter() - started)
                    assert response.status_code == 200
                refused = [f.result() for f in deletes]
    # before: 40 threads sat on alice's lock for 30 s each, and bob's manifest waited for one
    assert max(noisy) < max(1.0, 10 * max(quiet)), (quiet, noisy)
    assert {r.status_code for r in refused} == {423}
    bodies = [r.json()["error"] for r in refused]
    assert {b["code"] for b in bodies} == {"project_locked"}
    assert all(int(r.headers["Retry-After"]) >= 1 for r in refused)
    # the queue bound answered most of them at once; the rest waited 3 s without a thread
    assert sum("waiting for it" in b["message"] for b in bodies) >= 40
    assert any("a long ingest" in b["message"] for b in bodies)
    assert not any(str(fresh_root.root) in b["message"] for b in bodies)
    # once the lock is free, writes go through again
    with _client(fresh_root.root) as client:
        facts = client.get("/v1/projects/alice/facts", headers=alice).json()["facts"]
        assert client.delete(f"/v1/projects/alice/facts/{facts[0]['id']}", headers=alice).status_code == 200


@pytest.mark.embeddings
def test_concurrent_writes_to_one_project_take_turns_and_all_land(fresh_root):
    alice = fresh_root.auth("alice")
    with _client(fresh_root.root) as client:

        def add(n: int) -> int:
            session = {"date": "2023-10-01", "messages": [{"role": "user", "content": f"I fixed radio number {n}."}]}
            response = client.post("/v1/projects/alice/sessions", json={"session": session}, headers=alice)
            assert response.status_code == 200, response.text
            return response.json()["facts_appended"]

        with ThreadPoolExecutor(8) as pool:
            assert sum(pool.map(add, range(8))) >= 8
        texts = [f["text"] for f in client.get("/v1/projects/alice/facts", headers=alice).json()["facts"]]
    assert sum("radio number" in t for t in texts) == 8


@pytest.mark.embeddings
def test_sandbox_workers_are_bounded_per_project_and_overall(fresh_root, monkeypatch):
    import uac.sandbox_bridge

    open_now: dict[str, int] = {}
    peak: dict[str, int] = {"alice": 0, "bob": 0, "all": 0}
    guard = threading.Lock()
    real_open = uac.sandbox_bridge.open_session

    class Counted:
        def __init__(self, session, name):
            self.session, self.name = session, name

        def __enter__(self):
            with guard:
                open_now[self.name] = open_now.get(self.name, 0) + 1
                peak[self.name] = max(peak[self.name], open_now[self.name])
                peak["all"] = max(peak["all"], sum(open_now.values()))
            return self.session.__enter__()

        def __exit__(self, *exc):
            with guard:
                open_now[self.name] -= 1
            return self.session.__exit__(*exc)

    monkeypatch.setattr(
        uac.sandbox_bridge, "open_session", lambda ctx, **kw: Counted(real_open(ctx, **kw), ctx.root.name)
    )
    code = {"code": "result = sum(i * i for i in range(300000))"}
    with _client(fresh_root.root, sandbox_workers=2, sandbox_workers_per_project=1) as client:

        def run(user: str) -> int:
            response = client.post(f"/v1/projects/{user}/repl", json=code, headers=fresh_root.auth(user))
            assert response.status_code == 200, response.text
            return response.json()["result"]

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(run, ["alice"] * 5 + ["bob"] * 3))
    assert set(results) == {sum(i * i for i in range(300000))}
    assert peak["alice"] == 1 and peak["bob"] == 1 and peak["all"] <= 2


@pytest.mark.embeddings
def test_a_project_over_its_sandbox_bound_gets_503_with_retry_after(fresh_root):
    alice = fresh_root.auth("alice")
    slow = {"code": "result = sum(i * i for i in range(4000000))"}
    with _client(fresh_root.root, sandbox_workers_per_project=1, queued_per_project=1, busy_wait_seconds=0.2) as client:
        with ThreadPoolExecutor(4) as pool:
            responses = list(
                pool.map(lambda _: client.post("/v1/projects/alice/repl", json=slow, headers=alice), range(4))
            )
    statuses = sorted(r.status_code for r in responses)
    assert statuses[0] == 200 and 503 in statuses, statuses
    busy = [r for r in responses if r.status_code == 503]
    assert all(r.json()["error"]["code"] == "server_busy" and int(r.headers["Retry-After"]) >= 1 for r in busy)


@pytest.mark.embeddings
def test_model_calls_are_bounded_per_project_and_overall(fresh_root):
    from fastapi.testclient import TestClient

    from uac.llm import LLMClient, ScriptedProvider
    from uac.server.http import create_app

    running = {"n": 0, "peak": 0}
    by_project: dict[str, int] = {}
    peak_by_project: dict[str, int] = {}
    guard = threading.Lock()

    def provider_for(project):
        name = project.root.name

        def answer(request):
            with guard:
                running["n"] += 1
                running["peak"] = max(running["peak"], running["n"])
                by_project[name] = by_project.get(name, 0) + 1
                peak_by_project[name] = max(peak_by_project.get(name, 0), by_project[name])
            time.sleep(0.2)
            with guard:
                running["n"] -= 1
                by_project[name] -= 1
            return "Rex."

        return LLMClient(ScriptedProvider(handler=answer))

    limits = ServerLimits(model_calls=3, model_calls_per_project=2)
    with TestClient(create_app(fresh_root.root, llm_factory=provider_for, limits=limits)) as client:

        def ask(user: str) -> str:
            response = client.post(
                f"/v1/projects/{user}/ask",
                json={"question": "What is my dog called?", "use_state": False},
                headers=fresh_root.auth(user),
            )
            assert response.status_code == 200, response.text
            return response.json()["answer"]

        with ThreadPoolExecutor(10) as pool:
            answers = list(pool.map(ask, ["alice"] * 6 + ["bob"] * 4))
    assert set(answers) == {"Rex."}
    assert max(peak_by_project.values()) <= 2 and running["peak"] <= 3


def test_a_compile_job_holds_a_model_slot_for_each_call(fresh_root):
    from uac.llm import LLMClient, ScriptedProvider
    from uac.server.workspace import ServedWorkspace

    seen = []
    workspace = ServedWorkspace(
        fresh_root.root,
        llm_factory=lambda project: LLMClient(
            ScriptedProvider(handler=lambda r: seen.append(workspace.admission.model.in_use("alice")) or "{}")
        ),
        limits=ServerLimits(model_calls=1, model_calls_per_project=1, model_wait_seconds=0.2),
    )
    client = workspace.instances.writer("alice").llm
    from uac.llm.types import Message

    client.chat([Message("user", "hello")])
    assert seen == [1] and workspace.admission.model.in_use() == 0
    with workspace.admission.model.hold("alice", wait=1):
        other = threading.Thread(target=lambda: seen.append(_try_chat(client)))
        other.start()
        other.join()
    assert seen[-1] == "busy"


def _try_chat(client) -> str:
    from uac.llm.types import Message

    try:
        client.chat([Message("user", "hi")], use_cache=False)
    except ServerBusy:
        return "busy"
    return "ran"


def test_project_locked_from_another_process_is_retried_then_423(fresh_root):
    from uac.server.workspace import ServedWorkspace

    workspace = ServedWorkspace(fresh_root.root, limits=ServerLimits(lock_wait_seconds=0.5))
    calls = []

    async def write() -> object:
        return await workspace.write("alice", "test", lambda memory: calls.append(memory) or "done")

    with project_lock(fresh_root.root / "alice" / ".uac" / "lock", purpose="held elsewhere", timeout=1):
        started = time.perf_counter()
        with pytest.raises(ProjectLocked) as refused:
            asyncio.run(write())
        waited = time.perf_counter() - started
    assert 0.4 < waited < 5 and calls == []
    assert refused.value.retry_after >= 1 and "held elsewhere" in refused.value.message
    assert asyncio.run(write()) == "done" and len(calls) == 1
