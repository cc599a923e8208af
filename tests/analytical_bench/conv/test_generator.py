"""The conversational generator: deterministic for a seed, sizes 10..500, varied phrasing,
distractors, and a ledger that holds every event it tells."""

from __future__ import annotations

import json

import pytest

from analytical_bench.conv import LedgerError
from analytical_bench.conv.dataset import generate, load_history
from analytical_bench.conv.simulate import simulate
from analytical_bench.conv.teller import tell

#: sha256 of the seed-32, 10-session history: sessions, ledger and questions (changes only on purpose)
PINNED_10 = "4313f2ecebdfe91d75726515226d0542d87f72c095a9648ebc7666c59c93d954"


def test_the_same_seed_and_size_give_the_same_bytes():
    a, b = generate(32, 10), generate(32, 10)
    assert a.sha256 == b.sha256 == PINNED_10
    assert generate(33, 10).sha256 != a.sha256
    assert generate(32, 11).sha256 != a.sha256


@pytest.mark.parametrize("size", [9, 501, 0, "50"])
def test_sizes_outside_10_to_500_are_refused(size):
    with pytest.raises(LedgerError, match="10 to 500 sessions"):
        simulate(32, size)


def test_a_history_tells_every_ledger_event_in_its_sessions():
    history = generate(32, 120)
    assert history.size == 120
    texts = {s["session_id"]: " ".join(m["content"] for m in s["messages"]) for s in history.sessions}
    for event in history.ledger.events:
        assert event.sessions, event.id
        key = event.get(
            {
                "trip": "destination",
                "meal": "place",
                "purchase": "item",
                "workout": "activity",
                "book": "title",
                "job": "employer",
                "home": "city",
            }[event.kind]
        )
        if event.kind != "workout":  # a workout is told by its verb ("ran", "swam")
            assert any(key in texts[s] for s in event.sessions), (event.id, key)
    statuses = {e.get("status") for e in history.ledger.of_kind("trip")}
    assert {"done", "cancelled"} <= statuses
    assert any(e.get("planned_on") and e.get("status") == "done" for e in history.ledger.of_kind("trip"))
    assert any(e.get("returned") for e in history.ledger.of_kind("purchase"))
    assert len({e.get("currency") for e in history.ledger.of_kind("meal") + history.ledger.of_kind("purchase")}) > 1
    reasons = {d.why for d in history.ledger.distractors}
    assert {"other_person", "wish", "looked_not_bought", "cooked_at_home", "assistant"} <= reasons
    roles = {m["role"] for s in history.sessions for m in s["messages"]}
    assert roles == {"user", "assistant"}
    # several facts in one message
    assert any(m["content"].count(". ") >= 2 for s in history.sessions for m in s["messages"] if m["role"] == "user")


def test_corrections_are_said_and_the_ledger_holds_the_corrected_nights():
    life = simulate(32, 300)
    corrected = [m for m in life.mentions if m.what == "trip_correct"]
    assert corrected
    for mention in corrected:
        told = next(m for m in life.mentions if m.event == mention.event and m.what == "trip_done")
        assert told.data["nights"] != life.events[mention.event]["nights"]


def test_no_sentence_shape_dominates_a_kind():
    told = tell(simulate(32, 300))
    diversity = told.diversity()
    for kind in ("trip", "meal", "purchase", "workout", "book"):
        assert diversity[kind]["shapes"] >= 20, (kind, diversity[kind])
        assert diversity[kind]["top_share"] <= 0.15, (kind, diversity[kind])


def test_a_saved_history_loads_back_with_its_questions_checked(tmp_path):
    history = generate(32, 30)
    history.save(tmp_path / "generated-30")
    again = load_history(tmp_path / "generated-30")
    assert again.sha256 == history.sha256
    raw = json.loads((tmp_path / "generated-30" / "questions.json").read_text())
    raw[0]["gold"] = raw[0]["gold"] + 1 if isinstance(raw[0]["gold"], int) else "nothing"
    (tmp_path / "generated-30" / "questions.json").write_text(json.dumps(raw))
    with pytest.raises(LedgerError, match="is not the ledger's"):
        load_history(tmp_path / "generated-30")


def test_a_ledger_citing_a_session_the_chats_lack_is_refused(tmp_path):
    history = generate(32, 10)
    history.save(tmp_path / "h")
    lines = (tmp_path / "h" / "sessions.jsonl").read_text().splitlines()
    (tmp_path / "h" / "sessions.jsonl").write_text("\n".join(lines[:1]) + "\n")
    with pytest.raises(LedgerError, match="which sessions.jsonl does not hold"):
        load_history(tmp_path / "h")


@pytest.mark.parametrize("seed", [32, 7])
def test_a_plan_is_called_off_before_it_starts(seed):
    history = generate(seed, 200)
    day = {s["session_id"]: s["date"][:10] for s in history.sessions}
    cancelled = history.ledger.of_kind("trip")
    cancelled = [e for e in cancelled if e.get("status") == "cancelled"]
    assert cancelled
    for trip in cancelled:
        assert max(day[s] for s in trip.sessions) < trip.get("start"), trip.id


def test_a_saved_history_with_line_separators_in_a_message_loads_back(tmp_path):
    history = generate(32, 10)
    history.sessions[0]["messages"][0]["content"] += " odd\u2028break\u2029and\x85next \u202eRTL\u202c"
    history.save(tmp_path / "odd")
    again = load_history(tmp_path / "odd")
    assert again.sessions[0]["messages"][0]["content"] == history.sessions[0]["messages"][0]["content"]
    assert len(again.sessions) == len(history.sessions)
