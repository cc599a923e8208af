"""kill -9 while the view catches up after an ingest: the log is complete, every domain is
as before or as after a whole batch, the indexes answer, and the next ingest (or compile)
completes the view."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from uac.facts.log import FactLog
from uac.memory import UserMemory
from uac.view import store

from .helpers import handler_for

pytestmark = [pytest.mark.slow, pytest.mark.follows_log]

SESSIONS = [
    {"date": "2024-05-01", "messages": [{"role": "user", "content": "I flew to Oslo on Friday for a conference."}]},
    {
        "date": "2024-05-08",
        "messages": [{"role": "user", "content": "I had dinner at Nopa, a lovely Italian restaurant, with my sister."}],
    },
    {
        "date": "2024-05-15",
        "messages": [{"role": "user", "content": "I started a new job at Initech as a data engineer."}],
    },
]
DOMAIN_OF = {"Oslo": "travel", "Nopa": "food", "Initech": "work"}

CHILD = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    from compile.test_follow_crash import model_of
    from uac.memory import UserMemory

    memory = UserMemory.open({root!r}, llm=model_of({incremental!r}))
    report = memory.ingest({file!r}, extractor="rules")
    print("done", report.view.status, flush=True)
    """
)


def model_of(incremental: bool):
    """The scripted rule model (routing by the fact's place) for the incremental catch-up, else none."""
    if not incremental:
        return None
    from uac.llm import LLMClient, ScriptedProvider

    return LLMClient(ScriptedProvider(handler=handler_for(lambda _id: "life")), sleep=lambda _s: None)


def _run_child(tmp_path: Path, root: Path, point: str, incremental: bool) -> subprocess.CompletedProcess:
    file = tmp_path / "sessions.json"
    file.write_text(json.dumps(SESSIONS))
    script = tmp_path / "child.py"
    script.write_text(
        CHILD.format(
            tests=str(Path(__file__).resolve().parents[1]), root=str(root), file=str(file), incremental=incremental
        )
    )
    env = {**os.environ, "UAC_BLOCK_NETWORK": "1", "UAC_CRASH_AT": point}
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "point, incremental",
    [
        ("history:swapped@1", False),
        ("history:swapped@2", False),
        ("compile:ledger@1", True),
        ("compile:swapped@1", True),
    ],
)
def test_kill_nine_while_the_view_catches_up_after_an_ingest(tmp_path, point, incremental):
    root = tmp_path / "maya"
    created = UserMemory.create(root, user_name="Maya")
    # one fact per batch: a crash after the first batch leaves the others out
    created.project.save_config(created.project.config.with_section("compile", batch_facts=1))
    created.close()
    child = _run_child(tmp_path, root, point, incremental)
    assert child.returncode == -9, child.stdout + child.stderr  # killed mid catch-up, not finished
    # the log is complete: every session committed with its fact
    state = FactLog(root / "memory" / "facts.jsonl").read()
    assert len(state.sessions) == 3 and len(state.facts) == 3
    memory = UserMemory.open(root, llm=model_of(incremental))
    # every domain loads through the full validator, and cites only facts of the log
    for name in store.domain_names(memory.project):
        loaded = store.load_domain(memory.project, name, cache=False)
        assert loaded.cited_ids() <= set(state.facts)
    # the indexes answer: each fact is found by its words
    for word in DOMAIN_OF:
        assert any(word in hit.text for hit in memory.search(word, channel="facts", k=3)), word
    doctor = memory.doctor()
    assert doctor.check("fact_log").status == "ok" and doctor.check("indexes").status == "ok"
    assert memory.view_lag().facts > 0  # the crash left the view behind the log
    # the same ingest again adds nothing, and completes the view
    again = memory.ingest(tmp_path / "sessions.json", extractor="rules")
    assert again.skipped and again.view.status == "compiled", again.view
    assert again.view.lag == 0 and memory.view_lag().facts == 0
    assert memory.doctor().check("view").status == "ok"
    cited = set().union(*(store.load_domain(memory.project, n).cited_ids() for n in store.domain_names(memory.project)))
    assert cited == set(state.facts)
    memory.close()
