"""``make demo``: build a sample user project offline and show what it can do.

Runs without any model or network: the project is created under
``user_projects/demo`` (or ``$UAC_HOME/demo``) from the sample data in
``examples/demo/`` -- a three-session conversation between Maya and Leo, a CSV
of trips and a JSONL of restaurant meals -- and each step prints what it did.
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

TRIPS_2024 = "result = len([t for t in trips if t.start_date.year == 2024])"
SPEND_BY_CUISINE = """\
from collections import defaultdict
from statistics import mean
by = defaultdict(list)
for m in meals:
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
    return "\n".join([
        "",
        "=== see and correct what the memory knows: the web inspector ===",
        f"  .venv/bin/uac token create {root} --name inspector     # prints a token, once",
        f"  .venv/bin/uac serve http --root {served}",
        f"  then open http://127.0.0.1:8765/ui and sign in to project {root.name!r} with that token",
        "  (overview, domain tables, the evidence chain record -> fact -> turn -> session, search,",
        "   the sandbox console, forget and corrections; see docs/inspector.md)",
    ])


def main(argv: list[str] | None = None) -> int:
    if argv and argv[0] == "--inspector-hint":
        print(inspector_hint(resolve_project(argv[1] if len(argv) > 1 else "demo")))
        return 0
    target = resolve_project(argv[0] if argv else "demo")
    if target.exists():
        shutil.rmtree(target)

    _title("1. create a user project")
    memory = UserMemory.create(target, user_name="Maya", timezone="Europe/Lisbon")
    print(f"  created {memory.root}")

    _title("2. memorize: ingest a conversation (rule-based extractor, no model)")
    report = _timed("ingest", memory.ingest, EXAMPLES / "conversation.json", extractor="rules")
    print(_indent(json.dumps(report.to_json(), indent=1)[:600]))
    facts = memory.facts()
    print(f"  {len(facts)} facts in memory/facts.jsonl, for example:")
    for fact in facts[:4]:
        print(f"    [{fact.id}] {fact.text}  (turns {', '.join(fact.evidence)})")

    _title("3. structure: import records and compile the facts into typed domains")
    for path, domain, collection in (
        (EXAMPLES / "trips.csv", "travel", "trips"),
        (EXAMPLES / "meals.jsonl", "food", "meals"),
    ):
        result = memory.import_records(path, domain=domain, collection=collection)
        data = result.to_json()
        print(f"  imported {path.name} -> domains/{domain}/{collection}: {data['records_added']} {data['record_type']} records")
        if data["renamed"]:
            print(f"    field names made valid identifiers: {data['renamed']}")
    compiled = _timed("compile (offline view)", memory.compile)
    print(_indent(json.dumps(compiled.to_json(), indent=1)[:700]))
    print("\n  MANIFEST.md:")
    print(_indent(memory.project.paths.manifest.read_text("utf-8"), "    "))
    schema = (memory.root / "domains" / "travel" / "schema.py").read_text("utf-8")
    print("  domains/travel/schema.py:")
    print(_indent(schema, "    "))

    _title("4. search the FACTS and ARCHIVE channels (dense + BM25, RRF)")
    for hit in memory.search("Who went to Kyoto with Maya?", k=4):
        print(f"  {hit.score:.4f} [{hit.channel}:{hit.id}] {hit.text.splitlines()[0][:90]}  turns {list(hit.evidence)}")

    _title("5. compute exactly over the typed state in the sandbox")
    for code in (TRIPS_2024, SPEND_BY_CUISINE):
        print(_indent(code, "  >>> "))
        print(_indent(json.dumps(memory.run(code).to_json()), "  "))

    _title("6. ask without a model: ranked evidence from every channel")
    answer = memory.ask("Who went to Kyoto with Maya?", top_facts=3, top_archive=1)
    print(f"  {answer.message.split('. ')[0]}.")
    print(f"  [STATE] {answer.state.loading}: domains {answer.state.domains}")
    for item in answer.facts + answer.archive:
        print(_indent(item.line(), "  "))

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

    _title("8. health and layout")
    for check in memory.doctor().checks:
        print(f"  [{check.status}] {check.name}: {check.detail}")
    _show_tree(memory.root)
    print(f"\nDone. Try: .venv/bin/uac ask {memory.root} 'How many trips did I take in 2024?'")
    print(f"      .venv/bin/uac repl {memory.root} -c \"{TRIPS_2024}\" --json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
