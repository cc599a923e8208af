"""Each system's prompt construction, checked on what the scripted model received."""

from __future__ import annotations

import json

import pytest

from analytical_bench.systems import FlatFacts, FullContext, FullContextRepl, TopKRetrieval, make_systems
from analytical_bench.systems.retrieval import Retrieved
from analytical_bench.systems.tool_loop import run_tool_loop
from uac.errors import InputError
from uac.llm import Message


def _case(dataset, case_id):
    return next(c for c in dataset.cases if c.id == case_id)


@pytest.fixture
def count_case(dataset):
    return next(c for c in dataset.cases if c.suite == "paper" and c.pattern == "count" and c.n == 20)


def test_full_context_puts_every_record_and_the_question_in_the_prompt(count_case, scripted, scripted_llm):
    scripted.enqueue("4")
    prediction = FullContext().answer(count_case, scripted_llm)
    assert prediction.text == "4"
    request = scripted.requests[0]
    system, user = request.messages
    assert system.role == "system" and "single integer" in system.content
    assert request.tools == ()
    lines = [json.loads(line) for line in user.content.splitlines() if line.startswith("{")]
    assert lines == count_case.records
    assert user.content.rstrip().endswith(count_case.question)
    assert prediction.usage.prompt_tokens > 0


def test_answer_format_follows_the_answer_kind(dataset, scripted, scripted_llm):
    wanted = {
        "int": "single integer",
        "float": "two decimals",
        "string": "value itself",
        "set": "any order",
        "list": "requested order",
    }
    for kind, phrase in wanted.items():
        case = next(c for c in dataset.cases if c.answer_kind == kind and c.n == 20)
        scripted.enqueue("x")
        FullContext().answer(case, scripted_llm)
        assert phrase in scripted.requests[-1].messages[0].content


def test_cross_domain_prompt_lists_both_collections(dataset, scripted, scripted_llm):
    case = next(c for c in dataset.cases if c.suite == "cross" and c.n == 20)
    scripted.enqueue("1")
    FullContext().answer(case, scripted_llm)
    user = scripted.requests[0].messages[1].content
    for name, records in case.collections.items():
        assert f"## {name} ({len(records)} records)" in user


def test_fc_repl_offers_the_python_tool_and_feeds_results_back(count_case, scripted, scripted_llm):
    code = f"result = len([r for r in {count_case.record_type} if r['id']])"
    scripted.enqueue(
        {"tool_calls": [{"id": "c1", "name": "python", "arguments": {"code": code}}], "content": None},
        "20",
    )
    prediction = FullContextRepl().answer(count_case, scripted_llm)
    assert prediction.text == "20"
    first, second = scripted.requests
    assert [t["function"]["name"] for t in first.tools] == ["python"]
    assert "`trips`" in first.messages[1].content or f"`{count_case.record_type}`" in first.messages[1].content
    assert "Use the `python` tool" in first.messages[0].content
    tool_message = second.messages[-1]
    assert tool_message.role == "tool" and tool_message.tool_call_id == "c1"
    assert json.loads(tool_message.content) == {"ok": True, "result": 20, "stdout": "", "error": None}
    assert prediction.tool_calls[0]["arguments"] == json.dumps({"code": code})


def test_tool_loop_is_bounded(count_case, scripted_llm, scripted):
    import sandbox
    from sandbox.codec import encode_state

    forever = {"tool_calls": [{"name": "python", "arguments": {"code": "result = 1"}}], "content": None}
    scripted.enqueue(*([forever] * 3), "done")
    with sandbox.Session(encode_state({"raw": {"items": [1, 2]}})) as session:
        text, calls, usage = run_tool_loop(scripted_llm, [Message("user", "q")], session, max_steps=3, purpose="test")
    assert text == "done" and len(calls) == 3
    assert len(scripted.requests) == 4 and scripted.requests[-1].tools == ()
    assert usage.calls == 4


def test_unknown_tool_gets_an_error_result(count_case, scripted, scripted_llm):
    scripted.enqueue({"tool_calls": [{"name": "shell", "arguments": {"cmd": "ls"}}], "content": None}, "?")
    prediction = FullContextRepl().answer(count_case, scripted_llm)
    output = json.loads(prediction.tool_calls[0]["output"])
    assert output["ok"] is False and output["error"]["type"] == "UnknownTool"


def test_make_systems_rejects_unknown_names():
    assert [s.name for s in make_systems()] == ["fc_repl", "uac_repl", "full_context", "topk", "facts"]
    assert [s.name for s in make_systems(["facts", "full_context"])] == ["full_context", "facts"]
    with pytest.raises(InputError, match="unknown system"):
        make_systems(["mem0"])


@pytest.mark.parametrize(
    ("system", "chosen_how"),
    [
        (TopKRetrieval(), "top-20 sentence retrieval with neighbouring records; in date order"),
        (FlatFacts(), "top-20 flat facts; most relevant first"),
    ],
)
def test_the_retrieval_prompt_says_how_its_texts_were_chosen_and_in_what_order(count_case, system, chosen_how):
    shown = Retrieved(texts=["I slept 7.5 hours.", "I ran 5 km."], record_ids=["sleep-00001", "workout-00001"])
    prompt = system.messages_for(count_case, shown)[1].content
    assert prompt.startswith(
        f"Here are the 2 memories retrieved for this question from my long-term memory ({chosen_how})."
        " They may not include every record.\n- I slept 7.5 hours.\n- I ran 5 km.\n"
    )
    assert prompt.rstrip().endswith(count_case.question)


