"""The python tool: a description generated from the policy and the state, errors that
name the alternative, a way to list the names, enums kept, output capped."""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass

import pytest
from sandbox_support import run_err, run_ok

import sandbox
from sandbox.builtins import ALTERNATIVES, FORBIDDEN_BUILTINS, HELPERS, SAFE_BUILTINS
from sandbox.codec import encode_state
from sandbox.modules import ALLOWED_MODULES
from sandbox.tool import PYTHON_TOOL, cap_output, describe_python_tool, execute_tool_call, python_tool


def _section(text: str, head: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(head))


def test_the_description_names_every_builtin_module_and_helper_the_worker_has(state, session):
    text = describe_python_tool(state)
    listed = _section(text, "Builtins:")
    for name in SAFE_BUILTINS:
        if name not in ("True", "False", "None", "NotImplemented", "Ellipsis"):
            assert re.search(rf"\b{name}\b", listed), name
    for helper in HELPERS:
        assert f"{helper}(" in listed
    assert _section(text, "Imports:") == (
        "Imports: "
        + ", ".join(ALLOWED_MODULES)
        + " (none is imported for you: write `import re` before using re; no other module)."
    )
    # what the description says exists does exist in the worker
    names = re.findall(r"\b([a-z_]+)\b", listed.split(";")[0].removeprefix("Builtins: "))
    assert run_ok(session, f"result = all(callable(f) for f in [{', '.join(names)}])") is True
    assert (
        run_ok(
            session,
            "result = [callable(repl_names), callable(record_fields), callable(record_dict), callable(type_name)]",
        )
        == [True] * 4
    )


def test_a_module_is_there_once_the_code_imports_it_as_the_description_says(fresh_session):
    run_err(fresh_session, "result = re.escape('a.b')", "NameError")
    assert run_ok(fresh_session, "import re\nresult = re.escape('a.b')") == "a\\.b"


def test_every_refused_builtin_in_the_description_fails_naming_its_alternative(state, session):
    refused = _section(describe_python_tool(state), "Not available:")
    named = re.findall(r"\b(\w+)\(\) \(use ", refused)
    assert {"type", "getattr", "dir", "globals", "help"} <= set(named)
    for name in named:
        assert name in FORBIDDEN_BUILTINS
        message = run_err(session, f"x = {name}", "NameError")
        assert ALTERNATIVES[name] in message, message
    assert "str.format and format_map (use f-strings)" in refused
    assert "f-strings" in run_err(session, "x = '{}'.format(1)", "AttributeError")
    assert "Names starting with `_` are refused" in refused


@pytest.mark.parametrize(
    "code, hint",
    [
        ("x = trips[0].__class__", "type_name(x)"),
        ("x = trips[0]._asdict()", "record_dict(r)"),
        ("x = trips[0]._fields", "record_fields(r)"),
        ("_hidden = 1", "names starting with '_' are refused"),
    ],
)
def test_underscore_errors_name_the_alternative(session, code, hint):
    assert hint in run_err(session, code, "PolicyError")


def test_the_alternatives_work(session):
    assert run_ok(session, "result = [type_name(trips[0]), type_name(trips[0].start), record_fields(meals[0])]") == [
        "Trip",
        "date",
        ["cuisine", "when", "price"],
    ]
    assert run_ok(session, "result = record_dict(trips[2])['city']") == "Berlin"
    assert "takes a state record" in run_err(session, "record_fields(3)", "TypeError")
    # the dict is a copy: changing it leaves the record alone
    assert run_ok(session, "d = record_dict(trips[0])\nd['city'] = 'X'\nresult = trips[0].city") == "Paris"


def test_the_description_lists_the_state_and_the_shared_names(state):
    text = describe_python_tool(state)
    assert "`travel.trips` (also `trips`): 5 Trip records; fields: city (str), start (date), nights (int)" in text
    assert "purpose (Purpose)" in text
    assert "there is no global `notes`: write `travel.notes` or `dining.notes`" in text
    assert "`travel.notes` (also" not in text
    assert "`facts`: 2 Fact records" in text and "session_date (date)" in text
    assert "enum `Purpose` (the global `Purpose`), members WORK, LEISURE" in text
    assert "persist across calls, also after a call that raised an error" in text
    assert "cut at 8,000 characters" in describe_python_tool(state) and "cut at 500 characters" in describe_python_tool(
        state, output_chars=500
    )
    schema = python_tool(state)
    assert schema["function"]["name"] == "python" and schema["function"]["description"] == text
    assert "`trips`" in PYTHON_TOOL["function"]["description"]  # the generic one explains the naming rule


def test_a_shared_name_fails_with_the_qualified_names(session):
    message = run_err(session, "result = len(notes)", "NameError")
    assert "travel.notes or dining.notes" in message
    assert "repl_names()" in run_err(session, "result = tripz", "NameError")


