"""Compile cost as a history grows: the operations protocol against the paper's bounded mode.

A synthetic history of N sessions (about 20 facts each: trips, meals, work,
health and small talk, with recurring people and places) is compiled
incrementally, every ``--step`` sessions, as a user's agent would, by the
deterministic rule model (``uac.RuleModel``: it reads the real prompts
and answers by rule -- a keyword table routes, and each batch gets one ``add``
per fact, a ``Trip`` or an ``Event``).  For each N it reports:

* prompt and completion tokens per new fact in the last compile step (the
  marginal cost of new facts at that history length) and over the whole run;
* the largest completion of any call, and the records of the largest domain;
* wall time of uac's own work (model time excluded), over the run and in the
  last compile step with its committed batches (one step also pays once for
  loading and indexing the domains it touches);
* the bounded mode on the same history, in the same run (the same model
  writing whole files): one call over the first 30,000 characters, and the
  share of facts it covers.

Targets: tokens per new fact at the largest N within 1.5x of the figure at
the smallest; no completion above 4,000 tokens; the largest domain past 5,000
records at N = 1,000.

    python benchmarks/bench_compile_scale.py --sessions 10,100,1000
"""

from __future__ import annotations

import datetime as dt
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import typer

from uac import ChatRequest, ChatResponse, Fact, LLMClient, RuleModel, UserMemory

CITIES = ["Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Tunis", "Porto", "Seoul", "Denver", "Riga"]
PEOPLE = ["Maya", "Leo", "Sam", "Ines", "Tom", "Ana", "Kofi", "Yuki"]
DISHES = ["ramen", "paella", "curry", "tacos", "pho", "risotto", "sushi", "falafel"]
PROJECTS = ["billing", "search", "onboarding", "mobile app", "data platform"]
TEMPLATES = [
    "I took a trip to {city} with {person} and stayed at a hotel for {n} nights",
    "I flew back from {city} after a week of hiking",
    "I booked a hotel in {city} for {n} nights in the spring",
    "I visited the old town of {city} with {person} on a day trip",
    "{person} and I planned a vacation to {city}",
    "I had {dish} at a restaurant in {city} with {person}",
    "I cooked {dish} for dinner for {person}",
    "My boss asked me to lead the {project} project",
    "I had a long meeting with {person} about the {project} project at the office",
    "I went to the gym and ran {n} kilometres",
    "I saw the doctor about my knee and need {n} weeks of rest",
    "{person} told me about their new job in {city}",
    "I finished reading a novel set in {city}",
    "Ok",
    "Sounds good",
]


def synthetic_facts(sessions: int, per_session: int = 20, seed: int = 7) -> list[Fact]:
    rng = random.Random(seed)
    facts = []
    start = dt.date(2020, 1, 6)
    for s in range(sessions):
        day = start + dt.timedelta(days=3 * s)
        for i in range(per_session):
            text = rng.choice(TEMPLATES).format(
                city=rng.choice(CITIES),
                person=rng.choice(PEOPLE),
                dish=rng.choice(DISHES),
                project=rng.choice(PROJECTS),
                n=rng.randint(2, 12),
            )
            facts.append(
                Fact(id=f"s{s + 1}-f{i + 1}", text=text, session_id=f"s{s + 1}", session_date=day, speaker="Alex")
            )
    return facts


class TimedModel:
    """The rule model as a provider, timing its own work (kept apart from uac's)."""

    def __init__(self) -> None:
        self.inner = RuleModel()
        self.name, self.model = self.inner.name, self.inner.model
        self.seconds = 0.0

    def complete(self, request: ChatRequest) -> ChatResponse:
        started = time.perf_counter()
        try:
            return self.inner.complete(request)
        finally:
            self.seconds += time.perf_counter() - started
            self.inner.requests.clear()  # the model keeps every request; a long run needs none


