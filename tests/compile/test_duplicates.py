"""Likely duplicates across domains: flagged with both ids and the fix, in the compile
report and by ``uac doctor``."""

from __future__ import annotations

from uac.compile.duplicates import find_duplicates
from uac.compile.ops import apply_operations
from uac.compile.related import CrossIndex
from uac.compile.working_copy import DomainWork
from uac.doctor import WARN
from uac.view import store


def work_of(name, cls, collection, fields, rows, refs=None):
    work = DomainWork.empty(name)
    work.refs = refs
    ops = [{"op": "add_class", "name": cls, "fields": fields}]
    ops += [{"op": "add", "collection": collection, "class": cls, "values": row, "sources": ["f1"]} for row in rows]
    outcome = apply_operations(work, ops, {"f1"})
    assert not outcome.problems, outcome.problems
    return work


PERSON = [{"name": "name", "type": "str"}, {"name": "relation", "type": "str | None", "default": None}]
VISIT = [{"name": "place", "type": "str"}, {"name": "when", "type": "Period | None", "default": None}]
TRIP = [{"name": "destination", "type": "str"}, {"name": "when", "type": "Period | None", "default": None}]


def test_the_same_person_in_two_domains_is_flagged_with_both_ids_and_the_fix():
    running = work_of(
        "running", "Person", "people", PERSON, [{"name": "Sam", "relation": "not stated"}, {"name": "the coach"}]
    )
    relationships = work_of(
        "relationships", "Person", "people", PERSON, [{"name": "Sam ", "relation": "partner"}, {"name": "Ana"}]
    )
    (found,) = find_duplicates({"running": running, "relationships": relationships})
    assert (found.kind, found.first, found.second, found.value) == (
        "person",
        "relationships/person-1",
        "running/person-1",
        "Sam",
    )
    assert "keep one record and refer to it" in found.fix and '{"ref": "relationships/person-1"}' in found.fix


def test_the_same_place_at_overlapping_times_is_flagged_and_other_times_are_not():
    travel = work_of(
        "travel",
        "Trip",
        "trips",
        TRIP,
        [{"destination": "Bristol", "when": "2024-06-14/2024-06-17"}, {"destination": "Oslo", "when": "2023-01"}],
    )
    family = work_of(
        "relationships",
        "Visit",
        "visits",
        VISIT,
        [{"place": "Bristol", "when": "2024-06-15"}, {"place": "Oslo", "when": "2024-02"}, {"place": "Lima"}],
    )
    (found,) = find_duplicates({"travel": travel, "relationships": family})
    assert (found.kind, found.first, found.second) == ("place", "relationships/visit-1", "travel/trip-1")


def test_a_record_that_refers_to_the_other_is_not_a_duplicate_and_one_domain_never_is():
    relationships = work_of("relationships", "Person", "people", PERSON, [{"name": "Sam"}, {"name": "Sam"}])
    fields = [*PERSON, {"name": "same_as", "type": "Ref | None", "default": None}]
    running = work_of(
        "running",
        "Person",
        "people",
        fields,
        [{"name": "Sam", "same_as": {"ref": "relationships/person-1"}}],
        refs=CrossIndex({"relationships": relationships}),
    )
    found = find_duplicates({"running": running, "relationships": relationships})
    assert [(d.first, d.second) for d in found] == [("relationships/person-2", "running/person-1")]
    assert find_duplicates({"relationships": relationships}) == []


def test_doctor_warns_about_duplicates_and_the_compile_report_lists_them(scripted_memory, scripted):
    running = work_of("running", "Person", "people", PERSON, [{"name": "Sam", "relation": "not stated"}])
    relationships = work_of("relationships", "Person", "people", PERSON, [{"name": "Sam", "relation": "partner"}])
    for work in (running, relationships):
        store.write_domain(scripted_memory.project, work.name, work.output.files())
    from uac.doctor import CHECKS
    from uac.doctor.duplicates import check_duplicates

    assert check_duplicates in CHECKS  # `uac doctor` runs it (the whole doctor is slower: the check alone here)
    result = check_duplicates(scripted_memory.context, False)
    assert result.status == WARN
    assert "relationships/person-1 and running/person-1 look like the same person" in result.detail
    assert result.data["duplicates"][0]["records"] == ["relationships/person-1", "running/person-1"]
    from .helpers import handler_for, make_facts

    scripted.handler = handler_for(lambda _i: "travel")
    report = scripted_memory.compile(facts=make_facts(1))
    assert [d["records"] for d in report.to_json()["duplicates"]] == [["relationships/person-1", "running/person-1"]]
