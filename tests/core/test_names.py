"""One name validator, full-match only: no trailing-newline loophole anywhere."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.errors import InvalidName, UacError
from uac.names import COLLECTION_NAME, DOMAIN_NAME, ITEM_ID, PROJECT_NAME, RECORD_TYPE, SESSION_ID, full_match

RULES = {
    "project": (PROJECT_NAME, string.ascii_letters + string.digits, string.ascii_letters + string.digits + "._-", 64),
    "session": (SESSION_ID, string.ascii_letters + string.digits, string.ascii_letters + string.digits + "._-", 128),
    "domain": (DOMAIN_NAME, string.ascii_lowercase, string.ascii_lowercase + string.digits + "_", 40),
    "collection": (COLLECTION_NAME, string.ascii_lowercase, string.ascii_lowercase + string.digits + "_", 60),
    "record_type": (RECORD_TYPE, string.ascii_uppercase, string.ascii_letters + string.digits, 60),
    "item": (ITEM_ID, string.ascii_letters + string.digits, string.ascii_letters + string.digits + "._:/-", 200),
}


def reference(kind: str, name: str) -> bool:
    """The rule written out by hand, character by character."""
    rule, first, rest, longest = RULES[kind]
    if not 1 <= len(name) <= longest or name[0] not in first or any(c not in rest for c in name[1:]):
        return False
    if rule.no_dotdot and ".." in name:
        return False
    import keyword

    return not (rule.no_keywords and keyword.iskeyword(name))


EDGES = st.sampled_from(
    ["\n", "\r", "\r\n", "\t", " ", "\x00", "\x0b", "\x0c", "\u2028", "\u0085", "/", "..", ".", "é", "Ａ", "١"]
)
NAMEISH = st.text(st.sampled_from(string.ascii_letters + string.digits + "._-:/"), min_size=0, max_size=70)
CANDIDATES = st.one_of(
    NAMEISH,
    st.builds(lambda a, e: a + e, NAMEISH, EDGES),
    st.builds(lambda e, a: e + a, EDGES, NAMEISH),
    st.builds(lambda a, e, b: a + e + b, NAMEISH, EDGES, NAMEISH),
    st.text(max_size=20),
)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(sorted(RULES)), CANDIDATES)
def test_every_rule_matches_the_whole_name_and_nothing_else(kind, name):
    rule = RULES[kind][0]
    assert rule.ok(name) == reference(kind, name), (kind, name)
    if rule.ok(name):
        assert rule.check(name) == name
        for tail in ("\n", "\r\n", " ", "\x00"):
            assert not rule.ok(name + tail)
            with pytest.raises(UacError):
                rule.check(name + tail)
    else:
        with pytest.raises(UacError):
            rule.check(name)


@pytest.mark.parametrize("kind", sorted(RULES))
def test_a_trailing_newline_is_refused(kind):
    rule = RULES[kind][0]
    good = {
        "project": "alice",
        "session": "s1",
        "domain": "travel",
        "collection": "trips",
        "record_type": "Trip",
        "item": "s1-f1",
    }[kind]
    assert rule.ok(good)
    assert not rule.ok(good + "\n")
    assert not full_match(rule.pattern, good + "\n")


def test_non_text_is_refused():
    for value in (None, 5, b"alice", ["alice"]):
        assert not PROJECT_NAME.ok(value)
        with pytest.raises(InvalidName):
            PROJECT_NAME.check(value)


def test_every_entry_point_refuses_a_trailing_newline(tmp_path, memory):
    from uac.records.importer import check_collection_name, check_record_type
    from uac.sessions.archive import check_session_id
    from uac.view.store import check_domain_name
    from uac.workspace import resolve_project

    for call in (
        lambda: resolve_project("evil\n"),
        lambda: check_domain_name("t\n"),
        lambda: check_collection_name("trips\n"),
        lambda: check_record_type("Trip\n"),
        lambda: check_session_id("s1\n"),
    ):
        with pytest.raises(UacError):
            call()
    records = tmp_path / "r.json"
    records.write_text(json.dumps([{"city": "Oslo"}]))
    with pytest.raises(InvalidName):
        memory.import_records(records, domain="t\n", collection="trips")
    with pytest.raises(InvalidName):
        memory.import_records(records, domain="travel", collection="trips\n")
    assert not (memory.root / "domains" / "t\n").exists()


def test_a_csv_cell_with_a_trailing_newline_stays_text(memory, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('name,count,day\nA,"5\n","2024-01-01\n"\nB,6,2024-01-02\n')
    report = memory.import_records(path, domain="stock", collection="rows")
    types = {f["name"]: f["type"] for f in report.fields}
    assert types["count"] == "str" and types["day"] == "str"
    rows = memory.state["stock"].rows
    assert rows[0].count == "5\n" and rows[1].count == "6"
