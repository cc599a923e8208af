""":class:`LLMClient`: the one entry point every LLM call in uac goes through.

It adds to a provider: per-purpose limits (``max_tokens``, timeouts), the
response cache, retries with exponential backoff on transient errors, the
check that the endpoint read the whole prompt, usage accounting (spent and
cached tokens apart) and a call log that compile history and benchmarks read.

Caching: a plain reply is cached when it arrives (unless it was cut off or
empty); a structured reply (a request with a JSON schema) only once the
tolerant reader accepted it (:meth:`ChatResponse.json`), so a reply that
failed validation is never cached and a retry reaches the model again.  A
cached reply that fails validation is evicted.

Metering: ``with client.metered() as usage:`` collects the usage of every call
made inside the block on this thread, and on the worker threads that run a
function wrapped by :meth:`LLMClient.carry` -- how ingest, compile and ask put
every call's tokens in their reports.

Concurrency: every request holds a slot of the client's :class:`~.throttle.Throttle`
(at most ``concurrency`` in flight, the per-minute budgets).  A rate-limit
refusal (HTTP 429) pauses every worker of the client for the time the endpoint
asked (``Retry-After``) or the backoff; after ``max_retries`` such refusals the
call fails with :class:`~uac.errors.RateLimited`, which names the settings to
lower.  Other transient errors back off on their own thread only.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol, Sequence, TypeVar

from ..errors import CapabilityUnsupported, ModelError, RateLimited, RateLimitHit, TransientModelError
from .cache import ResponseCache
from .capabilities import EndpointCapabilities
from .limits import Limits, check_prompt_tokens
from .structured import strip_reasoning
from .throttle import Throttle
from .types import ChatRequest, ChatResponse, Message, Usage, estimate_tokens

T = TypeVar("T")

log = logging.getLogger(__name__)


class Provider(Protocol):
    """A model behind :class:`LLMClient`.  A provider whose usage comes from the
    endpoint (not estimated from text lengths, as the test doubles do) sets a
    class attribute ``reports_usage = True``; the client then checks it for cut
    prompts.  One that negotiates features offers ``capabilities()``.  One that
    must be called one request at a time (a script replayed in order) has a
    ``concurrency_limit`` attribute of 1."""

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
    finish_reason: str | None = None


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
        limits: Limits | None = None,
        sleep=time.sleep,
        concurrency: int | None = None,
        requests_per_minute: int = 0,
        tokens_per_minute: int = 0,
        max_retry_after: float = 120.0,
    ) -> None:
        self.provider = provider
        self.cache = cache
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.max_backoff_seconds = max_backoff_seconds
        self.temperature = temperature
        #: ``None``: no completion limits are sent (tests, harnesses that set their own)
        self.limits = limits
        self._sleep = sleep
        #: the slots every worker shares (concurrency, one backoff, per-minute budgets)
        self.throttle = Throttle(
            concurrency, requests_per_minute=requests_per_minute, tokens_per_minute=tokens_per_minute
        )
        #: the longest ``Retry-After`` honoured as asked (longer ones are cut to this)
        self.max_retry_after = max_retry_after
        self._lock = threading.Lock()
        self._meters = threading.local()
        self.usage = Usage()
        self.calls: list[CallRecord] = []

    @property
    def model(self) -> str:
        return self.provider.model

    def describe(self) -> str:
        return f"{self.provider.name}:{self.provider.model}"

    @property
    def capabilities(self) -> EndpointCapabilities:
        """What is known about the endpoint (providers without negotiation support everything)."""
        known = getattr(self.provider, "capabilities", None)
        return known() if callable(known) else EndpointCapabilities(json_mode="schema", tools=True)

    @property
    def concurrency(self) -> int:
        """How many units of work uac runs side by side with this client: ``[llm]
        concurrency``, or 1 for a provider that must be called in order (see
        :class:`Provider`) or a client built without a concurrency (``None``: uac's own
        work runs one unit at a time and the requests in flight are not bounded, for
        callers that run their own threads)."""
        base = self.throttle.concurrency or 1
        limit = getattr(self.provider, "concurrency_limit", None)
        return max(1, min(base, limit or base))

    # -- metering -------------------------------------------------------------------

    @contextlib.contextmanager
    def metered(self) -> Iterator[Usage]:
        """Collect the usage of the calls made inside the block (on this thread)."""
        usage = Usage()
        stack = getattr(self._meters, "stack", None)
        if stack is None:
            stack = self._meters.stack = []
        stack.append(usage)
        try:
            yield usage
        finally:
            stack.remove(usage)

    def carry(self, function: Callable[..., T]) -> Callable[..., T]:
        """``function`` as a worker thread should run it: the calls it makes are metered
        into the meters open on this thread now (see :meth:`metered`)."""
        meters = list(getattr(self._meters, "stack", None) or ())

        def carried(*args: Any, **kwargs: Any) -> T:
            saved = getattr(self._meters, "stack", None)
            self._meters.stack = list(meters)
            try:
                return function(*args, **kwargs)
            finally:
                self._meters.stack = saved

        return carried

    def _meter(self, usage: Usage) -> None:
        with self._lock:  # meters are shared by the workers of one block
            self.usage.add(usage)
            for meter in getattr(self._meters, "stack", None) or ():
                meter.add(usage)

    # -- calls ---------------------------------------------------------------------

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
        if max_tokens is None and self.limits is not None:
            max_tokens = self.limits.max_tokens_for(purpose)
        request = ChatRequest(
            messages=tuple(messages),
            json_schema=json_schema,
            schema_name=schema_name,
            tools=tuple(tools),
            temperature=self.temperature if temperature is None else temperature,
            max_tokens=max_tokens,
            purpose=purpose,
            timeout=self.limits.timeout_for(purpose) if self.limits is not None else None,
        )
        key = request.fingerprint(self.provider.model, self.provider.name)
        started = time.perf_counter()
        cache = self.cache if use_cache else None
        if cache is not None:
            hit = cache.get(key)
            if hit is not None:
                self._prepare(hit, request)
                hit._on_reject = lambda: cache.delete(key)
                self._account(key, purpose, hit, started)
                return hit
        response = self._complete_with_retries(request)
        self._prepare(response, request)
        self._account(key, purpose, response, started)
        if getattr(self.provider, "reports_usage", False) and (self.limits is None or self.limits.check_context):
            check_prompt_tokens(
                request.prompt_texts(),
                response.usage.prompt_tokens,
                purpose=purpose,
                where=f"the endpoint ({self.describe()})",
            )
        if cache is not None:
            self._cache_later(cache, key, request, response)
        return response

    def _prepare(self, response: ChatResponse, request: ChatRequest) -> None:
        response.schema = request.json_schema
        if response.max_tokens is None:  # a provider that lowered the limit says so itself
            response.max_tokens = request.max_tokens
        response.purpose = request.purpose

    def _cache_later(self, cache: ResponseCache, key: str, request: ChatRequest, response: ChatResponse) -> None:
        def put() -> None:
            cache.put(key, self.provider.model, response, prompt="\n".join(m.content or "" for m in request.messages))

        if response.cut_off or (not strip_reasoning(response.content) and not response.tool_calls):
            return  # never cache a reply that stopped at the limit or said nothing (reasoning aside)
        if request.json_schema is not None:
            response._on_accept = put
        else:
            put()
            response._on_reject = lambda: cache.delete(key)

    def _complete_with_retries(self, request: ChatRequest) -> ChatResponse:
        attempt = 0
        first = time.monotonic()
        estimate = sum(estimate_tokens(text) for text in request.prompt_texts())
        while True:
            try:
                with self.throttle.slot(estimate) as ticket:
                    try:
                        response = self.provider.complete(request)
                    except TransientModelError:
                        self.throttle.settle(ticket, estimate)
                        raise
                    self.throttle.settle(ticket, response.usage.total_tokens or estimate)
                    return response
            except TransientModelError as exc:
                limited = isinstance(exc, RateLimitHit)
                if attempt >= self.max_retries:
                    if limited:
                        raise RateLimited(
                            f"the endpoint ({self.describe()}) kept refusing calls for its rate limit (HTTP 429): "
                            f"{attempt + 1} attempt(s) over {time.monotonic() - first:.1f}s; last: {exc.message}",
                            hint="Lower [llm] concurrency (UAC_LLM_CONCURRENCY), set [llm] requests_per_minute / "
                            "tokens_per_minute to the provider's limits, or raise UAC_LLM_MAX_RETRIES.",
                            retry_after=exc.retry_after,
                        ) from exc
                    raise ModelError(
                        f"model call failed after {attempt + 1} attempt(s): {exc}.",
                        hint="Check that the endpoint is up, or raise UAC_LLM_MAX_RETRIES / UAC_LLM_TIMEOUT "
                        "(or the purpose's entry under [llm.timeouts]).",
                    ) from exc
                delay = min(self.max_backoff_seconds, self.backoff_seconds * (2**attempt))
                delay *= 0.5 + random.random() / 2
                if exc.retry_after is not None:
                    delay = min(self.max_retry_after, max(0.0, exc.retry_after))
                log.warning("transient model error (%s); retry %d in %.2fs", exc, attempt + 1, delay)
                self._meter(Usage(retries=1))
                if limited:
                    self.throttle.pause(delay)  # every worker waits, this one included
                else:
                    self._sleep(delay)
                attempt += 1
            except CapabilityUnsupported:
                self._meter(Usage(fallbacks=1))
                raise

    def _account(self, key: str, purpose: str, response: ChatResponse, started: float) -> None:
        record = CallRecord(
            key, purpose, response.usage, response.cached, time.perf_counter() - started, response.finish_reason
        )
        with self._lock:
            self.calls.append(record)
        self._meter(response.usage)

    def chat_json(
        self, messages: Sequence[Message], *, json_schema: dict[str, Any], **kwargs: Any
    ) -> tuple[Any, ChatResponse]:
        """Chat with a JSON schema and return ``(value, response)``, the value read by the
        tolerant reader and validated against the schema (see :meth:`ChatResponse.json`)."""
        response = self.chat(messages, json_schema=json_schema, **kwargs)
        return response.json(), response
