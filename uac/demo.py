"""``make demo``: build a sample user project offline and show what it can do.

Runs without any model or network: the project is created under
``user_projects/demo`` (or ``$UAC_HOME/demo``) from the sample data in
``examples/demo/`` -- a three-session conversation between Maya (the project's
user) and her friend Leo, a CSV of Maya's trips and a JSONL of her restaurant
meals, one story -- and each step prints a question a person would ask and its
answer.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
import time
from pathlib import Path

from .memory import UserMemory
from .workspace import resolve_project

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "demo"

TRIPS_2024 = "result = len([t for t in bookings if t.start_date.year == 2024])"
SPEND_BY_CUISINE = """\
from collections import defaultdict
from statistics import mean
by = defaultdict(list)
for m in dining:
    by[m.cuisine].append(m.spend)
result = {c: round(mean(v), 2) for c, v in sorted(by.items())}"""


def _title(text: str) -> None:
    print(f"\n=== {text} ===")


def _indent(text: str, prefix: str = "  ") -> str:
    return textwrap.indent(text.rstrip(), prefix)


def _show_tree(root: Path) -> None:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".uac" and len(rel.parts) > 1:
            continue
        if "__pycache__" in rel.parts:
            continue
        size = f"{path.stat().st_size:>9,} B" if path.is_file() else "        dir"
        print(f"  {size}  {rel}{'/' if path.is_dir() else ''}")


def _timed(label: str, func, *args, **kwargs):
    started = time.perf_counter()
    value = func(*args, **kwargs)
    print(f"  ({label}: {time.perf_counter() - started:.2f}s)")
    return value


def inspector_hint(root: Path) -> str:
    """How to open the web inspector on the project at ``root`` (what ``make demo`` ends with)."""
    root = Path(root)
    served = root.parent
    return "\n".join(
        [
            "",
            "=== see and correct what the memory knows: the web inspector ===",
            f"  .venv/bin/uac token create {root} --name inspector     # prints a token, once",
            f"  .venv/bin/uac serve http --root {served}",
            f"  then open http://127.0.0.1:8765/ui and sign in to project {root.name!r} with that token",
            "  (overview, domain tables, the evidence chain record -> fact -> turn -> session, search,",
            "   the sandbox console, forget and corrections; see docs/inspector.md)",
        ]
    )


def _ask(question: str) -> None:
    print(f"\n  Q: {question}")


def _answer(text: str) -> None:
    print(_indent(text, "  A: ").replace("\n  A: ", "\n     "))


def _kyoto_from_records(memory: UserMemory) -> None:
    """Who went to Kyoto: the records channel of search finds the imported trips, and
    each hit points at its record in the view, whose fields give the answer."""
    question = "Who went to Kyoto?"
    _ask(f"{question}   (search; imported records are searchable)")
    hits = memory.search(question, k=8)
    for hit in hits[:5]:
        where = (
            f"{hit.record['domain']}.{hit.record['collection']}[{hit.record['position']}]"
            if hit.record
            else f"turns {list(hit.evidence)}"
        )
        print(f"     {hit.score:.4f} [{hit.channel}] {hit.text.splitlines()[0][:88]}  ({where})")
    state = memory.state
    trips = [state[h.record["domain"]][h.record["collection"]][h.record["position"]] for h in hits if h.record]
    kyoto = [t for t in trips if getattr(t, "city", None) == "Kyoto"]
    people = sorted({t.companions for t in kyoto if getattr(t, "companions", None)})
    dates = ", ".join(t.start_date.isoformat() for t in sorted(kyoto, key=lambda t: t.start_date))
    _answer(f"Maya, with {' and '.join(people) or 'nobody named'}: {len(kyoto)} Kyoto trips in the records ({dates}).")


TRIPS_TAKEN = """\
result = [(t.destination, t.country, str(t.start or t.end), t.companions, len(t.sources))
          for t in travel.trips if t.status.value == "done" and t.person == "Maya"]"""
SPENT = """\
bought = [(p.item, p.amount, p.currency) for p in finance.purchases if p.person == "Maya"]
eaten = [(m.place, m.amount, m.currency) for m in food.meals if m.person == "Maya" and m.amount]
result = bought + eaten"""
MOVED = """\
runs = [(w.activity, w.distance_km, w.duration_min, str(w.when)) for w in health.workouts if w.person == "Leo"]
homes = [(h.city, h.country, str(h.start), h.current) for h in general.homes if h.person == "Leo"]
result = runs + homes"""


def kinds_summary(kinds: dict) -> str:
    """One line per kind of the offline report: records, the facts they came from, and the
    facts its rules saw that stayed unclear on the timeline."""
    lines = ["  offline kinds (records <- facts; unclear facts stay on the timeline):"]
    for name, data in kinds.items():
        if data.get("status") == "empty" and not data.get("unclear"):
            continue
        why = "; ".join(f"{n} {reason}" for reason, n in (data.get("unclear_why") or {}).items())
        line = f"    {name:<9} {data.get('records', 0)} record(s) <- {data.get('facts', 0)} fact(s), {data.get('unclear', 0)} unclear"
        lines.append(
            line
            + (f" ({why})" if why else "")
            + (f" [{data['status']}: {data['reason']}]" if data.get("reason") else "")
        )
    return "\n".join(lines)


LEO_JOB = (
    "result = [(j.role, j.employer, str(j.start), j.sources) for j in work.jobs if j.person == 'Leo' and j.current]"
)


def _conversation_records_step(memory: UserMemory) -> None:
    """Typed records derived from the chat alone (no model): the offline compile turned
    what Maya told Leo into trips with a status, when they happened and with whom."""
    _ask("Which trips did Maya take, according to her chats with Leo?   (typed records derived from the chat)")
    print(_indent(TRIPS_TAKEN, "     >>> "))
    run = memory.run(TRIPS_TAKEN)
    if not run.ok:
        _answer(f"(the sandbox refused: {run.error})")
        return
    taken = run.to_json()["result"]
    lines = [
        f"{place} ({country or 'country unknown'}), {when}"
        + (f", with {' and '.join(people)}" if people else "")
        + f"  ({n} fact(s))"
        for place, country, when, people, n in taken
    ]
    _answer("\n".join(lines) or "(none found)")
    print("     (the Kyoto plan of May and 'Kyoto was wonderful' in July are one trip, done)")
    _ask("What did Maya buy and eat out, and what did it cost?   (amounts and currencies read from the chat)")
    print(_indent(SPENT, "     >>> "))
    run = memory.run(SPENT)
    spent = run.to_json()["result"] if run.ok else []
    _answer("\n".join(f"{what}: {amount:g} {currency}" for what, amount, currency in spent) or "(none found)")
    _ask("Leo's race and his new home?   (a workout and a home from the chat, the home with its country)")
    print(_indent(MOVED, "     >>> "))
    run = memory.run(MOVED)
    _answer(
        "\n".join(", ".join(str(v) for v in row) for row in (run.to_json()["result"] if run.ok else []))
        or f"(none found{': ' + str(run.error) if not run.ok else ''})"
    )
    _ask("What does Leo do for a living now?   (typed records derived from the chat)")
    print(_indent(LEO_JOB, "     >>> "))
    run = memory.run(LEO_JOB)
    jobs = run.to_json()["result"] if run.ok else []
    _answer(
        "; ".join(f"{role} at {employer} (cites {', '.join(sources)})" for role, employer, _, sources in jobs)
        or "(no current job found)"
    )


def _memorize_step(memory: UserMemory) -> None:
    """Ingest the example chat and search its facts."""
    _title("2. memorize: ingest three sessions of Maya's chat with Leo (rule-based extractor, no model)")
    report = _timed("ingest", memory.ingest, EXAMPLES / "conversation.json", extractor="rules")
    print(_indent(json.dumps(report.to_json(), indent=1)[:600]))
    facts = memory.facts()
    print(f"  {len(facts)} facts in memory/facts.jsonl, for example:")
    for fact in facts[:4]:
        print(f"    [{fact.id}] {fact.text}  (turns {', '.join(fact.evidence)})")
    _ask("What did Maya say about Lisbon?   (search, facts channel)")
    (hit,) = memory.search("What did Maya say about Lisbon?", k=1, channel="facts")
    _answer(f"{hit.text}  (said {hit.session_date}, turns {', '.join(hit.evidence)})")


def _structure_step(memory: UserMemory) -> None:
    """Import the example records and compile the typed domains."""
    _title("3. structure: import Maya's trips and meals, compile the facts into typed domains")
    for path, domain, collection in (
        # the travel app's bookings and the restaurant bills: records of their own, beside the
        # trips and meals out the offline compile derives from the conversation
        (EXAMPLES / "trips.csv", "travel", "bookings"),
        (EXAMPLES / "meals.jsonl", "food", "dining"),
    ):
        result = memory.import_records(path, domain=domain, collection=collection)
        data = result.to_json()
        print(
            f"  imported {path.name} -> domains/{domain}/{collection}: {data['records_added']} {data['record_type']} records"
        )
        if data["renamed"]:
            print(f"    field names made valid identifiers: {data['renamed']}")
    compiled = _timed("compile (offline view)", memory.compile)
    routing = compiled.to_json()["routing"]
    print(
        f"  facts routed to domains: {routing['by_meaning']} by meaning (embedding model), {routing['by_keywords']} by keywords"
    )
    for entry in compiled.domains:
        print(f"    {entry.domain:<14} {entry.facts_routed} fact(s) -> {entry.records} record(s)")
    print(kinds_summary(compiled.to_json().get("kinds") or {}))
    print("\n  MANIFEST.md:")
    print(_indent(memory.project.paths.manifest.read_text("utf-8"), "    "))
    schema = (memory.root / "domains" / "travel" / "schema.py").read_text("utf-8")
    print("  domains/travel/schema.py:")
    print(_indent(schema, "    "))


def _search_step(memory: UserMemory) -> None:
    """Questions answered by search."""
    _title("4. questions answered by search (facts, archive and imported records; dense + BM25, RRF)")
    _kyoto_from_records(memory)


def _sandbox_step(memory: UserMemory) -> None:
    """Questions answered exactly over the typed state."""
    _title("5. questions answered by computing exactly over the typed state in the sandbox")
    _ask("How many trips did I take in 2024?")
    print(_indent(TRIPS_2024, "     >>> "))
    _answer(json.dumps(memory.run(TRIPS_2024).to_json()["result"]))
    _ask("What do I spend on average on a meal out, by cuisine?")
    print(_indent(SPEND_BY_CUISINE, "     >>> "))
    _answer(json.dumps(memory.run(SPEND_BY_CUISINE).to_json()["result"]))
    _conversation_records_step(memory)


def _ask_step(memory: UserMemory) -> None:
    """Ask without a model."""
    _title("6. ask without a model: ranked evidence from every channel")
    _ask("Who went to Kyoto with Maya?")
    answer = memory.ask("Who went to Kyoto with Maya?", top_facts=3, top_archive=1)
    _answer(f"{(answer.message or '').split('. ')[0]}.")
    if answer.state is not None:
        print(f"  [STATE] {answer.state.loading}: domains {answer.state.domains}")
    for item in answer.facts + answer.archive:
        print(_indent(item.line(), "  "))


def _scripted_model_step(memory: UserMemory) -> None:
    """The answering loop with a scripted model."""
    _title("7. the answering loop with a scripted model (canned replies, no real model)")
    from .llm import LLMClient, ScriptedProvider

    scripted = LLMClient(ScriptedProvider.from_file(EXAMPLES / "scripted_model.jsonl"))
    replay = UserMemory.open(memory.root, llm=scripted)
    for question in ("Who went to Kyoto with Maya?", "What is my average dining spend by cuisine?"):
        answer = replay.ask(question, top_facts=5, top_archive=2)
        print(f"  Q: {question}")
        for run in answer.tool_runs:
            print(_indent(run.code, "     python> "))
            print(f"     result: {json.dumps(run.result['result'])}")
        print(f"  A: {answer.answer}")
        print(f"     (evidence: facts {[i.id for i in answer.facts[:3]]}, {answer.steps} step(s))")
    print("  Point UAC_LLM_PROVIDER/UAC_LLM_MODEL at a real model to answer for real (README: Configuration).")


def _health_step(memory: UserMemory) -> None:
    """The project's health and files."""
    _title("8. health and layout")
    for check in memory.doctor().checks:
        print(f"  [{check.status}] {check.name}: {check.detail}")
    _show_tree(memory.root)
    print(f"\nDone. Try: .venv/bin/uac search {memory.root} 'Who went to Kyoto?' --k 5")
    print(f'      .venv/bin/uac repl {memory.root} -c "{TRIPS_2024}" --json')


def main(argv: list[str] | None = None) -> int:
    if argv and argv[0] == "--inspector-hint":
        print(inspector_hint(resolve_project(argv[1] if len(argv) > 1 else "demo")))
        return 0
    target = resolve_project(argv[0] if argv else "demo")
    if target.exists():
        shutil.rmtree(target)

    _title("1. Maya's memory: a project for Maya, who chats with her friend Leo")
    memory = UserMemory.create(target, user_name="Maya", timezone="Europe/Lisbon")
    print(f"  created {memory.root} (user: Maya)")
    _memorize_step(memory)
    _structure_step(memory)
    _search_step(memory)
    _sandbox_step(memory)
    _ask_step(memory)
    _scripted_model_step(memory)
    _health_step(memory)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
