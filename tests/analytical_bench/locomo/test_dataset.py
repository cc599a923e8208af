import datetime as dt
import json

import pytest

from analytical_bench.locomo.systems import session_number, shown_text
from uac import InputError, load_locomo, normalize_turn_ids, turn_session_number


def test_sessions_dates_turns_and_captions(locomo_file):
    conversations = load_locomo(locomo_file)
    assert [c.sample_id for c in conversations] == ["mini-1", "mini-2"]
    mini = conversations[0]
    assert (mini.speaker_a, mini.speaker_b) == ("Maya", "Theo")
    # session_4 has a date but no turn list: the turn lists decide
    assert [session_number(s) for s in mini.sessions] == [1, 2, 3]
    assert [s.session_id for s in mini.sessions] == ["mini-1_s1", "mini-1_s2", "mini-1_s3"]
    assert mini.sessions[0].date == dt.date(2023, 5, 8)
    assert mini.sessions[0].date_text == "1:56 pm on 8 May, 2023"
    assert mini.last_date == dt.date(2023, 6, 2)
    assert mini.turn_count == 11
    image = mini.sessions[1].turns[1]
    assert image.turn_id == "D2:2"
    assert image.image_caption == "a photo of a yellow tram on a steep street"
    # the baselines' prompts show images as LoCoMo's own prompts do
    assert shown_text(image) == "Look at this street! [shares an image: a photo of a yellow tram on a steep street]"
    assert mini.sessions[0].turns[0].image_caption is None


def test_questions_answers_categories_and_adversarial_items(locomo_file):
    mini = load_locomo(locomo_file)[0]
    questions = mini.questions
    assert [q.qid for q in questions][:2] == ["mini-1:q0", "mini-1:q1"]
    assert [q.category for q in questions] == [4, 2, 1, 3, 5, 2, 1]
    adversarial = questions[4]
    assert adversarial.answer is None
    assert adversarial.adversarial_answer == "cello"
    assert not adversarial.answerable
    # integer golds are stringified
    assert questions[5].answer == "3"
    assert questions[6].answer == "2"
    # "D1:3; D2:4" holds two turn ids
    assert questions[6].evidence == ("D1:3", "D2:4")
    assert questions[2].evidence_sessions == (2, 3)
    assert questions[0].category_name == "single-hop"


def test_irregular_evidence_ids_are_normalised():
    assert normalize_turn_ids(["D3:4; D5:1", "D:2:7", "D12:05", "D", "D6:2 D1:9", "D3:4"]) == (
        "D3:4",
        "D5:1",
        "D2:7",
        "D12:5",
        "D6:2",
        "D1:9",
    )
    assert turn_session_number("D12:3") == 12
    assert turn_session_number("nonsense") is None


def test_selecting_conversations(locomo_file):
    assert [c.sample_id for c in load_locomo(locomo_file, ["mini-2"])] == ["mini-2"]
    with pytest.raises(InputError, match="no conversation conv-99") as info:
        load_locomo(locomo_file, ["conv-99"])
    assert "mini-1" in info.value.hint


def test_missing_file_bad_json_and_not_locomo(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_locomo(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", "utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        load_locomo(bad)
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]), "utf-8")
    with pytest.raises(InputError, match="not LoCoMo JSON"):
        load_locomo(chat)


def test_unreadable_session_date_names_the_session(locomo_file, locomo_raw):
    locomo_raw[0]["conversation"]["session_2_date_time"] = "sometime"
    locomo_file.write_text(json.dumps(locomo_raw), "utf-8")
    with pytest.raises(InputError, match="mini-1 session_2 has no readable date"):
        load_locomo(locomo_file)


def test_answerable_question_without_answer_is_an_error(locomo_file, locomo_raw):
    del locomo_raw[1]["qa"][0]["answer"]
    locomo_file.write_text(json.dumps(locomo_raw), "utf-8")
    with pytest.raises(InputError, match=r"mini-2 qa\[0\] \(category 4\) has no answer"):
        load_locomo(locomo_file)


def test_unknown_category_is_an_error(locomo_file, locomo_raw):
    locomo_raw[1]["qa"][0]["category"] = 7
    locomo_file.write_text(json.dumps(locomo_raw), "utf-8")
    with pytest.raises(InputError, match="categories are 1-5"):
        load_locomo(locomo_file)


def test_ingest_and_evaluation_read_the_same_sessions(locomo_file):
    """One reader: the sessions the harness evaluates are the ones uac ingests."""
    from uac.sessions import load_sessions

    for conversation in load_locomo(locomo_file):
        assert list(conversation.sessions) == load_sessions(locomo_file, sample_id=conversation.sample_id)
