"""The view follows the log: after an ingest the typed view is brought up to date by
itself, and every reader (ask, repl) says how many facts it does not include yet."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from uac.cli import app
from uac.llm import LLMClient, ScriptedProvider
from uac.memory import UserMemory

pytestmark = pytest.mark.follows_log

OSLO = {"date": "2024-06-03", "messages": [{"role": "user", "content": "I flew to Oslo on Friday for a conference."}]}
LIMA = {"date": "2024-07-10", "messages": [{"role": "user", "content": "I got back from Lima yesterday."}]}


def _cities(memory: UserMemory) -> str:
    return json.dumps(memory.run("result = [record_dict(t) for t in trips]").to_json()["result"])


def test_a_session_ingested_is_in_the_view_that_answers_at_once(tmp_path):
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya")
    report = memory.add_session(OSLO)
    view = report.to_json()["view"]
    assert view["status"] == "compiled" and view["mode"] == "offline", view
    assert view["domains_changed"] == ["travel"] and view["facts_not_included"] == 0 and view["seconds"] > 0
    answer = memory.ask("Where did I travel?")
    assert "Oslo" in answer.state.text
    assert answer.to_json()["view"] == {"facts_not_included": 0, "catching_up": False}
    assert "Oslo" in _cities(memory)
    assert memory.doctor().check("view").status == "ok"
    memory.close()


def test_turned_off_the_view_stays_and_the_readers_say_it_lags(tmp_path):
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya")
    memory.add_session(OSLO)
    report = memory.add_session(LIMA, compile=False)
    assert report.view.status == "off" and report.view.reason == "turned off for this ingest" and report.view.lag == 1
    assert "Lima" not in _cities(memory)
    answer = memory.ask("Where did I travel?")
    assert answer.to_json()["view"] == {"facts_not_included": 1, "catching_up": False}
    assert answer.view_lag.line() == "The view does not include 1 fact(s) yet: run 'uac compile'."
    # nothing new in the input, but the view lags from before: this ingest catches it up
    again = memory.add_session(LIMA)
    assert again.skipped and again.view.status == "compiled" and again.view.lag == 0
    assert "Lima" in _cities(memory)
    # nothing new and nothing behind: no compile at all
    assert memory.add_session(LIMA).view.status == "current"
    memory.close()


def test_compile_auto_false_in_the_config_turns_it_off_and_true_per_call_wins(tmp_path):
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya")
    memory.project.save_config(memory.project.config.with_section("compile", auto=False))
    reopened = UserMemory.open(memory.root)
    assert "auto = false" in (memory.root / "uac.toml").read_text()
    off = reopened.add_session(OSLO)
    assert off.view.status == "off" and off.view.reason == "[compile] auto = false in uac.toml"
    assert reopened.view_lag().facts == 1
    on = reopened.add_session(LIMA, compile=True)
    assert on.view.status == "compiled" and reopened.view_lag().facts == 0
    reopened.close()
    memory.close()


def test_a_compile_that_fails_after_the_ingest_leaves_the_ingest_standing(tmp_path):
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya")
    domains = memory.project.paths.domains
    shutil.rmtree(domains)
    domains.write_text("not a directory")  # the view cannot be written
    report = memory.add_session(OSLO)
    assert report.sessions_added and report.facts_appended == 1
    assert report.view.status == "failed" and "File exists" in report.view.reason and report.view.lag == 1
    assert "not brought up to date" in report.view.line() and "run 'uac compile'" in report.view.line()
    assert ["Oslo" in f.text for f in memory.facts()] == [True]
    memory.close()


def test_a_batch_the_model_fails_counts_as_not_included(tmp_path):
    failing = LLMClient(
        ScriptedProvider(handler=lambda r: {"error": "fatal", "message": "503 from the endpoint"}), sleep=lambda s: None
    )
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya", llm=failing)
    report = memory.add_session(OSLO, extractor="rules")
    assert report.view.status == "failed" and report.view.mode == "incremental"
    assert "503 from the endpoint" in report.view.reason and report.view.lag == 1
    memory.close()


def test_the_incremental_catch_up_compiles_only_the_new_facts(tmp_path):
    from uac.llm.rule_model import respond_entry

    seen: list[str] = []

    def model(request):
        seen.append("\n".join(m.content or "" for m in request.messages))
        return respond_entry(request)

    llm = LLMClient(ScriptedProvider(handler=model), sleep=lambda s: None)
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya", llm=llm)
    first = memory.add_session(OSLO, extractor="rules")
    assert first.view.status == "compiled" and first.view.mode == "incremental" and first.view.lag == 0, first.view
    assert "Oslo" in json.dumps(memory.sandbox_state(), default=str)
    seen.clear()
    second = memory.add_session(LIMA, extractor="rules")
    assert second.view.status == "compiled" and second.view.lag == 0, second.view
    assert "Lima" in json.dumps(memory.sandbox_state(), default=str)
    # the second catch-up routed only the new fact: the first one is already recorded
    routes = [prompt.split("Facts (one per line", 1)[1] for prompt in seen if "Route each fact" in prompt]
    old_id, new_id = f"{first.sessions_added[0]}-f1", f"{second.sessions_added[0]}-f1"
    assert routes and all(old_id not in listed for listed in routes) and any(new_id in listed for listed in routes)
    memory.close()


def test_the_cli_ingest_reports_the_catch_up_and_ask_and_repl_say_when_the_view_lags(tmp_path):
    runner = CliRunner()
    root = tmp_path / "maya"
    assert runner.invoke(app, ["init", str(root), "--user-name", "Maya"]).exit_code == 0
    oslo, lima = tmp_path / "oslo.json", tmp_path / "lima.json"
    oslo.write_text(json.dumps(OSLO))
    lima.write_text(json.dumps(LIMA))
    done = runner.invoke(app, ["ingest", str(root), str(oslo)])
    assert done.exit_code == 0, done.output
    assert "View: caught up (offline compile," in done.output and "domains changed: travel." in done.output
    asked = runner.invoke(app, ["ask", str(root), "Where did I travel?", "--json"])
    assert json.loads(asked.output)["view"] == {"facts_not_included": 0, "catching_up": False}
    trips = runner.invoke(app, ["repl", str(root), "-c", "result = [record_dict(t) for t in trips]", "--json"])
    assert "Oslo" in json.dumps(json.loads(trips.output)["result"])
    held = runner.invoke(app, ["ingest", str(root), str(lima), "--no-compile", "--json"])
    assert json.loads(held.output)["view"]["status"] == "off"
    text = runner.invoke(app, ["ask", str(root), "Where did I travel?"])
    assert "[VIEW] The view does not include 1 fact(s) yet: run 'uac compile'." in text.output
    ran = runner.invoke(app, ["repl", str(root), "-c", "result = len(trips)", "--json"])
    assert json.loads(ran.output)["view"] == {"facts_not_included": 1, "catching_up": False}
    plain = runner.invoke(app, ["repl", str(root), "-c", "result = len(trips)"])
    assert "[view] The view does not include 1 fact(s) yet" in plain.output
