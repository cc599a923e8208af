"""Model calls side by side: the client's throttle, one shared backoff, budgets, ordered results."""

from __future__ import annotations

import threading
import time

import pytest

from uac.config import parse_config
from uac.errors import ConfigError, ModelError, RateLimited
from uac.llm import LLMClient, ScriptedProvider, resolve_settings, user
from uac.llm.parallel import map_ordered
from uac.llm.progress import Tracker
from uac.llm.throttle import Throttle

from .throttle_watch import watch_throttle


class SlowProvider:
    """Answers every call after ``delay`` seconds; counts how many run at once."""

    name = "slow"
    model = "slow"

    def __init__(self, delay: float = 0.05) -> None:
        self.delay = delay
        self.running = 0
        self.peak = 0
        self.lock = threading.Lock()
        self.inner = ScriptedProvider(handler=lambda request: f"echo {request.messages[-1].content}")

    def complete(self, request):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            time.sleep(self.delay)
            return self.inner.complete(request)
        finally:
            with self.lock:
                self.running -= 1


def test_calls_run_side_by_side_up_to_the_limit_and_come_back_in_order():
    provider = SlowProvider(0.05)
    client = LLMClient(provider, concurrency=3)
    with client.metered() as usage:
        replies = map_ordered(client, lambda n: client.chat([user(f"q{n}")]).content, list(range(12)))
    assert replies == [f"echo q{n}" for n in range(12)]
    assert provider.peak == 3 and client.throttle.peak == 3
    assert usage.calls == 12  # the workers' calls are metered into the caller's meter


def test_concurrency_one_runs_on_the_calling_thread_in_order():
    provider = SlowProvider(0.0)
    client = LLMClient(provider, concurrency=1)
    threads = []
    map_ordered(
        client, lambda n: threads.append(threading.current_thread()) or client.chat([user(str(n))]), list(range(4))
    )
    assert provider.peak == 1 and set(threads) == {threading.current_thread()}


def test_the_first_failure_in_order_is_raised_and_later_units_are_not_started():
    client = LLMClient(SlowProvider(0.0), concurrency=2)
    started = []

    def unit(n):
        started.append(n)
        if n in (1, 3):
            raise ValueError(f"unit {n}")
        time.sleep(0.05)
        return n

    with pytest.raises(ValueError, match="unit 1"):
        map_ordered(client, unit, list(range(30)))
    assert len(started) < 30


def test_a_script_served_in_order_keeps_the_calls_in_order():
    scripted = ScriptedProvider(["a", "b"])
    client = LLMClient(scripted, concurrency=8)
    assert client.concurrency == 1
    assert [client.chat([user("x")]).content for _ in range(2)] == ["a", "b"]
    assert client.concurrency == 8  # the queue is empty: nothing to keep in order
    assert LLMClient(ScriptedProvider(handler=lambda r: "x"), concurrency=8).concurrency == 8


def test_a_429_pauses_every_worker_for_the_time_the_endpoint_asked(monkeypatch):
    served: list[tuple[float, str]] = []
    refused = threading.Event()

    def handler(request):
        prompt = request.messages[-1].content
        served.append((time.monotonic(), prompt))
        if prompt == "q0" and not refused.is_set():
            refused.set()
            return {"error": "rate_limit", "retry_after": 0.4}
        time.sleep(0.02)
        return "ok"

    client = LLMClient(
        ScriptedProvider(handler=handler), concurrency=4, sleep=lambda s: pytest.fail("no private sleep on a 429")
    )
    watch = watch_throttle(monkeypatch, client.throttle)
    start = time.monotonic()
    with client.metered() as usage:
        map_ordered(client, lambda n: client.chat([user(f"q{n}")]), list(range(16)))
    assert usage.retries == 1
    [(began, _, seconds)] = watch.pauses
    assert seconds == pytest.approx(0.4)
    # no request went out during the pause (other than the ones already let through with q0)
    assert watch.during_pause(0.38) == [], [round(t - began, 3) for t in watch.admitted]
    assert len(watch.admitted) == 17 and max(watch.admitted) >= began + 0.38  # the retry of q0 too
    assert [p for _, p in served].count("q0") == 2
    assert time.monotonic() - start >= 0.4


