"""What the view's catch-up after an ingest costs as the memory grows (offline mode).

A synthetic history of N sessions (ten user messages each: trips, meals, work, health,
reading, with recurring people and places) is ingested with the rules extractor and the
catch-up turned off (``compile=False``), then compiled offline once.  One more session is
then ingested as a user would (``[compile] auto`` on), and the report gives the ingest's
own seconds (extract, write, index) and the catch-up's (``IngestReport.view``): the
offline compile rebuilds every domain from all the facts valid now, so its cost grows
with the memory, not with the session.

    python benchmarks/bench_follow.py --sessions 100,300
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

import typer

from uac import UserMemory

CITIES = ["Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Tunis", "Porto", "Seoul", "Denver", "Riga"]
PEOPLE = ["Leo", "Sam", "Ines", "Tom", "Ana", "Kofi", "Yuki"]
DISHES = ["ramen", "paella", "curry", "tacos", "pho", "risotto", "sushi", "falafel"]
TEMPLATES = [
    "I flew to {city} with {person} last week and stayed {n} nights.",
    "I had {dish} at a restaurant in {city} with {person}.",
    "My boss asked me to lead the {city} office project.",
    "I went to the gym and ran {n} kilometres.",
    "I saw the doctor about my knee and need {n} weeks of rest.",
    "I finished reading a novel set in {city}.",
    "I cooked {dish} for dinner for {person}.",
    "{person} told me about a new job in {city}.",
    "I booked a hotel in {city} for {n} nights in the spring.",
    "I bought a new pair of running shoes for {n} euros.",
]

app = typer.Typer(add_completion=False)


def session(number: int, rng: random.Random) -> dict:
    day = f"{2020 + number // 300}-{1 + (number // 25) % 12:02d}-{1 + number % 25:02d}"
    messages = [
        {
            "role": "user",
            "content": t.format(
                city=rng.choice(CITIES), person=rng.choice(PEOPLE), dish=rng.choice(DISHES), n=rng.randint(2, 12)
            ),
        }
        for t in rng.sample(TEMPLATES, len(TEMPLATES))
    ]
    return {"date": day, "messages": messages}


def measure(sessions: int, folder: Path) -> dict:
    rng = random.Random(sessions)
    history = folder / f"history-{sessions}.json"
    history.write_text(json.dumps([session(i, rng) for i in range(sessions)]))
    memory = UserMemory.create(folder / f"p{sessions}", user_name="Maya")
    started = time.perf_counter()
    memory.ingest(history, extractor="rules", compile=False)
    loaded = time.perf_counter() - started
    first = memory.compile(mode="offline")
    one = folder / f"one-{sessions}.json"
    one.write_text(json.dumps(session(sessions + 1, rng)))
    started = time.perf_counter()
    report = memory.ingest(one, extractor="rules")
    total = time.perf_counter() - started
    view = report.view.to_json()
    row = {
        "sessions": sessions,
        "facts": len(memory.facts()),
        "load_seconds": round(loaded, 1),
        "full_compile_seconds": round(first.seconds, 2),
        "ingest_seconds": round(total - view["seconds"], 2),
        "catch_up_seconds": view["seconds"],
        "catch_up_status": view["status"],
        "facts_not_included": view["facts_not_included"],
    }
    memory.close()
    return row


@app.command()
def main(
    sessions: str = typer.Option("100,300", help="Comma-separated history sizes (sessions of ten messages)."),
) -> None:
    with tempfile.TemporaryDirectory(prefix="uac-bench-follow-") as tmp:
        for n in [int(x) for x in sessions.split(",") if x.strip()]:
            print(json.dumps(measure(n, Path(tmp))), flush=True)


if __name__ == "__main__":
    app()
