"""The user project the examples share: Maya's demo chat and her booked trips, in a
directory of their own (a temporary one unless a path is given)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from uac import UserMemory

DEMO = Path(__file__).resolve().parents[1] / "demo"


def demo_root() -> Path:
    """The root directory holding the project ``maya`` (made from the demo files)."""
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="uac-example-"))
    with UserMemory.open_or_create(root / "maya", user_name="Maya") as memory:
        memory.ingest(DEMO / "conversation.json")
        memory.import_records(DEMO / "trips.csv", domain="travel", collection="bookings")
    return root
