"""Progress of long work: the steps the library reports, the terminal bar, HTTP jobs."""

from __future__ import annotations

import json
import time

from uac.cli.common import progress_enabled
from uac.memory import UserMemory
from uac.progress import reporting, step


def test_nobody_listening_costs_nothing_and_listeners_nest():
    step(1, 2, "things")  # no listener: nothing happens
    seen: list[tuple] = []
    with reporting(lambda *a: seen.append(a)):
        step(1, 2, "things")
        with reporting(None):
            step(2, 2, "things")
    step(2, 2, "things")
    assert seen == [(1, 2, "things")]


def test_ingest_compile_import_and_repair_report_steps(tmp_path):
    memory = UserMemory.create(tmp_path / "p", user_name="Ann")
    files = []
    for n in range(3):
        path = tmp_path / f"s{n}.json"
        path.write_text(
            json.dumps(
                {
                    "date": f"2023-05-0{n + 1}",
                    "messages": [
                        {"role": "user", "content": f"I flew to Rome on trip {n}."},
                        {"role": "user", "content": f"I cooked pasta for dinner {n}."},
                    ],
                }
            ),
            "utf-8",
        )
        files.append(path)
    combined = tmp_path / "all.jsonl"
    combined.write_text("\n".join(p.read_text("utf-8") for p in files), "utf-8")
    seen: list[tuple] = []
    with reporting(lambda *a: seen.append(a)):
        memory.ingest(combined)
    sessions = [s for s in seen if s[2] == "sessions"]
    assert sessions[0][0] == 0 and sessions[-1][0] == sessions[-1][1] >= 1
    assert [d for d, _, _ in sessions] == sorted(d for d, _, _ in sessions)
    seen.clear()
    with reporting(lambda *a: seen.append(a)):
        report = memory.compile()
    assert seen[-1] == (len(report.domains), len(report.domains), "domains")
    records = tmp_path / "r.json"
    records.write_text(json.dumps([{"city": "Rome", "n": i} for i in range(10)]), "utf-8")
    seen.clear()
    with reporting(lambda *a: seen.append(a)):
        memory.import_records(records, domain="travel", collection="cities")
    assert seen[0] == (0, 10, "records") and seen[-1] == (10, 10, "records")
    seen.clear()
    with reporting(lambda *a: seen.append(a)):
        memory.doctor(repair=True)
    assert seen[-1][0] == seen[-1][1] and seen[-1][2] == "checks"
    seen.clear()
    with reporting(lambda *a: seen.append(a)):
        memory.doctor()
    assert seen == []  # only a repair is long enough to show
    memory.close()


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_the_bar_is_only_for_terminals_and_never_with_json():
    assert progress_enabled(False, _Stream(True))
    assert not progress_enabled(True, _Stream(True))
    assert not progress_enabled(False, _Stream(False))


def test_json_output_is_one_object_without_progress(tmp_path, capsys):
    from uac.cli import main

    memory = UserMemory.create(tmp_path / "p")
    memory.close()
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps({"date": "2023-05-01", "messages": [{"role": "user", "content": "I like tea."}]}), "utf-8"
    )
    assert main(["ingest", str(tmp_path / "p"), str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["facts_appended"] == 1
    assert captured.err == ""


def test_http_compile_jobs_report_progress(tmp_path):
    from uac.server.http.jobs import JobRunner

    runner = JobRunner(1)
    gate = {"go": False}

    def work():
        for done in range(4):
            step(done, 3, "domains")
            if done == 1:
                while not gate["go"]:
                    time.sleep(0.01)
        return {"ok": True}

    job = runner.submit("p", "compile", work)
    deadline = time.monotonic() + 10
    while (job.progress or {}).get("done") != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runner.get(job.id).to_json()["progress"] == {"done": 1, "total": 3, "unit": "domains"}
    gate["go"] = True
    runner.shutdown()
    assert job.status == "succeeded" and job.progress == {"done": 3, "total": 3, "unit": "domains"}
