import pytest

from analytical_bench.locomo.runner import RunConfig, Runner, select_questions
from analytical_bench.locomo.systems import FullContextSystem, strip_citations
from uac import load_locomo
from uac.errors import InputError, ModelNotConfigured


def test_strip_citations():
    assert strip_citations("cello [mini-1_s1-f2]") == "cello"
    assert strip_citations("Lisbon [F12, F13] and Porto [D3:2].") == "Lisbon and Porto."
    assert strip_citations("Not mentioned in memory.") == "Not mentioned in memory."
    # brackets holding words are kept
    assert strip_citations("she said [laughs] yes") == "she said [laughs] yes"
    assert strip_citations(None) == ""


def test_question_selection(locomo_file):
    mini = load_locomo(locomo_file)[0]
    assert [q.category for q in select_questions(mini, offline=True, limit=None)] == [4, 2, 1, 3, 2, 1]
    assert [q.category for q in select_questions(mini, offline=False, limit=None)] == [4, 2, 1, 3, 5, 2, 1]
    assert [q.qid for q in select_questions(mini, offline=False, limit=2)] == ["mini-1:q0", "mini-1:q1"]


def test_full_context_prompt_has_every_session_with_its_date(locomo_file, scripted, scripted_llm):
    mini = load_locomo(locomo_file)[0]
    scripted.enqueue({"content": "7 May 2023", "usage": {"prompt_tokens": 400, "completion_tokens": 4}})
    prediction = FullContextSystem(scripted_llm).answer(mini, mini.questions[1])
    assert prediction.prediction == "7 May 2023"
    assert (prediction.prompt_tokens, prediction.completion_tokens) == (400, 4)
    assert prediction.retrieved_turns is None
    system, prompt = (m.content for m in scripted.requests[0].messages)
    assert "between Maya and Theo" in system and "asked on 2023-06-02" in system
    assert "Not mentioned in the conversation." in system
    for header in (
        "Session 1 (1:56 pm on 8 May, 2023):",
        "Session 2 (10:15 am on 20 May, 2023):",
        "Session 3 (7:30 pm on 2 June, 2023):",
    ):
        assert header in prompt
    assert "[D1:3] Theo: I adopted a puppy yesterday! His name is Biscuit." in prompt
    assert prompt.rstrip().endswith("Question: When did Theo adopt Biscuit?\nShort answer:")


def test_full_context_needs_a_model(locomo_file):
    mini = load_locomo(locomo_file)[0]
    with pytest.raises(ModelNotConfigured):
        FullContextSystem(None).answer(mini, mini.questions[0])


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"systems": ["mem0"]}, "unknown system mem0"),
        ({"systems": []}, "no systems selected"),
        ({"workers": 0}, "--workers must be at least 1"),
        ({"limit_questions": 0}, "--limit-questions must be at least 1"),
    ],
)
def test_bad_settings_are_input_errors(locomo_file, tmp_path, overrides, message):
    with pytest.raises(InputError, match=message):
        Runner(RunConfig(data=locomo_file, out=tmp_path / "r", **overrides), llm_factory=lambda: None)
