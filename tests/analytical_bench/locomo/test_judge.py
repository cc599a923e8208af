import pytest

from analytical_bench.locomo.judge import Judge, judge_prompt, parse_verdict
from uac.errors import ModelError


def test_prompt_carries_question_gold_and_answer():
    prompt = judge_prompt("When did Theo adopt Biscuit?", "7 May 2023", "on May 7th, 2023")
    assert "Question: When did Theo adopt Biscuit?" in prompt
    assert "Gold answer: 7 May 2023" in prompt
    assert "Generated answer: on May 7th, 2023" in prompt
    assert '"label": "CORRECT" or "WRONG"' in prompt
    assert "lenient" in prompt.lower()


@pytest.mark.parametrize(
    "reply, correct, readable",
    [
        ('{"reason": "Same date.", "label": "CORRECT"}', True, True),
        ('{"reason": "Different city.", "label": "WRONG"}', False, True),
        ('{"reason": "ok", "label": "correct"}', True, True),
        ('```json\n{"reason": "Same.", "label": "CORRECT"}\n```', True, True),
        ('Sure! {"reason": "Same.", "label": "CORRECT"} Hope that helps.', True, True),
        ("CORRECT", False, False),
        ('{"reason": "unsure", "label": "MAYBE"}', False, False),
        ('{"reason": "no label"}', False, False),
        ('["CORRECT"]', False, False),
        ("", False, False),
        (None, False, False),
    ],
)
def test_parse_verdict(reply, correct, readable):
    verdict = parse_verdict(reply)
    assert verdict.correct is correct
    assert verdict.readable is readable
    if not readable:
        assert verdict.label == "WRONG"
        assert verdict.reason.startswith("unreadable verdict")


def test_judge_with_scripted_model(scripted, scripted_llm):
    scripted.enqueue(
        {
            "json": {"reason": "Both name the cello.", "label": "CORRECT"},
            "usage": {"prompt_tokens": 120, "completion_tokens": 9},
        },
        "I think it is right",
    )
    judge = Judge(scripted_llm)
    verdict = judge.grade("What instrument does Maya play?", "cello", "She plays the cello")
    assert verdict.correct and verdict.reason == "Both name the cello."
    assert (verdict.prompt_tokens, verdict.completion_tokens) == (120, 9)
    request = scripted.requests[0]
    assert request.schema_name == "verdict"
    assert "Generated answer: She plays the cello" in request.messages[-1].content
    unreadable = judge.grade("What instrument does Maya play?", "cello", "violin")
    assert not unreadable.correct and not unreadable.readable
    assert unreadable.to_json()["label"] == "WRONG"


def test_empty_answer_is_wrong_without_a_model_call(scripted, scripted_llm):
    verdict = Judge(scripted_llm).grade("q?", "gold", "   ")
    assert not verdict.correct
    assert scripted.requests == []


def test_model_failure_is_raised_not_judged(scripted, scripted_llm):
    scripted.enqueue({"error": "fatal", "message": "endpoint down"})
    with pytest.raises(ModelError):
        Judge(scripted_llm).grade("q?", "gold", "answer")
