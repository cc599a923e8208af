"""What a client's throttle let through and when it paused, on the throttle's own clock
(``time.monotonic``).

Measured at the throttle rather than where the requests arrive, a request that was
already under way when a refusal came back is told apart from one sent during the
pause, however busy the machine is."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field


@dataclass
class ThrottleWatch:
    #: when each request was let through (``Ticket.started``)
    admitted: list[float] = field(default_factory=list)
    #: (clock before, clock after, seconds) of each pause
    pauses: list[tuple[float, float, float]] = field(default_factory=list)

    def during_pause(self, lasting: float) -> list[float]:
        """The requests let through in the first ``lasting`` seconds of the one pause
        (a request let through while :meth:`pause` was being called may have gone
        just before it began, so that moment is left out)."""
        [(before, after, _seconds)] = self.pauses
        return [t for t in self.admitted if after <= t < before + lasting]


def watch_throttle(monkeypatch, throttle) -> ThrottleWatch:
    watch = ThrottleWatch()
    real_slot, real_pause = throttle.slot, throttle.pause

    @contextlib.contextmanager
    def slot(tokens=0):
        with real_slot(tokens) as ticket:
            watch.admitted.append(ticket.started)
            yield ticket

    def pause(seconds):
        before = time.monotonic()
        real_pause(seconds)
        watch.pauses.append((before, time.monotonic(), seconds))

    monkeypatch.setattr(throttle, "slot", slot)
    monkeypatch.setattr(throttle, "pause", pause)
    return watch
