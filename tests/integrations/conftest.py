"""A real user project for the framework adapters: the demo chat and the demo trips,
built once per run and copied for each test (so a test that writes changes only its copy),
beside a second user's project that no tool bound to the first may reach."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from uac.memory import UserMemory

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
#: what only the second user's project holds
BOB_SECRET = "Bob keeps his spare key under the blue flowerpot."


@pytest.fixture(scope="session")
def built_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("integrations") / "users"
    with UserMemory.create(root / "maya", user_name="Maya") as maya:
        maya.ingest(DEMO / "conversation.json")
        maya.import_records(DEMO / "trips.csv", domain="travel", collection="bookings")
        maya.compile(mode="offline")  # as after an ingest that caught the view up
    with UserMemory.create(root / "bob", user_name="Bob") as bob:
        bob.add_session([{"role": "user", "content": BOB_SECRET}], date="2024-06-01")
    return root


@pytest.fixture
def root(built_root, tmp_path) -> Path:
    """A fresh copy of the two projects, ``maya`` and ``bob``."""
    copy = tmp_path / "users"
    shutil.copytree(built_root, copy)
    return copy


def written(project: Path) -> tuple[bytes, tuple[str, ...]]:
    """What a write would change: the fact log and the archived sessions."""
    sessions = tuple(sorted(p.name for p in (project / "memory" / "sessions").glob("*.json")))
    return (project / "memory" / "facts.jsonl").read_bytes(), sessions
