"""What a ``doctor`` check returns: :class:`CheckResult` and its three statuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass
class CheckResult:
    name: str
    status: str
    detail: str
    repaired: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
