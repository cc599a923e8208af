"""The ``correct`` and ``cite`` operations: a misstated value put right, a fact that
supports a record without changing it."""

from __future__ import annotations

from uac.compile.ops import apply_operations

from .test_ops import BATCH, loads, work  # noqa: F401 - the fixture


def test_correct_changes_the_value_and_keeps_both_facts(work):  # noqa: F811
    outcome = apply_operations(
        work,
        [{"op": "correct", "id": "trip-2", "set": {"nights": 4}, "sources": ["f3"], "note": "four nights, not three"}],
        BATCH,
    )
    assert outcome.problems == [] and outcome.touched == {"trip-2"} and outcome.cited == {"f3"}
    rome = work.find("trip-2")[1]
    assert rome.nights == 4 and rome.sources == ["f2", "f3"]
    assert rome.notes == ["corrected by f3: nights was None", "four nights, not three"]
    apply_operations(work, [{"op": "correct", "id": "trip-2", "set": {"nights": "5"}, "sources": ["f4"]}], BATCH)
    rome = work.find("trip-2")[1]
    assert rome.nights == 5 and rome.sources == ["f2", "f3", "f4"] and "corrected by f4: nights was 4" in rome.notes
    assert loads(work).values["trips"][1].nights == 5  # the files validate and load back
    assert outcome.retired == [] and work.find("trip-2") is not None  # nothing ends


def test_a_correction_of_an_unknown_field_or_record_is_refused_naming_what_exists(work):  # noqa: F811
    outcome = apply_operations(
        work,
        [
            {"op": "correct", "id": "trip-2", "set": {"length": 4}, "sources": ["f3"]},
            {"op": "correct", "id": "trip-9", "set": {"nights": 4}, "sources": ["f3"]},
            {"op": "correct", "id": "trip-1", "set": {}, "sources": ["f3"]},
            {"op": "correct", "id": "trip-1", "set": {"destination": "Lisbon"}, "sources": ["f3"]},
            {"op": "correct", "id": "trip-1", "set": {"nights": 2}, "sources": ["f4"]},
        ],
        BATCH,
    )
    assert len(outcome.problems) == 4 and len(outcome.applied) == 1  # the rest of the batch kept
    field, record, empty, same = outcome.problems
    assert "operation 1 (correct trip-2)" in field and "no field 'length'" in field
    assert "fields destination, start_date, nights" in field
    assert "no record 'trip-9'" in record and "trip-1, trip-2" in record
    assert '"set" must name the corrected fields' in empty
    assert "already holds these values" in same and "cite" in same
    assert work.find("trip-1")[1].nights == 2 and work.find("trip-2")[1].nights is None


def test_cite_settles_the_fact_without_changing_the_record(work):  # noqa: F811
    before = work.find("trip-1")[1]
    outcome = apply_operations(work, [{"op": "cite", "id": "trip-1", "sources": ["f5"]}], BATCH)
    assert outcome.problems == [] and outcome.cited == {"f5"}
    after = work.find("trip-1")[1]
    assert (
        after.sources == ["f1", "f5"]
        and after.destination == before.destination
        and after.start_date == before.start_date
    )
    assert "f5" in work.cited_ids()  # counts as recorded
    bad = apply_operations(
        work,
        [
            {"op": "cite", "id": "trip-1", "set": {"nights": 3}, "sources": ["f4"]},
            {"op": "cite", "id": "event-1", "sources": ["f4"]},
            {"op": "cite", "id": "trip-1", "sources": ["f77"]},
        ],
        BATCH,
    )
    assert len(bad.problems) == 3 and bad.cited == set()
    assert (
        'takes no "set"' in bad.problems[0]
        and "no record 'event-1'" in bad.problems[1]
        and "trip-1, trip-2" in bad.problems[1]
    )
    assert "f77" in bad.problems[2]
