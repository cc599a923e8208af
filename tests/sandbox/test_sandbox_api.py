"""The host API: RunResult, Session, run, tool, levels, codec."""

import datetime as dt
import decimal
import json
from dataclasses import dataclass

import pytest
from sandbox_support import run_ok

import sandbox
from sandbox import jail
from sandbox.codec import FORMAT, decode_state, encode_state
from sandbox.tool import PYTHON_TOOL, execute_tool_call


def test_one_shot_run(state):
    res = sandbox.run("result = len(trips)\nprint('hi')", state)
    assert res.to_json() == {"ok": True, "result": 5, "stdout": "hi\n", "error": None}


def test_one_shot_accepts_plain_domains():
    @dataclass
    class Item:
        name: str

    res = sandbox.run("result = items[0].name", {"shop": {"items": [Item("pen")]}})
    assert res.result == "pen"


def test_syntax_error_has_line_number(session):
    res = session.run("x = 1\ny = 2\nif x\n")
    assert res.to_json()["error"]["type"] == "SyntaxError"
    assert res.error["message"].startswith("line 3:")


def test_runtime_error_has_type_and_line(session):
    res = session.run("a = 1\nb = [1][a]")
    assert res.error == {"type": "IndexError", "message": "line 2: list index out of range"}


def test_to_json_shape(session):
    res = session.run("result = {'a': [1, 2]}")
    assert set(res.to_json()) == {"ok", "result", "stdout", "error"}
    assert json.loads(res.to_json_text()) == res.to_json()


def test_restart_after_crash_says_variables_are_lost(breach_session):
    run_ok(breach_session, "x = 41")
    crashed = breach_session._run_unrestricted_for_tests("import os\nos._exit(3)")
    assert crashed.error["type"] == "WorkerCrashed"
    assert "variables from earlier runs are lost" in crashed.error["message"]
    after = breach_session.run("result = x + 1")
    assert after.restarted and after.error["type"] == "NameError"
    assert run_ok(breach_session, "result = len(trips)") == 5


def test_closed_session_refuses(state):
    s = sandbox.Session(state)
    s.close()
    s.close()
    with pytest.raises(sandbox.SandboxError):
        s.run("x = 1")


def test_tool_schema_and_calls(session):
    assert PYTHON_TOOL["type"] == "function"
    fn = PYTHON_TOOL["function"]
    assert fn["name"] == "python" and fn["parameters"]["required"] == ["code"]
    assert fn["parameters"]["properties"]["code"]["type"] == "string"
    out = json.loads(execute_tool_call(session, json.dumps({"code": "result = len(trips)"})))
    assert out == {"ok": True, "result": 5, "stdout": "", "error": None}
    assert json.loads(execute_tool_call(session, {"code": "result = 2"}))["result"] == 2
    for bad in ["{not json", "[]", json.dumps({"code": 5}), {"nocode": 1}]:
        err = json.loads(execute_tool_call(session, bad))
        assert err["ok"] is False and err["error"]["type"] == "InvalidArguments"


def test_detect_level(level):
    assert level.level in ("jail", "process")
    assert level.reason
    assert sandbox.detect_level() is level
    assert set(level.to_dict()) >= {"level", "bubblewrap", "reason", "seccomp"}


def test_require_jail_fails_closed_without_jail(monkeypatch, state):
    process_plan = jail.LaunchPlan(jail.SandboxLevel("process", None, "bubblewrap not found"))
    monkeypatch.setitem(jail._CACHE, "plan", process_plan)
    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install -y bubblewrap"):
        sandbox.Session(state, require_jail=True)
    monkeypatch.setenv("UAC_SANDBOX_REQUIRE_JAIL", "1")
    with pytest.raises(sandbox.SandboxUnavailable):
        sandbox.run("result = 1", state)
    assert issubclass(sandbox.SandboxUnavailable, sandbox.SandboxError)


def test_require_jail_works_when_available(level, state):
    if level.level != "jail":
        pytest.skip("jail unavailable here")
    assert sandbox.run("result = 1", state, require_jail=True).result == 1


def test_missing_python_is_sandbox_unavailable(monkeypatch, state):
    plan = jail.launch_plan()

    class Broken(jail.LaunchPlan):
        def command(self, limits_json, unrestricted=False):
            return ["/nonexistent/python"]

    monkeypatch.setitem(jail._CACHE, "plan", Broken(plan.level, plan.bwrap, plan.map_uid))
    with pytest.raises(sandbox.SandboxUnavailable):
        sandbox.run("result = 1", state)


class TestCodec:
    def test_payload_shape(self, state):
        assert state["format"] == FORMAT
        assert state["types"]["Trip"]["fields"][:3] == ["city", "start", "nights"]
        trips = state["domains"]["travel"]["trips"]
        assert trips["$table"] == "Trip" and trips["rows"][0][1] == {"$date": "2024-05-01"}
        assert state["facts"]["$table"] == "Fact"
        json.dumps(state)

    def test_round_trip_of_values(self):
        @dataclass
        class Row:
            when: dt.datetime
            at: dt.time
            span: dt.timedelta
            price: decimal.Decimal
            ratio: float
            labels: set
            meta: dict

        row = Row(
            dt.datetime(2024, 1, 2, 3, 4, tzinfo=dt.timezone.utc),
            dt.time(10, 30),
            dt.timedelta(days=2, seconds=5),
            decimal.Decimal("1.10"),
            float("inf"),
            {"a"},
            {1: [dt.date(2024, 1, 1)]},
        )
        payload = json.loads(json.dumps(encode_state({"d": {"rows": [row], "one": row}})))
        decoded = decode_state(payload)
        got = decoded.bare["rows"][0]
        assert got.when == row.when and got.at == row.at and got.span == row.span and got.price == row.price
        assert got.ratio == float("inf") and got.labels == frozenset({"a"}) and got.meta[1] == (dt.date(2024, 1, 1),)
        assert decoded.bare["one"] == got and hash(got) == hash(decoded.bare["one"])

    def test_same_class_name_in_two_domains(self):
        def make(fields):
            return dataclass(type("Event", (), {"__annotations__": {f: str for f in fields}}))

        a, b = make(["x"]), make(["y"])
        payload = encode_state({"one": {"events": [a("1")]}, "two": {"events": [b("2")]}})
        assert {k: v["name"] for k, v in payload["types"].items()} == {"Event": "Event", "Event@2": "Event"}
        decoded = decode_state(payload)
        assert "events" not in decoded.bare
        assert decoded.domains["two"].events[0].y == "2"

    @pytest.mark.parametrize("bad", [{"bad-name": {}}, {"d": {"_hidden": 1}}, {"d": {"x": object()}}])
    def test_invalid_input(self, bad):
        with pytest.raises((ValueError, TypeError)):
            encode_state(bad)