@pytest.mark.embeddings
def test_topk_prompt_holds_top_20_with_neighbours(dataset, embedder, scripted, scripted_llm):
    case = next(c for c in dataset.cases if c.suite == "paper" and c.n == 200)
    scripted.enqueue("0")
    prediction = TopKRetrieval().answer(case, scripted_llm)
    items = [line for line in scripted.requests[0].messages[1].content.splitlines() if line.startswith("- ")]
    assert 20 <= len(items) <= 60 and len(items) == len(prediction.retrieved)
    assert len(set(prediction.retrieved)) == len(prediction.retrieved)
    assert "top-20 sentence retrieval" in scripted.requests[0].messages[1].content
    # shown in date order
    positions = [int(rid.split("-")[1]) for rid in prediction.retrieved]
    assert positions == sorted(positions)


@pytest.mark.embeddings
def test_flat_facts_prompt_holds_exactly_20_facts(dataset, embedder, scripted, scripted_llm):
    case = next(c for c in dataset.cases if c.suite == "paper" and c.n == 100)
    scripted.enqueue("0")
    prediction = FlatFacts().answer(case, scripted_llm)
    user = scripted.requests[0].messages[1].content
    items = [line for line in user.splitlines() if line.startswith("- ")]
    assert len(items) == 20
    assert 1 <= len(prediction.retrieved) <= 20
    assert user.rstrip().endswith(case.question)


@pytest.mark.embeddings
def test_retrieval_finds_the_record_a_question_names(embedder):
    from analytical_bench.cases import Case
    from analytical_bench.generator import generate

    case = generate().cases[0]
    target = case.records[7]
    probe = Case(
        "probe",
        "paper",
        case.record_type,
        case.n,
        "probe",
        "count",
        f"Tell me about my trip to {target['destination']} starting {target['start_date']}.",
        "int",
        1,
        case.records,
        [target["id"]],
    )
    assert target["id"] in TopKRetrieval().retrieve(probe).record_ids
    assert target["id"] in FlatFacts().retrieve(probe).record_ids


def test_uac_repl_prompt_shows_the_typed_schema_and_runs_on_typed_records(count_case, scripted, scripted_llm):
    from analytical_bench.systems import UacRepl

    code = "result = [r.start_date.year for r in travel.trips][:1]"  # a date field, read as a date
    scripted.enqueue(
        {"tool_calls": [{"id": "c1", "name": "python", "arguments": {"code": code}}], "content": None},
        "done",
    )
    prediction = UacRepl().answer(count_case, scripted_llm)
    assert prediction.text == "done"
    user = scripted.requests[0].messages[1].content
    assert "`travel.trips` (also `trips`): 20 records of type `Trip`" in user
    assert "`start_date: date`" in user and "`cost: float`" in user and "`nights: int`" in user
    assert json.loads(prediction.tool_calls[0]["output"])["result"] == [int(count_case.records[0]["start_date"][:4])]


def test_step_by_step_keeps_the_answer_line_and_says_so_once(count_case, scripted, scripted_llm):
    from analytical_bench.runner import run_case

    reply = "<think>I should count.</think>\nThere are 20 trip records; 4 of them match the question.\n\n**Answer:** 4"
    scripted.enqueue(reply, reply)
    system = FullContext().with_reasoning("step_by_step")
    prediction = system.answer(count_case, scripted_llm)
    assert prediction.text == "4" and prediction.reasoning_text == reply
    prompt = scripted.requests[0].messages[0].content
    assert "Think step by step" in prompt and "The answer on that line is a single integer, no words." in prompt
    assert "Reply with the final answer only" not in prompt and "reply with the final answer only" not in prompt
    row = run_case(count_case, system, scripted_llm)
    assert row["reasoning"] == "step_by_step" and row["prediction"] == "4" and row["response"] == reply
    assert row["correct"] == (count_case.gold == 4)


def test_direct_mode_is_the_default_and_recorded(count_case, scripted, scripted_llm):
    from analytical_bench.runner import run_case

    scripted.enqueue("4")
    row = run_case(count_case, FullContext(), scripted_llm)
    assert row["reasoning"] == "direct" and "response" not in row
    assert "Think step by step" not in scripted.requests[0].messages[0].content
    assert [s.reasoning for s in make_systems(reasoning="step_by_step")] == ["step_by_step"] * 5
    with pytest.raises(InputError, match="unknown reasoning mode"):
        make_systems(reasoning="slow")


def test_repl_systems_offer_a_tool_described_from_their_state(count_case, scripted, scripted_llm):
    scripted.enqueue("20")
    FullContextRepl().answer(count_case, scripted_llm)
    description = scripted.requests[0].tools[0]["function"]["description"]
    assert (
        f"`raw.{count_case.record_type}` (also `{count_case.record_type}`): a list of 20 values (mapping)"
        in description
    )
    assert "repl_names()" in description
