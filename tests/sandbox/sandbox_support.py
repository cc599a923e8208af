"""Test data and helpers of the sandbox test suite (imported by conftest and tests)."""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field

from sandbox.limits import Limits


class Purpose(enum.Enum):
    WORK = "work"
    LEISURE = "leisure"


@dataclass
class Trip:
    city: str
    start: dt.date
    nights: int
    cost: float
    purpose: Purpose
    tags: list = field(default_factory=list)
    format: str = "flight"


@dataclass
class Meal:
    cuisine: str
    when: dt.datetime
    price: float


@dataclass
class Note:
    text: str


TRIPS = [
    Trip("Paris", dt.date(2024, 5, 1), 3, 420.0, Purpose.LEISURE, ["food", "museum"]),
    Trip("Rome", dt.date(2023, 9, 12), 5, 610.5, Purpose.LEISURE, ["food"]),
    Trip("Berlin", dt.date(2024, 1, 20), 2, 180.0, Purpose.WORK, [], "train"),
    Trip("Paris", dt.date(2022, 12, 30), 4, 95.0, Purpose.WORK, ["work"]),
    Trip("Oslo", dt.date(2024, 8, 3), 6, 990.99, Purpose.LEISURE, ["hiking"]),
]

MEALS = [
    Meal("thai", dt.datetime(2024, 3, 1, 19, 30), 32.5),
    Meal("italian", dt.datetime(2024, 3, 5, 12, 0), 18.0),
    Meal("thai", dt.datetime(2024, 4, 2, 20, 15), 41.0),
]

FACTS = [
    {"id": "f1", "text": "Ana flew to Paris.", "session_id": "s1", "session_date": "2024-05-08", "evidence": ["D1:3"]},
    {
        "id": "f2",
        "text": "Ana likes Thai food.",
        "session_id": "s2",
        "session_date": "2024-06-01",
        "evidence": ["D2:1", "D2:4"],
    },
]

DOMAINS = {
    "travel": {"trips": TRIPS, "notes": [Note("bring passport")], "home_city": "Lisbon"},
    "dining": {"meals": MEALS, "notes": [Note("no peanuts")], "budget": {"monthly": 300, 2024: "tight"}},
}

SECURITY_LIMITS = Limits(cpu_seconds=2, wall_seconds=6, memory_mb=512)


def run_ok(session, code: str):
    res = session.run(code)
    assert res.ok, res.error
    return res.result


def run_err(session, code: str, kind: str | tuple[str, ...]) -> str:
    res = session.run(code)
    kinds = (kind,) if isinstance(kind, str) else kind
    assert not res.ok, f"expected {kinds}, got result {res.result!r}"
    assert res.error["type"] in kinds, res.error
    assert res.result is None
    return res.error["message"]


# Host modules agent code must never reach, tried under every allowed module too.
HOST_MODULE_NAMES = ("builtins", "ctypes", "importlib", "io", "os", "subprocess", "sys")


def submodule_candidates(module: str) -> list[str]:
    """Every name under which ``module`` could hand out a real module on this host:
    its submodules (``pkgutil``), the ``module.X`` entries of ``sys.modules``, the
    attributes of the real module that are modules, and :data:`HOST_MODULE_NAMES`."""
    import importlib
    import pkgutil
    import sys
    import types

    real = importlib.import_module(module)
    names = set(HOST_MODULE_NAMES)
    if hasattr(real, "__path__"):
        names |= {info.name for info in pkgutil.iter_modules(real.__path__)}
    names |= {key[len(module) + 1 :].split(".")[0] for key in list(sys.modules) if key.startswith(module + ".")}
    names |= {key for key, value in vars(real).items() if isinstance(value, types.ModuleType)}
    return sorted(names)
