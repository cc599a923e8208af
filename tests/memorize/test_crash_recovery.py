"""kill -9 anywhere in an ingest loses nothing that was committed.

A real ``uac ingest`` process is killed with SIGKILL at each named crash point
(:mod:`uac.failpoints`: after extraction, between the log's records and its
commit line, after the commit, between each index's vectors and its corpus,
before the index manifest).  Then one ordinary command runs (a search, the
same ingest again, or another ingest), and after it ``uac doctor --json`` must
be ok and every committed fact must be found by a search for its text.  The
same holds for an LLM ingest whose model calls run side by side (the protocol
model, four at once): what a crash leaves is a prefix of the uninterrupted
run's records (facts and the links reconcile wrote at each commit), and the
same ingest again completes it exactly.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from uac.facts.log import FactLog
from uac.failpoints import POINTS
from uac.memory import UserMemory

pytestmark = pytest.mark.slow


def _conversation(sample: str, topics: list[str]) -> dict:
    conversation: dict = {"speaker_a": "Maya", "speaker_b": "Theo"}
    for number, topic in enumerate(topics, 1):
        conversation[f"session_{number}_date_time"] = f"10:00 am on {number + 3} May, 2023"
        conversation[f"session_{number}"] = [
            {"speaker": "Maya", "dia_id": f"D{number}:1", "text": f"I spent the whole weekend {topic}."},
            {"speaker": "Theo", "dia_id": f"D{number}:2", "text": f"Nice. My brother Felix loves {topic} too."},
            {"speaker": "Maya", "dia_id": f"D{number}:3", "text": f"Next month I will try {topic} in Porto."},
        ]
        if number > 1:  # a change of plan: reconciled with the session before, at the commit
            conversation[f"session_{number}"].append(
                {
                    "speaker": "Maya",
                    "dia_id": f"D{number}:4",
                    "text": f"I cancelled the plan to try {topics[number - 2]} in Porto.",
                }
            )
    return {"sample_id": sample, "conversation": conversation, "qa": []}


FIRST = _conversation("crash-a", ["kayaking on the river", "baking sourdough bread", "painting watercolor birds"])
SECOND = _conversation("crash-b", ["climbing at the gym", "learning the cello"])


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), "utf-8")
    return path


def _uac(*args: str, crash_at: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    extra = env or {}
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_CRASH")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", UAC_BLOCK_NETWORK="1", **extra)
    if crash_at:
        env["UAC_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "uac", *args], capture_output=True, text=True, env=env, timeout=600)


def _assert_every_fact_findable(root: Path) -> None:
    memory = UserMemory.open(root)
    try:
        facts = memory.facts()
        assert facts, "the log holds no facts"
        for fact in facts:
            hits = memory.search(fact.text, channel="facts", k=10)
            assert fact.id in [h.id for h in hits], f"{fact.id} ({fact.text!r}) is not found"
        sessions = {h.session_id for h in memory.search("weekend", channel="archive", k=50)}
        assert sessions == set(FactLog(root / "memory" / "facts.jsonl").read().sessions)
    finally:
        memory.close()


#: (crash point, the ordinary command that follows, whether the project had content before)
CASES = [
    ("ingest:extracted", "search", True),
    ("log:records", "ingest-same", False),
    ("log:records@2", "search", True),
    ("log:committed", "ingest-same", True),
    ("log:committed@2", "search", False),
    ("index:facts-vectors", "search", False),
    ("index:facts-vectors", "ingest-same", True),
    ("index:facts-corpus", "ingest-other", False),
    ("index:facts-corpus", "search", True),
    ("index:archive-vectors", "ingest-same", False),
    ("index:archive-corpus", "search", False),
    ("index:archive-corpus", "ingest-other", True),
    ("index:manifest", "search", False),
    ("index:manifest", "ingest-same", True),
]


def test_every_crash_point_is_covered():
    assert {point.partition("@")[0] for point, _, _ in CASES} == set(POINTS)


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> dict[str, Path]:
    """A fresh project and one holding FIRST (ingested by a real ``uac`` process),
    copied for every case."""
    base = tmp_path_factory.mktemp("crash-templates")
    first = _write(base / "first.json", FIRST)
    fresh, grown = base / "fresh", base / "grown"
    for root in (fresh, grown):
        assert _uac("init", str(root)).returncode == 0
    done = _uac("ingest", str(grown), str(first), "--extractor", "rules", "--json")
    assert done.returncode == 0, done.stderr
    return {"fresh": fresh, "grown": grown}


def _doctor_json(root: Path, capsys) -> dict:
    """``uac doctor PROJECT --json``, run through the CLI's entry point in this process."""
    from uac.cli import main

    capsys.readouterr()
    main(["doctor", str(root), "--json"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("point,then,prior", CASES, ids=[f"{p}-{t}-{'grown' if w else 'fresh'}" for p, t, w in CASES])
def test_kill_9_mid_ingest_then_one_command_leaves_a_healthy_findable_memory(
    tmp_path, templates, capsys, point, then, prior
):
    root = tmp_path / "alice"
    shutil.copytree(templates["grown" if prior else "fresh"], root)
    first = _write(tmp_path / "first.json", FIRST)
    second = _write(tmp_path / "second.json", SECOND)
    target = second if prior else first

    crashed = _uac("ingest", str(root), str(target), "--extractor", "rules", "--json", crash_at=point)
    assert crashed.returncode == -signal.SIGKILL, (crashed.returncode, crashed.stderr[-2000:])

    memory = UserMemory.open(root)
    try:
        if then == "search":
            memory.search("weekend", k=5)
        elif then == "ingest-same":
            memory.ingest(target, extractor="rules")
        else:
            memory.ingest(second if target == first else first, extractor="rules")
    finally:
        memory.close()

    report = _doctor_json(root, capsys)
    assert report["ok"], json.dumps(report["checks"], indent=1)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["indexes"]["status"] == "ok", checks["indexes"]
    _assert_every_fact_findable(root)


#: the LLM extractor with calls side by side (the rule model, 4 at once): (crash point, then, prior)
PARALLEL_CASES = [
    ("ingest:extracted@2", "ingest-same", False),
    ("log:records@2", "ingest-same", True),
    ("log:committed@2", "ingest-same", False),
    ("log:committed", "search", True),
    ("index:facts-vectors", "ingest-same", False),
    ("ingest:extracted@3", "ingest-same", False),
]
PARALLEL_ENV = {"UAC_LLM_PROVIDER": "protocol", "UAC_LLM_CONCURRENCY": "4"}


def _facts_of(root: Path) -> list[dict]:
    """The committed records of the log, in order (facts and links; commits without their time)."""
    log = FactLog(root / "memory" / "facts.jsonl")
    data = (root / "memory" / "facts.jsonl").read_bytes()[: log.read().good_bytes]
    rows = [json.loads(line) for line in data.decode("utf-8").split("\n") if line.strip()]
    return [
        {k: v for k, v in row.items() if row["kind"] != "commit" or k not in ("committed_at", "checksum")}
        for row in rows
    ]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, templates) -> dict[bool, list[dict]]:
    """The records an LLM ingest without a crash leaves, on each template."""
    out = {}
    base = tmp_path_factory.mktemp("uninterrupted")
    for prior in (False, True):
        root = base / ("grown" if prior else "fresh")
        shutil.copytree(templates["grown" if prior else "fresh"], root)
        target = _write(base / f"target-{prior}.json", SECOND if prior else FIRST)
        done = _uac("ingest", str(root), str(target), "--extractor", "llm", "--json", env=PARALLEL_ENV)
        assert done.returncode == 0, done.stderr
        out[prior] = _facts_of(root)
        # the commits reconciled a change of plan with the session before (a model call)
        assert any(r.get("relation") == "cancels" for r in out[prior]), out[prior]
    return out


@pytest.mark.parametrize(
    "point,then,prior", PARALLEL_CASES, ids=[f"{p}-{t}-{'grown' if w else 'fresh'}" for p, t, w in PARALLEL_CASES]
)
def test_kill_9_mid_parallel_llm_ingest_loses_nothing_committed(
    tmp_path, templates, uninterrupted, capsys, monkeypatch, point, then, prior
):
    root = tmp_path / "alice"
    shutil.copytree(templates["grown" if prior else "fresh"], root)
    target = _write(tmp_path / "target.json", SECOND if prior else FIRST)

    crashed = _uac("ingest", str(root), str(target), "--extractor", "llm", "--json", crash_at=point, env=PARALLEL_ENV)
    assert crashed.returncode == -signal.SIGKILL, (crashed.returncode, crashed.stderr[-2000:])
    committed = _facts_of(root)
    assert committed == uninterrupted[prior][: len(committed)]  # a prefix of the whole run, in order

    for key, value in PARALLEL_ENV.items():
        monkeypatch.setenv(key, value)
    memory = UserMemory.open(root)
    try:
        if then == "search":
            memory.search("weekend", k=5)
        else:
            memory.ingest(target, extractor="llm")
    finally:
        memory.close()
    if then == "ingest-same":
        assert _facts_of(root) == uninterrupted[prior]
    report = _doctor_json(root, capsys)
    assert report["ok"], json.dumps(report["checks"], indent=1)
    _assert_every_fact_findable(root)