def run_history(sessions: int, step: int, per_session: int, workdir: Path) -> dict[str, Any]:
    facts = synthetic_facts(sessions, per_session)
    model = TimedModel()
    memory = UserMemory.create(workdir / f"history-{sessions}", user_name="Alex", llm=LLMClient(model))
    totals = {"prompt": 0, "completion": 0, "new": 0, "largest": 0, "calls": 0}
    last: dict[str, Any] = {}
    started = time.perf_counter()
    model.seconds = 0.0
    for upto in range(step, sessions + 1, step):
        visible = [f for f in facts if int(f.session_id[1:]) <= upto]
        step_started, model_before = time.perf_counter(), model.seconds
        report = memory.compile(facts=visible).to_json()
        step_uac = time.perf_counter() - step_started - (model.seconds - model_before)
        tokens = report["totals"]["tokens"]
        new = sum(d["facts_new"] for d in report["domains"])
        totals["prompt"] += tokens["prompt_tokens"]
        totals["completion"] += tokens["completion_tokens"]
        totals["new"] += new
        totals["largest"] = max(totals["largest"], report["totals"]["largest_completion_tokens"])
        totals["calls"] += sum(d["calls"] for d in report["domains"])
        batches = sum(d["batches"]["committed"] for d in report["domains"])
        last = {"report": report, "new": new, "tokens": tokens, "uac": step_uac, "batches": batches}
    wall = time.perf_counter() - started
    final = last["report"]
    largest_domain = max(final["domains"], key=lambda d: d["records"])
    return {
        "sessions": sessions,
        "facts": len(facts),
        "compiles": sessions // step,
        "last_step_tokens_per_new_fact": round(
            (last["tokens"]["prompt_tokens"] + last["tokens"]["completion_tokens"]) / max(1, last["new"]), 1
        ),
        "last_step_prompt_per_fact": round(last["tokens"]["prompt_tokens"] / max(1, last["new"]), 1),
        "last_step_completion_per_fact": round(last["tokens"]["completion_tokens"] / max(1, last["new"]), 1),
        "run_tokens_per_new_fact": round((totals["prompt"] + totals["completion"]) / max(1, totals["new"]), 1),
        "largest_completion": totals["largest"],
        "calls": totals["calls"],
        "largest_domain": largest_domain["domain"],
        "largest_domain_records": largest_domain["records"],
        "recorded": final["totals"]["facts_recorded"],
        "considered": final["totals"]["facts_considered"],
        "pending": final["totals"]["facts_pending"],
        "uac_seconds": round(wall - model.seconds, 1),
        "last_step_uac_seconds": round(last["uac"], 2),
        "last_step_batches": last["batches"],
        "model_seconds": round(model.seconds, 1),
        "bounded": run_bounded(facts, workdir / f"bounded-{sessions}"),
    }


def run_bounded(facts: list[Fact], root: Path) -> dict[str, Any]:
    memory = UserMemory.create(root, user_name="Alex", llm=LLMClient(TimedModel()))
    report = memory.compile(mode="bounded", facts=facts).to_json()
    totals = report["totals"]
    return {
        "facts_in_prompt": totals["facts_in_prompt"],
        "coverage": totals["coverage"],
        "completion_tokens": totals["tokens"]["completion_tokens"],
    }


def main(
    sessions: str = typer.Option("10,100,1000", help="History lengths (sessions), comma-separated."),
    step: int = typer.Option(10, help="Compile after every this many sessions."),
    per_session: int = typer.Option(20, help="Facts per session."),
    out: Optional[Path] = typer.Option(None, help="Write the results as JSON here."),
) -> None:
    sizes = [int(s) for s in sessions.replace(",", " ").split()]
    results = []
    with tempfile.TemporaryDirectory(prefix="uac-compile-scale-") as tmp:
        for size in sizes:
            result = run_history(size, min(step, size), per_session, Path(tmp))
            results.append(result)
            print(json.dumps(result), flush=True)
    base = results[0]["last_step_tokens_per_new_fact"]
    print()
    print(
        "| sessions | facts | tokens/new fact (last step) | ratio | tokens/new fact (run) | largest completion | largest domain | recorded / considered / pending | uac s | uac s last step (batches) | bounded coverage |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: |")
    for r in results:
        ratio = r["last_step_tokens_per_new_fact"] / base if base else 0
        print(
            f"| {r['sessions']} | {r['facts']} | {r['last_step_tokens_per_new_fact']} | {ratio:.2f}x | {r['run_tokens_per_new_fact']} "
            f"| {r['largest_completion']} | {r['largest_domain']} ({r['largest_domain_records']}) "
            f"| {r['recorded']} / {r['considered']} / {r['pending']} | {r['uac_seconds']} "
            f"| {r['last_step_uac_seconds']} ({r['last_step_batches']}) | {r['bounded']['coverage']:.3f} |"
        )
    worst = max(r["last_step_tokens_per_new_fact"] for r in results) / base if base else 0
    largest = max(r["largest_completion"] for r in results)
    biggest = max(r["largest_domain_records"] for r in results)
    print(
        f"\ntokens per new fact, largest N vs smallest: {results[-1]['last_step_tokens_per_new_fact'] / base:.2f}x (target <= 1.5x); worst {worst:.2f}x"
    )
    print(
        f"largest completion: {largest} tokens (target <= 4000); largest domain: {biggest} records (target > 5000 at 1,000 sessions)"
    )
    if out:
        out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    typer.run(main)