def test_repl_names_lists_state_variables_and_modules(fresh_session):
    run_ok(
        fresh_session,
        "import statistics\nspent = sum(t.cost for t in trips)\ndef avg(xs):\n    return sum(xs) / len(xs)",
    )
    names = run_ok(fresh_session, "result = repl_names()")
    assert names["collections"]["travel.trips"] == "5 Trip records; also the global trips"
    assert names["collections"]["travel.notes"] == "1 Note records"
    assert names["shared_names"] == {"notes": ["travel.notes", "dining.notes"]}
    assert names["facts"] == "2 Fact records"
    assert names["enums"] == {"Purpose": ["WORK", "LEISURE"]}
    assert names["variables"] == {"statistics": "module", "spent": "float", "avg": "function"}
    assert names["modules"] == list(ALLOWED_MODULES) and set(names["helpers"]) == set(HELPERS)


def test_variables_survive_a_failed_call(fresh_session):
    run_err(fresh_session, "kept = 41\ncount = len(trips)\nraise ValueError('boom')", "ValueError")
    assert run_ok(fresh_session, "result = kept + 1") == 42
    run_err(fresh_session, "x = tripz", "NameError")
    assert run_ok(fresh_session, "result = count") == 5


class TripStatus(enum.Enum):
    BOOKED = "booked"
    DONE = "done"


class Priority(enum.Enum):
    LOW = 1
    HIGH = 2


@dataclass
class Booking:
    city: str
    status: TripStatus
    priority: Priority


def test_records_keep_their_declared_enum_types():
    payload = encode_state(
        {
            "travel": {
                "bookings": [
                    Booking("Oslo", TripStatus.BOOKED, Priority.HIGH),
                    Booking("Rome", TripStatus.DONE, Priority.LOW),
                ]
            }
        }
    )
    assert payload["types"]["TripStatus"] == {"name": "TripStatus", "members": [["BOOKED", "booked"], ["DONE", "done"]]}
    code = (
        "b = bookings[0]\n"
        "result = [b.status.value, b.status.name, b.status == 'booked', b.status == TripStatus.BOOKED,\n"
        "          b.priority.value, b.priority > Priority.LOW, type_name(b.status), sorted(m.value for m in TripStatus),\n"
        "          [x.city for x in bookings if x.status is TripStatus.DONE], b, f'{b.status}']"
    )
    with sandbox.Session(payload) as session:
        value = run_ok(session, code)
    assert value == [
        "booked",
        "BOOKED",
        True,
        True,
        2,
        True,
        "TripStatus",
        ["booked", "done"],
        ["Rome"],
        {"city": "Oslo", "status": "booked", "priority": 2},
        "booked",
    ]


def test_enum_names_never_hide_a_collection():
    @dataclass
    class Thing:
        kind: TripStatus

    payload = encode_state({"d": {"TripStatus": [1, 2], "things": [Thing(TripStatus.DONE)]}})
    with sandbox.Session(payload) as session:
        assert run_ok(session, "result = [len(TripStatus), things[0].kind.value]") == [2, "done"]
    assert "(the global `TripStatus`)" not in describe_python_tool(payload)


def test_output_sent_back_is_capped_with_a_marker(session):
    big = session.run("result = ['x' * 100 for i in range(2000)]\nprint('y' * 30000)")
    full = json.dumps(big.to_json())
    assert len(full) > 200_000
    text = cap_output(big.to_json(), 8_000)
    assert 7_000 <= len(text) <= 8_000
    quoted = session.run("result = ['say \"hi\"\\n' * 20 for i in range(500)]").to_json()
    assert len(cap_output(quoted, 2_000)) <= 2_000  # escaping is counted too
    capped = json.loads(text)
    assert capped["ok"] is True
    assert "output cut at 8,000 characters" in capped["cut"] and "return a smaller value" in capped["cut"]
    assert "of 30,001 characters" in capped["cut"] and "characters of its JSON" in capped["cut"]
    assert capped["result"].startswith('["xxxx') and capped["stdout"].startswith("yyyy")
    small = session.run("result = 3").to_json()
    assert cap_output(small, 8_000) == json.dumps(small, ensure_ascii=False)
    through_tool = json.loads(execute_tool_call(session, {"code": "result = list(range(5000))"}, max_chars=1_000))
    assert "cut" in through_tool and len(json.dumps(through_tool)) < 1_300


def test_the_period_line_comes_with_a_period_field_or_a_dated_fact_only():
    from sandbox.tool import PERIOD_LINE
    from uac.dates import Period

    undated = encode_state(
        {"pets": {"pets": [{"name": "Rex"}]}}, facts=[{"id": "f1", "text": "Rex barks.", "event_date": None}]
    )
    assert PERIOD_LINE not in describe_python_tool(undated)
    dated = encode_state(
        {"pets": {"pets": [{"name": "Rex"}]}},
        facts=[{"id": "f1", "text": "Rex came.", "event_date": Period("2023-05")}],
    )
    assert "event_date (Period)" in describe_python_tool(dated) and PERIOD_LINE in describe_python_tool(dated)
    assert "p.start <= last and first <= p.end" in PERIOD_LINE
