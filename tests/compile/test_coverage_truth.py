"""Coverage says what the view represents: facts a record cites, facts only on the timeline,
and facts left out with the reason -- not the share of facts routed to a domain."""

from __future__ import annotations

import datetime as dt
import json

from typer.testing import CliRunner

from tests.compile.kinds.conftest import facts_of
from uac.cli import app

SAID = dt.date(2024, 3, 4)
#: four trips; the rules know one place (Lisbon), the other three are names the gazetteer does not know
TRIPS = (
    "We got back from Lisbon on Sunday.",
    "We went to Zorblat Falls last week.",
    "We went to Quxville in May.",
    "We went to Blorpton Springs in April.",
)


def _travel(report: dict) -> dict:
    return next(d for d in report["domains"] if d["domain"] == "travel")


def test_offline_view_of_one_trip_in_four_is_25_percent_not_100(memory):
    facts = facts_of(*TRIPS, said_on=SAID)
    report = memory.compile(facts=facts, mode="offline").to_json()
    travel = _travel(report)
    # the old keys are kept, with their old meaning (every routed fact is cited by some record)
    assert travel["coverage"] == 1.0 and report["totals"]["coverage"] == 1.0
    # what the view says: one trip record, three facts left on the timeline for a known reason
    assert travel["view"]["represented"] == 1
    assert travel["view"]["left_out"] == 3
    assert travel["view"]["left_out_why"] == {"a place the gazetteer does not know": 3}
    assert travel["view"]["timeline"] == 0
    assert travel["represented_share"] == 0.25
    assert report["totals"]["represented_share"] == 0.25
    assert (report["totals"]["facts_represented"], report["totals"]["facts_left_out"]) == (1, 3)


def test_a_fact_only_on_the_timeline_is_counted_as_such(memory):
    facts = facts_of("We got back from Lisbon on Sunday.", "I had a long chat with my sister.", said_on=SAID)
    report = memory.compile(facts=facts, mode="offline").to_json()
    totals = report["totals"]
    assert (totals["facts_represented"], totals["facts_timeline"], totals["facts_left_out"]) == (1, 1, 0)
    assert totals["represented_share"] == 0.5


def test_compile_text_and_json_and_doctor_report_the_three_counts(memory, project_dir):
    memory.add_session({"date": SAID.isoformat(), "messages": [{"role": "user", "content": t} for t in TRIPS]})
    runner = CliRunner()
    text = runner.invoke(app, ["compile", str(project_dir), "--mode", "offline"])
    assert text.exit_code == 0, text.output
    assert "in records: 1 fact(s) (25%)" in text.output
    assert "travel: compiled" in text.output
    assert (
        "1 fact(s) in records (25%), 0 only on the timeline, 3 left out (3 a place the gazetteer does not know)"
        in text.output
    )

    data = json.loads(runner.invoke(app, ["compile", str(project_dir), "--mode", "offline", "--json"]).output)
    assert _travel(data)["represented_share"] == 0.25

    doctor = memory.doctor()
    view = next(c for c in doctor.checks if c.name == "view")
    travel = view.data["facts"]["domains"]["travel"]
    assert (travel["represented"], travel["timeline"], travel["left_out"]) == (1, 0, 3)
    assert travel["left_out_why"] == {"a place the gazetteer does not know": 3}
    assert "in records: 1 of 4 compiled fact(s) (25%)" in view.detail and "travel 1/4 (25%)" in view.detail


def test_a_fact_another_domains_record_holds_is_counted_apart_not_left_out(memory):
    """A domain that left out a fact because a record of another domain holds it is not
    short of it: the report counts it as held elsewhere, apart from the facts no record holds."""
    from uac.cli.compile_cmd import represented_line
    from uac.compile.coverage import add_view_coverage
    from uac.compile.ledger import EMPTY_STATE_HASH, Ledger, save_ledger
    from uac.compile.report import CompileReport, DomainReport

    facts = facts_of(*TRIPS, said_on=SAID)
    memory.compile(facts=facts, mode="offline")
    (lisbon,) = [f.id for f in facts if "Lisbon" in f.text]
    (zorblat,) = [f.id for f in facts if "Zorblat" in f.text]
    ledger = Ledger("hobbies", considered={lisbon: "the trip is in travel", zorblat: "not a hobby"})
    save_ledger(memory.project.paths.internal, ledger, EMPTY_STATE_HASH)
    report = CompileReport("offline", domains=[DomainReport("hobbies"), DomainReport("travel")])
    add_view_coverage(memory.project, report, facts)
    hobbies = report.to_json()["domains"][0]
    assert hobbies["view"] == {
        "represented": 0,
        "timeline": 0,
        "left_out": 1,
        "elsewhere": 1,
        "left_out_why": {"left out by the model": 1},
    }
    assert hobbies["represented_share"] == 0.0  # of the one fact no record holds
    assert represented_line(hobbies).endswith("1 left out (1 left out by the model); 1 held by another domain's record")
    travel = report.to_json()["domains"][1]["view"]
    assert (travel["represented"], travel["left_out"], travel["elsewhere"]) == (1, 3, 0)
    assert report.view_totals["left_out"] == 3  # each fact once: Zorblat among travel's three


def test_a_view_rewritten_since_lends_no_offline_reasons(memory, project_dir):
    from uac.compile.coverage import OFFLINE_LEFT_OUT, load_offline_left_out
    from uac.view.store import load_domain

    facts = facts_of(*TRIPS, said_on=SAID)
    memory.compile(facts=facts, mode="offline")
    loaded = load_domain(memory.project, "travel")
    assert len(load_offline_left_out(memory.project, "travel", loaded.source_hash)) == 3
    assert load_offline_left_out(memory.project, "travel", "another state") == {}
    assert (memory.project.paths.internal / "compile" / "travel" / OFFLINE_LEFT_OUT).is_file()


def test_incremental_counts_what_the_model_recorded_left_out_and_left_pending(scripted_memory, scripted):
    from uac.facts.model import Fact

    from .helpers import handler_for, make_facts

    def forget_f0001(request, reply):
        if "json" in reply and "operations" in reply["json"]:
            reply["json"]["operations"] = [op for op in reply["json"]["operations"] if op.get("sources") != ["f0001"]]
        return reply

    facts = make_facts(4) + [Fact("f0100", "Ok", "S1", dt.date(2023, 1, 1), speaker="Alice")]
    scripted.handler = handler_for(lambda _i: "travel", wrap=forget_f0001)
    travel = _travel(scripted_memory.compile(facts=facts).to_json())
    assert travel["facts"] == {"recorded": 3, "considered": 1, "pending": 1}
    assert travel["view"] == {
        "represented": 3,
        "timeline": 1,
        "left_out": 1,
        "elsewhere": 0,
        "left_out_why": {"left out by the model": 1},
    }
    assert travel["represented_share"] == 0.6
