"""kill -9 in the middle of an incremental compile: every domain is as before or as after
a whole batch (its files load, its ledger belongs to them), and the next compile continues."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from uac.compile.ledger import load_ledger
from uac.dialect import render
from uac.failpoints import COMPILE_POINTS
from uac.memory import UserMemory
from uac.view import store

from .helpers import handler_for, make_facts, records

CHILD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {tests!r})
    from compile.helpers import handler_for, make_facts
    from uac.llm import LLMClient, ScriptedProvider
    from uac.memory import UserMemory

    inner = handler_for(lambda i: ["travel", "food", "work"][int(i[1:]) % 3])

    calls = [0]

    def slow(request):
        calls[0] += 1
        print("call", calls[0], flush=True)
        time.sleep(0.02)
        return inner(request)

    memory = UserMemory.open({root!r}, llm=LLMClient(ScriptedProvider(handler=slow), concurrency={concurrency}))
    print("ready", flush=True)
    memory.compile(facts=make_facts(60))
    print("done", flush=True)
    """
)


def split3(fact_id: str) -> str:
    return ["travel", "food", "work"][int(fact_id[1:]) % 3]


def check_consistent(root: Path, facts_ids: set[str]) -> int:
    """Every domain loads through the full validator, its load cache (if any) holds the same,
    and its ledger is the one of its files; returns the records."""
    memory = UserMemory.open(root)
    records = 0
    for name in store.domain_names(memory.project):
        loaded = store.load_domain(memory.project, name, cache=False)
        cached = store.load_domain(memory.project, name)
        assert cached.source_hash == loaded.source_hash and cached.schema == loaded.schema
        assert {n: [render.flat(r) for r in v] for n, v in cached.values.items()} == {
            n: [render.flat(r) for r in v] for n, v in loaded.values.items()
        }
        ledger = load_ledger(memory.project.paths.internal, name, loaded.source_hash)
        assert ledger.matched, f"{name}: the ledger does not belong to the files"
        cited = loaded.cited_ids()
        assert cited <= facts_ids
        records += loaded.record_count()
    return records


@pytest.mark.slow
@pytest.mark.parametrize("call, delay", [(2, 0.0), (3, 0.03), (5, 0.01), (7, 0.05), (9, 0.0), (12, 0.04), (15, 0.02)])
def test_kill_nine_mid_compile_leaves_whole_batches(tmp_path, call, delay, scripted_llm, scripted):
    """The child is killed after its model saw ``call`` requests (plus ``delay`` seconds:
    before, while or after the batch is written)."""
    root = tmp_path / "alice"
    memory = UserMemory.create(root, user_name="Alice")
    memory.project.save_config(memory.project.config.with_section("compile", batch_facts=4))
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(Path(__file__).resolve().parents[1]), root=str(root), concurrency=None))
    child = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env={**os.environ, "UAC_BLOCK_NETWORK": "1"}
    )
    assert child.stdout.readline().strip() == "ready"
    for line in child.stdout:
        if line.strip() == f"call {call}":
            break
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    facts = make_facts(60)
    ids = {f.id for f in facts}
    check_consistent(root, ids)
    scripted.handler = handler_for(split3)
    resumed = UserMemory.open(root, llm=scripted_llm)
    report = resumed.compile(facts=facts)
    totals = report.to_json()["totals"]
    assert totals["facts_recorded"] == 60 and totals["facts_pending"] == 0, json.dumps(report.to_json())
    assert check_consistent(root, ids) == 60
    # no fact was recorded twice
    sources = [s for d in ("travel", "food", "work") for r in records(resumed, d) for s in r.sources]
    assert sorted(sources) == sorted(ids)


def _resume_and_check(root: Path, scripted, scripted_llm) -> None:
    facts = make_facts(60)
    ids = {f.id for f in facts}
    check_consistent(root, ids)
    scripted.handler = handler_for(split3)
    resumed = UserMemory.open(root, llm=scripted_llm)
    report = resumed.compile(facts=facts)
    totals = report.to_json()["totals"]
    assert totals["facts_recorded"] == 60 and totals["facts_pending"] == 0, json.dumps(report.to_json())
    assert check_consistent(root, ids) == 60
    sources = [s for d in ("travel", "food", "work") for r in records(resumed, d) for s in r.sources]
    assert sorted(sources) == sorted(ids)


@pytest.mark.slow
@pytest.mark.parametrize("point", [f"{p}@{n}" for p in COMPILE_POINTS for n in (1, 4, 7)])
def test_kill_nine_at_each_step_of_a_batch_commit(tmp_path, point, scripted_llm, scripted):
    """Killed right after a batch's ledger is written (its files not yet swapped in), or right
    after its files are swapped in (before the load cache is filled at the end of the domain):
    the files load fresh, the ledger is theirs, the cache never serves other files, and the
    next compile finishes the work with three domains compiled side by side."""
    root = tmp_path / "alice"
    memory = UserMemory.create(root, user_name="Alice")
    memory.project.save_config(memory.project.config.with_section("compile", batch_facts=4))
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(Path(__file__).resolve().parents[1]), root=str(root), concurrency=3))
    env = {**os.environ, "UAC_BLOCK_NETWORK": "1", "UAC_CRASH_AT": point}
    child = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr
    assert "done" not in child.stdout
    _resume_and_check(root, scripted, scripted_llm)
