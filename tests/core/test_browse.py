"""The inspection API under the inspector: tables, the evidence chain, the overview."""

from __future__ import annotations

import json

import pytest

from uac.browse import facts_per_month
from uac.errors import DomainNotFound, FactNotFound, NotFound, SessionNotFound
from uac.facts.model import Fact
from uac.memory import UserMemory


@pytest.fixture
def alice(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "date": "2023-05-08",
                "messages": [
                    {"role": "user", "content": "I adopted a golden retriever named Rex yesterday."},
                    {"role": "user", "content": "I booked a trip to Lisbon for June."},
                    {"role": "user", "content": "I booked a trip to Oslo for August."},
                ],
            }
        ),
        "utf-8",
    )
    memory = UserMemory.create(tmp_path / "alice", user_name="Alice")
    memory.ingest(path)
    memory.compile()
    yield memory
    memory.close()


def test_the_evidence_chain_walks_both_ways(alice):
    overview = alice.overview()
    domain = overview.records_per_domain[0][0]
    table = alice.domain_tables(domain).collections[0]
    row = table.rows[0]
    record = alice.record(domain, table.name, row.position)
    fact_id, fact = record.facts[0]
    assert fact is not None and fact_id in row.sources
    detail = alice.fact(fact_id)
    assert any(r.position == row.position and r.collection == table.name for r in detail.citing)
    turn_ref = detail.turns[0]
    turn = alice.turn(turn_ref.session_id, turn_ref.turn_id)
    assert turn.session.session_id == fact.session_id
    assert fact_id in {f.id for f in turn.facts}
    assert turn_ref.text == turn.turn.full_text


def test_tables_sort_and_filter(alice):
    table = next(t for name in alice.state for t in alice.domain_tables(name).collections if len(t.rows) >= 2)
    assert "sources" not in table.columns
    # a column of text in every row: an event's text, a trip's destination
    column = next(c for c in table.columns if all(isinstance(r.values.get(c), str) for r in table.rows))
    texts = [r.values[column] for r in table.view(sort=column)]
    assert texts == sorted(texts, key=str.casefold)
    assert [r.values[column] for r in table.view(sort=column, descending=True)] == texts[::-1]
    word = texts[0].split()[-1]
    assert all(word.casefold() in r.cell(column).casefold() for r in table.view(query=word))
    assert table.view(query="zzz-no-such-text") == []


def test_overview_counts_and_the_last_compile(alice):
    data = alice.overview().to_json()
    assert data["counts"]["facts_valid"] == len(alice.facts())
    assert data["counts"]["sessions"] == 1
    assert sum(d["records"] for d in data["records_per_domain"]) == data["counts"]["records"] > 0
    assert data["facts_per_month"] == [{"month": "2023-05", "facts": len(alice.facts())}]
    assert data["last_compile"]["mode"] == "offline" and data["last_compile"]["totals"]["coverage"] == 1.0


def test_facts_per_month_fills_gaps():
    import datetime as dt

    facts = [
        Fact(id=str(i), text="x", session_id="s", session_date=dt.date(2023, m, 1)) for i, m in enumerate((1, 1, 4))
    ]
    assert facts_per_month(facts) == [("2023-01", 2), ("2023-02", 0), ("2023-03", 0), ("2023-04", 1)]


def test_unknown_ids_are_clear_errors(alice):
    with pytest.raises(FactNotFound):
        alice.fact("nope")
    with pytest.raises(DomainNotFound):
        alice.domain_tables("nope")
    domain = next(iter(alice.state))
    collection = alice.domain_tables(domain).collections[0].name
    with pytest.raises(NotFound, match="no record #99"):
        alice.record(domain, collection, 99)
    with pytest.raises(NotFound):
        alice.record(domain, "nope", 0)
    with pytest.raises(SessionNotFound):
        alice.turn("nope", "x")
    with pytest.raises(SessionNotFound):
        alice.turn("../../etc", "x")
