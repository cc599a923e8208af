""":class:`LLMClient`: the one entry point every LLM call in uac goes through.

It adds to a provider: the response cache, retries with exponential backoff
on transient errors, usage accounting (prompt and completion tokens) and a
call log that compile history and benchmarks read.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from ..errors import ModelError, TransientModelError
from .cache import ResponseCache
from .types import ChatRequest, ChatResponse, Message, Usage

log = logging.getLogger(__name__)


class Provider(Protocol):
    name: str
    model: str

    def complete(self, request: ChatRequest) -> ChatResponse: ...


@dataclass(frozen=True)
class CallRecord:
    fingerprint: str
    purpose: str
    usage: Usage
    cached: bool
    seconds: float


class LLMClient:
    def __init__(
        self,
        provider: Provider,
        *,
        cache: ResponseCache | None = None,
        max_retries: int = 3,
        backoff_seconds: float = 0.5,
        max_backoff_seconds: float = 20.0,
        temperature: float = 0.0,
        sleep=time.sleep,
    ) -> None:
        self.provider = provider
        self.cache = cache
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.max_backoff_seconds = max_backoff_seconds
        self.temperature = temperature
        self._sleep = sleep
        self._lock = threading.Lock()
        self.usage = Usage()
        self.calls: list[CallRecord] = []

    @property
    def model(self) -> str:
        return self.provider.model

    def describe(self) -> str:
        return f"{self.provider.name}:{self.provider.model}"

    def chat(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        schema_name: str = "response",
        tools: Sequence[dict[str, Any]] = (),
        temperature: float | None = None,
        max_tokens: int | None = None,
        purpose: str = "",
        use_cache: bool = True,
    ) -> ChatResponse:
        request = ChatRequest(
            messages=tuple(messages),
            json_schema=json_schema,
            schema_name=schema_name,
            tools=tuple(tools),
            temperature=self.temperature if temperature is None else temperature,
            max_tokens=max_tokens,
        )
        key = request.fingerprint(self.provider.model, self.provider.name)
        started = time.perf_counter()
        if self.cache is not None and use_cache:
            hit = self.cache.get(key)
            if hit is not None:
                hit.usage.cached_calls = 1
                self._account(key, purpose, hit, started)
                return hit
        response = self._complete_with_retries(request)
        if self.cache is not None and use_cache:
            self.cache.put(key, self.provider.model, response, prompt="\n".join(m.content or "" for m in request.messages))
        self._account(key, purpose, response, started)
        return response

    def _complete_with_retries(self, request: ChatRequest) -> ChatResponse:
        attempt = 0
        while True:
            try:
                return self.provider.complete(request)
            except TransientModelError as exc:
                if attempt >= self.max_retries:
                    raise ModelError(
                        f"model call failed after {attempt + 1} attempt(s): {exc}.",
                        hint="Check that the endpoint is up, or raise UAC_LLM_MAX_RETRIES / UAC_LLM_TIMEOUT.",
                    ) from exc
                delay = min(self.max_backoff_seconds, self.backoff_seconds * (2**attempt))
                delay *= 0.5 + random.random() / 2
                log.warning("transient model error (%s); retry %d in %.2fs", exc, attempt + 1, delay)
                self._sleep(delay)
                attempt += 1

    def _account(self, key: str, purpose: str, response: ChatResponse, started: float) -> None:
        record = CallRecord(key, purpose, response.usage, response.cached, time.perf_counter() - started)
        with self._lock:
            self.usage.add(response.usage)
            self.calls.append(record)

    def chat_json(self, messages: Sequence[Message], *, json_schema: dict[str, Any], **kwargs: Any) -> tuple[Any, ChatResponse]:
        """Chat with a JSON schema and return ``(parsed value, response)``."""
        response = self.chat(messages, json_schema=json_schema, **kwargs)
        return response.json(), response
