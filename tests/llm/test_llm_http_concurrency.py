"""Calls side by side through the real OpenAI client against a local endpoint:
Retry-After honoured by every worker, a stalled request stalls no other."""

from __future__ import annotations

import time

import pytest

from tests.fixtures.fake_openai_server import FakeOpenAIServer, Quirks, text_handler
from uac.errors import RateLimited
from uac.llm import LLMSettings, build_client, user
from uac.llm.limits import Limits
from uac.llm.openai_provider import retry_after_seconds
from uac.llm.parallel import map_ordered

from .throttle_watch import watch_throttle


def echo(request) -> str:
    return "answer to " + request.messages[-1].content


def client_for(server, tmp_path, *, concurrency=4, timeout=10.0, retries=3):
    settings = LLMSettings(
        provider="openai",
        model=server.model,
        base_url=server.base_url,
        api_key="none",
        max_retries=retries,
        timeout_seconds=timeout,
        concurrency=concurrency,
        capabilities_path=tmp_path / "endpoints.json",
        limits=Limits(default_timeout=timeout),
    )
    client = build_client(settings)
    client.backoff_seconds = 0.01
    return client


def test_retry_after_from_a_429_pauses_every_worker(tmp_path, monkeypatch):
    with FakeOpenAIServer(
        text_handler(echo), quirks=Quirks(latency=0.05, refuse=lambda n: 0.6 if n == 3 else None)
    ) as server:
        client = client_for(server, tmp_path)
        watch = watch_throttle(monkeypatch, client.throttle)
        with client.metered() as usage:
            replies = map_ordered(client, lambda n: client.chat([user(f"q{n}")]).content, list(range(12)))
    assert replies == [f"answer to q{n}" for n in range(12)]
    assert usage.retries == 1 and server.count(429) == 1
    [(began, _, seconds)] = watch.pauses
    assert seconds == pytest.approx(0.6)
    # nobody was let through during the pause, and the rest went after it
    assert watch.during_pause(0.55) == [], [round(t - began, 3) for t in watch.admitted]
    assert len(watch.admitted) == 13 and max(watch.admitted) >= began + 0.55  # twelve calls and the retry


def test_an_endpoint_that_keeps_refusing_names_the_limits(tmp_path):
    with FakeOpenAIServer(text_handler(echo), quirks=Quirks(refuse=lambda n: 0.05)) as server:
        client = client_for(server, tmp_path, retries=2)
        with pytest.raises(RateLimited) as caught:
            client.chat([user("q")])
    assert server.count(429) == 3
    assert "HTTP 429" in caught.value.message and "UAC_LLM_CONCURRENCY" in caught.value.hint


def test_a_stalled_request_does_not_hold_the_others(tmp_path):
    with FakeOpenAIServer(
        text_handler(echo), quirks=Quirks(latency=0.05, stall=lambda n: 5.0 if n == 1 else 0.0)
    ) as server:
        client = client_for(server, tmp_path, concurrency=3, timeout=1.0)
        started = time.monotonic()
        replies = map_ordered(client, lambda n: client.chat([user(f"q{n}")]).content, list(range(9)))
        elapsed = time.monotonic() - started
    assert replies == [f"answer to q{n}" for n in range(9)]
    # the stalled request timed out after 1 s and was retried; the other eight went on meanwhile
    assert elapsed < 4.0
    assert server.peak >= 2


def test_retry_after_headers_are_read_in_every_form():
    class Response:
        def __init__(self, headers):
            self.headers = headers

    class Refusal(Exception):
        def __init__(self, headers):
            self.response = Response(headers)

    assert retry_after_seconds(Refusal({"retry-after": "2"})) == 2.0
    assert retry_after_seconds(Refusal({"retry-after-ms": "250"})) == 0.25
    assert retry_after_seconds(Refusal({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0  # in the past
    assert retry_after_seconds(Refusal({})) is None
    assert retry_after_seconds(ValueError("no response")) is None
