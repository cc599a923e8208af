"""A sample project shared by the answering tests: the demo conversation
(LoCoMo-shaped, rule-based extraction) plus typed trips and meals records."""

from __future__ import annotations

import csv
import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from uac.memory import UserMemory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "demo"


@pytest.fixture(scope="session")
def sample_project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("answer") / "maya"
    memory = UserMemory.create(root, user_name="Maya")
    memory.ingest(EXAMPLES / "conversation.json", extractor="rules")
    memory.import_records(EXAMPLES / "trips.csv", domain="travel", collection="trips")
    memory.import_records(EXAMPLES / "meals.jsonl", domain="food", collection="meals")
    return root


@pytest.fixture
def project_copy(sample_project, tmp_path) -> Path:
    target = tmp_path / "maya"
    shutil.copytree(sample_project, target)
    return target


@pytest.fixture(scope="session")
def trips_rows() -> list[dict]:
    with open(EXAMPLES / "trips.csv", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="session")
def meals_rows() -> list[dict]:
    return [json.loads(line) for line in (EXAMPLES / "meals.jsonl").read_text().splitlines()]


def trips_in(rows, year: int, until: dt.date | None = None) -> int:
    days = [dt.date.fromisoformat(r["start date"]) for r in rows]
    return sum(1 for d in days if d.year == year and (until is None or d <= until))
