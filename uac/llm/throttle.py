"""What every worker of one :class:`~uac.llm.client.LLMClient` shares: the call slots.

Ingest and compile run their model calls side by side (:mod:`.parallel`); the
:class:`Throttle` keeps them within what the endpoint accepts:

* at most ``concurrency`` requests in flight (``[llm] concurrency``);
* one backoff for everyone: when the endpoint answers 429 (with or without
  ``Retry-After``), :meth:`Throttle.pause` holds every worker's next request
  until the pause is over -- one refusal slows all workers instead of each
  retrying on its own;
* optional budgets per rolling minute: ``requests_per_minute`` and
  ``tokens_per_minute`` (the tokens of a call are its prompt estimate until
  the endpoint reports what it counted).

It also counts what a progress line shows: calls in flight, calls answered
and tokens spent so far.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Iterator

#: the rolling window of the per-minute budgets (seconds)
WINDOW = 60.0


@dataclass
class Ticket:
    """One request's place in the rolling window; ``tokens`` is corrected once known."""

    started: float
    tokens: int


@dataclass(frozen=True)
class ThrottleState:
    in_flight: int
    calls: int
    tokens: int
    paused_for: float


class Throttle:
    def __init__(
        self,
        concurrency: int | None = 1,
        *,
        requests_per_minute: int = 0,
        tokens_per_minute: int = 0,
        clock=time.monotonic,
    ) -> None:
        #: ``None``: no bound on requests in flight (callers that run their own threads)
        self.concurrency = None if concurrency is None else max(1, int(concurrency))
        self.requests_per_minute = max(0, int(requests_per_minute))
        self.tokens_per_minute = max(0, int(tokens_per_minute))
        self._clock = clock
        self._cond = threading.Condition()
        self._window: deque[Ticket] = deque()
        self._paused_until = 0.0
        self.in_flight = 0
        #: the most requests that were ever in flight at once
        self.peak = 0
        self.calls = 0
        self.tokens = 0
        #: how many times a worker waited for the shared pause or a budget
        self.waits = 0

    # -- the slot of one request ------------------------------------------------------

    @contextlib.contextmanager
    def slot(self, tokens: int = 0) -> Iterator[Ticket]:
        """Hold one request slot for the duration of the block (waiting for it first)."""
        ticket = self._acquire(max(0, int(tokens)))
        try:
            yield ticket
        finally:
            with self._cond:
                self.in_flight -= 1
                self._cond.notify_all()

    def _acquire(self, tokens: int) -> Ticket:
        with self._cond:
            waited = False
            while True:
                now = self._clock()
                delay = self._delay(now, tokens)
                if delay <= 0:
                    break
                waited = True
                self._cond.wait(timeout=delay)
            if waited:
                self.waits += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            ticket = Ticket(now, tokens)
            if self.requests_per_minute or self.tokens_per_minute:
                self._window.append(ticket)
            return ticket

    def _expire(self, now: float) -> None:
        while self._window and now - self._window[0].started >= WINDOW:
            self._window.popleft()

    def _delay(self, now: float, tokens: int) -> float:
        """Seconds to wait before this request may go (0: it may go now); a wait on a free
        slot is woken early by :meth:`slot`'s release."""
        self._expire(now)
        if now < self._paused_until:
            return self._paused_until - now
        if self.concurrency is not None and self.in_flight >= self.concurrency:
            return 1.0  # woken by a release
        oldest = self._window[0].started + WINDOW - now if self._window else 0.0
        if self.requests_per_minute and len(self._window) >= self.requests_per_minute:
            return max(oldest, 0.001)
        if self.tokens_per_minute and self._window:
            used = sum(t.tokens for t in self._window)
            if used + tokens > self.tokens_per_minute:
                return max(oldest, 0.001)
        return 0.0

    def settle(self, ticket: Ticket, tokens: int) -> None:
        """The endpoint's count of a finished call's tokens (replaces the estimate)."""
        with self._cond:
            ticket.tokens = max(0, int(tokens))
            self.calls += 1
            self.tokens += ticket.tokens
            self._cond.notify_all()

    # -- the shared backoff --------------------------------------------------------------

    def pause(self, seconds: float) -> None:
        """Hold every worker's next request for ``seconds`` (a longer pause already set stays)."""
        with self._cond:
            self._paused_until = max(self._paused_until, self._clock() + max(0.0, seconds))
            self._cond.notify_all()

    def state(self) -> ThrottleState:
        with self._cond:
            return ThrottleState(self.in_flight, self.calls, self.tokens, max(0.0, self._paused_until - self._clock()))


__all__ = ["Throttle", "ThrottleState", "Ticket", "WINDOW"]
