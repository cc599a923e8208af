"""Questions: exact golds from the ledger; the reference programs read a perfect view
back to those golds; questions and ledgers that cannot be golds are refused."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from analytical_bench.conv import LedgerError, parse_ledger
from analytical_bench.conv.dataset import generate
from analytical_bench.conv.query import GoldError, Query, view_items
from analytical_bench.conv.questions import _TEMPLATES, QUESTION_KINDS, _day, _Template, check_question, make_questions
from analytical_bench.scoring import score

WHERE = {
    "trip": ("travel", "trips"),
    "meal": ("food", "meals"),
    "purchase": ("finance", "purchases"),
    "job": ("work", "jobs"),
    "workout": ("health", "workouts"),
    "book": ("reading", "books"),
    "home": ("life", "homes"),
}


def perfect_view(ledger):
    """The ledger's events as a typed view would hold them (the offline kinds' field names)."""
    out = {}
    for event in ledger.events:
        f = dict(event.fields)
        rec = {"person": None, "companions": f.pop("with", [])}
        if event.kind == "trip":
            rec.update(
                status=f["status"],
                destination=f["destination"],
                start=f.get("start"),
                end=f.get("end"),
                nights=f.get("nights"),
            )
        elif event.kind in ("meal", "purchase", "workout"):
            rec.update({k: v for k, v in f.items() if k != "date"}, when=f.get("date"))
        elif event.kind == "job":
            rec.update(
                employer=f["employer"],
                role=f.get("title"),
                start=f.get("start"),
                end=f.get("end"),
                current=not f.get("end"),
            )
        else:
            rec.update(f)
        domain, collection = WHERE[event.kind]
        out.setdefault(domain, {}).setdefault(collection, []).append(rec)
    return {d: SimpleNamespace(**c) for d, c in out.items()}


def _answer_text(value):
    return ", ".join(value) if isinstance(value, list) else str(value)


@pytest.mark.parametrize("seed,size", [(32, 10), (32, 60), (7, 200)])
def test_reference_programs_over_a_perfect_view_give_every_gold(seed, size):
    history = generate(seed, size)
    view = perfect_view(history.ledger)
    assert len(history.questions) >= 20
    for q in history.questions:
        items = view_items(view, q.query.kind, history.ledger.user, WHERE)
        answer = q.query.evaluate(items, history.ledger, strict=False)
        assert score(q.answer_kind, q.gold, _answer_text(answer)), (q.text, q.gold, answer)


def test_every_question_kind_is_asked():
    kinds = {q.kind for q in generate(32, 120).questions}
    assert kinds == set(QUESTION_KINDS)


def _ledger(events, **extra):
    return parse_ledger(
        {"format": "uac-ledger/1", "user": "Sam", "currency": "EUR", "rates": {"GBP": 1.2}, "events": events, **extra}
    )


def test_sums_use_the_stated_rates_and_leave_returns_out():
    ledger = _ledger(
        [
            {"id": "a", "kind": "purchase", "item": "desk", "amount": 100, "currency": "GBP"},
            {"id": "b", "kind": "purchase", "item": "lamp", "amount": 30, "currency": "EUR"},
            {"id": "c", "kind": "purchase", "item": "chair", "amount": 50, "currency": "EUR", "returned": True},
        ]
    )
    questions = {q.query.to_json()["op"] + str(q.query.where): q for q in make_questions(ledger, 1)}
    total = next(q for q in questions.values() if q.kind == "sum")
    assert total.gold == 150.0  # 100 GBP at 1.2 + 30 EUR, the returned chair left out
    cheapest = next(q for q in questions.values() if q.kind == "min")
    assert cheapest.gold == "lamp"


def test_a_question_whose_gold_cannot_be_computed_is_refused():
    ledger = _ledger(
        [
            {"id": "a", "kind": "meal", "place": "Nopa", "amount": 20, "currency": "USD"},
            {"id": "b", "kind": "trip", "status": "done", "destination": "Oslo", "nights": 3},
            {"id": "c", "kind": "trip", "status": "done", "destination": "Rome", "nights": 3},
        ]
    )
    no_rate = {
        "id": "x",
        "kind": "sum",
        "text": "?",
        "answer_kind": "float",
        "query": Query("meal", "sum", (), "amount").to_json(),
    }
    with pytest.raises(GoldError, match="no exchange rate for USD"):
        check_question(no_rate, ledger)
    tie = {
        "id": "y",
        "kind": "max",
        "text": "?",
        "answer_kind": "string",
        "query": Query("trip", "argmax", (("status", "done"),), "nights").to_json(),
    }
    with pytest.raises(GoldError, match="a tie"):
        check_question(tie, ledger)
    nobody = {
        "id": "z",
        "kind": "current",
        "text": "?",
        "answer_kind": "string",
        "query": Query("job", "current").to_json(),
    }
    with pytest.raises(GoldError, match="0 items for the current job"):
        check_question(nobody, ledger)
    # the generator asks none of these
    asked = {(q.query.kind, q.query.op) for q in make_questions(ledger, 1)}
    assert ("meal", "sum") not in asked and ("trip", "argmax") not in asked and ("job", "current") not in asked


def test_impossible_lives_are_refused():
    with pytest.raises(LedgerError, match="both taken on"):
        _ledger(
            [
                {
                    "id": "a",
                    "kind": "trip",
                    "status": "done",
                    "destination": "Oslo",
                    "start": "2024-03-01",
                    "end": "2024-03-06",
                },
                {
                    "id": "b",
                    "kind": "trip",
                    "status": "done",
                    "destination": "Rome",
                    "start": "2024-03-04",
                    "end": "2024-03-08",
                },
            ]
        )
    with pytest.raises(LedgerError, match="are all current homes"):
        _ledger([{"id": "a", "kind": "home", "city": "Leeds"}, {"id": "b", "kind": "home", "city": "York"}])
    with pytest.raises(LedgerError, match="after the history's last day"):
        _ledger(
            [{"id": "a", "kind": "trip", "status": "done", "destination": "Oslo", "end": "2024-05-02"}],
            today="2024-04-30",
        )


def test_a_small_run_asks_every_kind_in_turn():
    from analytical_bench.conv.dataset import generate, spread_questions

    history = generate(32, 10)
    kinds = list(dict.fromkeys(q.kind for q in history.questions))
    few = spread_questions(history.questions, len(kinds))
    assert sorted(q.kind for q in few) == sorted(kinds)  # one of each kind
    assert [q.id for q in few] == sorted(q.id for q in few)  # in the history's order
    assert spread_questions(history.questions, 10_000) == history.questions
    with pytest.raises(LedgerError, match="at least one question"):
        spread_questions(history.questions, 0)


def test_the_templates_are_grouped_by_kind_in_the_order_of_the_kinds():
    assert tuple(_TEMPLATES) == QUESTION_KINDS


def test_a_drawn_value_is_worded_in_the_text_and_filters_after_the_templates_own():
    ledger = _ledger(
        [
            {
                "id": "a",
                "kind": "trip",
                "status": "done",
                "destination": "Oslo",
                "start": "2024-03-02",
                "end": "2024-03-07",
            },
            {
                "id": "b",
                "kind": "trip",
                "status": "done",
                "destination": "Rome",
                "start": "2024-05-01",
                "end": "2024-05-04",
            },
            {"id": "c", "kind": "trip", "status": "planned", "destination": "Kyoto", "start": "2025-04-01"},
            {"id": "d", "kind": "job", "employer": "Acme", "start": "2020-01-01", "end": "2023-06-30"},
            {"id": "e", "kind": "job", "employer": "Initech", "start": "2023-07-01"},
        ]
    )
    asked = {q.text: q for q in make_questions(ledger, 1)}
    by_then = asked["How many trips had I taken by the end of 4 May 2024?"]
    assert by_then.query.where == (("status", "done"), ("until", "2024-05-04")) and by_then.gold == 2
    working = next(q for q in asked.values() if q.query.op == "at")
    assert "2023-06-11" <= working.query.at <= "2023-06-29" and working.query.where == ()
    assert working.text == f"Where was I working on {_day(working.query.at)}?" and working.gold == "Acme"


def test_a_template_is_asked_only_when_its_draw_finds_something():
    template = _Template("How many {} workouts have I done?", "int", Query("workout", "count"), ("key", _first))
    assert template.ask(_ledger([]), random.Random(1)) is None
    ledger = _ledger([{"id": "w", "kind": "workout", "activity": "rowing"}])
    assert template.ask(ledger, random.Random(1)) == (
        "How many rowing workouts have I done?",
        Query("workout", "count", (("key", "rowing"),)),
    )


def _first(ledger, rng):
    return next((e.get("activity") for e in ledger.of_kind("workout")), None)