def test_an_endpoint_that_keeps_refusing_ends_with_a_clear_error():
    client = LLMClient(ScriptedProvider(handler=lambda r: {"error": "rate_limit", "retry_after": 0.01}), max_retries=2)
    with pytest.raises(RateLimited) as caught:
        client.chat([user("x")])
    assert "kept refusing" in caught.value.message and "3 attempt(s)" in caught.value.message
    assert "concurrency" in caught.value.hint and "requests_per_minute" in caught.value.hint
    assert isinstance(caught.value, ModelError)


def test_requests_per_minute_budget_holds_requests_back():
    clock = [0.0]
    throttle = Throttle(4, requests_per_minute=2, clock=lambda: clock[0])
    for _ in range(2):
        with throttle.slot(10):
            pass
    waited = []

    def third():
        with throttle.slot(10):
            waited.append(clock[0])

    worker = threading.Thread(target=third)
    worker.start()
    time.sleep(0.1)
    assert waited == []  # the minute's two requests are spent
    clock[0] = 60.0
    with throttle._cond:
        throttle._cond.notify_all()
    worker.join(timeout=5)
    assert waited == [60.0]


def test_tokens_per_minute_budget_counts_what_the_endpoint_reported():
    clock = [0.0]
    throttle = Throttle(4, tokens_per_minute=100, clock=lambda: clock[0])
    with throttle.slot(10) as ticket:
        throttle.settle(ticket, 95)  # the reply was long
    assert throttle._delay(clock[0], 10) > 0
    assert throttle._delay(clock[0], 5) == 0
    clock[0] = 61.0
    assert throttle._delay(clock[0], 10) == 0
    # a single request larger than the budget still goes when the window is empty
    assert throttle._delay(clock[0], 1_000) == 0


def test_progress_reports_units_done_and_calls():
    client = LLMClient(SlowProvider(0.02), concurrency=2)
    seen = []
    with Tracker(seen.append, client, stage="extract", unit="sessions", total=3, interval=0.01) as tracker:
        for n in range(3):
            client.chat([user(str(n))])
            tracker.advance()
    last = seen[-1]
    assert (last.done, last.total, last.calls) == (3, 3, 3) and last.tokens > 0
    assert "3/3 sessions" in last.line() and "in flight" in last.line()


def test_settings_read_the_limits_from_the_project_and_the_environment(tmp_path):
    config = parse_config(
        'format_version = 1\n[llm]\nprovider = "scripted"\nconcurrency = 6\nrequests_per_minute = 50\n'
        "[extract]\nparallel_sessions = 2\n",
        tmp_path / "uac.toml",
    )
    settings = resolve_settings(config.llm, env={})
    assert (settings.concurrency, settings.requests_per_minute, settings.tokens_per_minute) == (6, 50, 0)
    assert config.extract.parallel_sessions == 2
    assert resolve_settings(config.llm, env={"UAC_LLM_CONCURRENCY": "1"}).concurrency == 1
    assert resolve_settings(config.llm, env={"UAC_LLM_TOKENS_PER_MINUTE": "9000"}).tokens_per_minute == 9000
    with pytest.raises(ConfigError, match="UAC_LLM_CONCURRENCY"):
        resolve_settings(config.llm, env={"UAC_LLM_CONCURRENCY": "0"})
    with pytest.raises(ConfigError, match="at least 1"):
        parse_config("format_version = 1\n[llm]\nconcurrency = 0\n", tmp_path / "uac.toml")


def test_a_client_built_without_a_concurrency_leaves_the_callers_threads_alone():
    provider = SlowProvider(0.05)
    client = LLMClient(provider)  # harnesses that run their own answer threads
    assert client.concurrency == 1  # uac's own units run one at a time
    threads = [threading.Thread(target=client.chat, args=([user(str(n))],)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert provider.peak == 4  # but the caller's threads are not held back
