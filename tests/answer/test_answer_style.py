"""The answer style, the reasoning mode and the python tool end to end, with replies
written the way real models write them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from uac.cli import main
from uac.errors import ConfigError, InputError
from uac.memory import UserMemory

from .conftest import trips_in

pytestmark = pytest.mark.embeddings

COUNT_2024 = "result = len([t for t in trips if t.start_date.year == 2024])"


def opened(root, llm=None):
    return UserMemory.open(root, llm=llm)


def _ids(prompt: str) -> set[str]:
    return set(re.findall(r"^- \[([^ |\]]+)", prompt, re.M))


def _set_answer_settings(root: Path, **values: str) -> None:
    """Set keys of the [answer] table of a project's uac.toml (every key is written there)."""
    config = root / "uac.toml"
    text = config.read_text()
    head, table = text.split("[answer]\n", 1)
    for key, value in values.items():
        table, count = re.subn(rf"^{key} = .*$", f"{key} = {json.dumps(value)}", table, count=1, flags=re.M)
        assert count == 1, key
    config.write_text(head + "[answer]\n" + table)


def test_the_citation_example_names_ids_of_this_prompt(sample_project, scripted, scripted_llm):
    scripted.enqueue("Lisbon")
    answer = opened(sample_project, scripted_llm).ask("Where did Maya go in March 2024?", tool_mode="off")
    system, context = (m.content for m in scripted.requests[0].messages)
    example = re.search(r"e\.g\. \[([^\]]+)\] for a fact or \[([^\]]+)\] for a conversation excerpt", system)
    assert example, system
    assert example.group(1) == answer.facts[0].id and example.group(2) == answer.archive[0].id
    assert {example.group(1), example.group(2)} <= _ids(context)
    prose = system.replace('"refusal": "Not mentioned in memory."', "")  # the reader_settings data block restates it
    assert "[F12]" not in system and prose.count("Not mentioned in memory.") == 1


def test_the_benchmark_style_says_one_thing(sample_project, scripted, scripted_llm):
    scripted.enqueue("Lisbon")
    opened(sample_project, scripted_llm).ask(
        "Where did Maya go?", tool_mode="off", citations=False, refusal="Not mentioned", answer_length="phrase"
    )
    system = scripted.requests[0].messages[0].content
    assert "Do not cite ids or sources in the answer." in system
    assert "e.g. [" not in system and "in memory." not in system
    assert "reply exactly: Not mentioned\n" in system
    assert "a short phrase, a few words at most" in system and "one or two sentences" not in system


def test_step_by_step_keeps_the_last_line(sample_project, scripted, scripted_llm):
    reply = (
        "<think>The user asks about March 2024. Let me look at the facts.</think>\n"
        "Looking at the FACTS, Maya got back from Lisbon on 13 March 2024.\n"
        "The archive confirms the trip.\n\n"
        "**Answer:** Lisbon"
    )
    scripted.enqueue(reply)
    answer = opened(sample_project, scripted_llm).ask(
        "Where did Maya go in March 2024?", tool_mode="off", reasoning="step_by_step"
    )
    assert answer.answer == "Lisbon"
    assert answer.reasoning == "step_by_step"
    assert "Maya got back from Lisbon" in answer.reasoning_text and "<think>" not in answer.reasoning_text
    data = answer.to_json()
    assert data["reasoning"] == "step_by_step" and data["answer"] == "Lisbon" and "reasoning_text" in data
    assert "Think step by step" in scripted.requests[0].messages[0].content


def test_direct_mode_is_recorded_and_keeps_the_whole_reply(sample_project, scripted, scripted_llm):
    scripted.enqueue("Lisbon, in March 2024.\nShe took a cooking class.")
    answer = opened(sample_project, scripted_llm).ask("Where did Maya go?", tool_mode="off")
    assert answer.answer == "Lisbon, in March 2024.\nShe took a cooking class."
    assert answer.to_json()["reasoning"] == "direct" and "reasoning_text" not in answer.to_json()
    assert "step by step" not in scripted.requests[0].messages[0].content


def test_step_by_step_with_code_written_as_text(sample_project, scripted, scripted_llm, trips_rows):
    expected = trips_in(trips_rows, 2024)
    scripted.enqueue(
        f"I need to count the trips of 2024 exactly.\n```python\n{COUNT_2024}\n```",
        f"<think>the tool said {expected}</think>The sandbox counted {expected} trips in 2024.\nAnswer: {expected}",
    )
    answer = opened(sample_project, scripted_llm).ask(
        "How many trips did Maya take in 2024?", tool_mode="codeblock", reasoning="step_by_step"
    )
    assert answer.tool_runs[0].result["result"] == expected
    assert answer.answer == str(expected) and answer.steps == 2


def test_step_by_step_a_reply_ending_on_its_answer_is_final_even_with_code(sample_project, scripted, scripted_llm):
    scripted.enqueue("One could compute it:\n```python\nresult = 3\n```\nBut the facts already say it.\nAnswer: three")
    answer = opened(sample_project, scripted_llm).ask("How many cats?", reasoning="step_by_step")
    assert answer.answer == "three" and answer.tool_runs == [] and answer.steps == 1


def test_the_tool_holds_the_facts_and_describes_them(sample_project, scripted, scripted_llm):
    memory = opened(sample_project, scripted_llm)
    total = len(memory.facts())
    scripted.enqueue(
        {
            "tool_calls": [
                {"name": "python", "arguments": {"code": "result = [len(facts), len(trips), type_name(facts[0])]"}}
            ]
        },
        "done",
    )
    answer = memory.ask("How many things did Maya say?")
    assert answer.tool_runs[0].result["result"] == [total, 24, "Fact"]
    description = scripted.requests[0].tools[0]["function"]["description"]
    assert f"`facts`: {total} Fact records" in description
    assert "`travel.trips` (also `trips`): 24 Trip records" in description
    assert "the full fact list as `facts`" in scripted.requests[0].messages[0].content


def test_codeblock_mode_puts_the_generated_description_in_the_prompt(sample_project, scripted, scripted_llm):
    scripted.enqueue("no code needed")
    opened(sample_project, scripted_llm).ask("How many trips?", tool_mode="codeblock")
    system = scripted.requests[0].messages[0].content
    assert "`travel.trips` (also `trips`)" in system and "repl_names()" in system and "`facts`:" in system


def test_tool_output_is_capped_for_the_model_but_kept_whole_in_the_answer(sample_project, scripted, scripted_llm):
    code = "result = [f.text for f in facts] * 40"
    scripted.enqueue({"tool_calls": [{"name": "python", "arguments": {"code": code}}]}, "too much")
    answer = opened(sample_project, scripted_llm).ask("List everything", tool_output_chars=1_000)
    sent = scripted.requests[1].messages[-1].content
    assert len(sent) < 1_300
    capped = json.loads(sent)
    assert "output cut at 1,000 characters" in capped["cut"]
    assert len(json.dumps(answer.tool_runs[0].result)) > 10_000


def test_the_style_comes_from_uac_toml(project_copy, scripted, scripted_llm):
    _set_answer_settings(project_copy, reasoning="step_by_step", answer_length="phrase", refusal="Unknown.")
    scripted.enqueue("Nothing about it.\nAnswer: Unknown.")
    answer = opened(project_copy, scripted_llm).ask("What is Maya's blood type?", tool_mode="off")
    assert answer.answer == "Unknown." and answer.reasoning == "step_by_step"
    system = scripted.requests[0].messages[0].content
    assert "the last line is exactly: Answer: Unknown." in system and "a few words at most" in system


def test_bad_style_values_are_input_errors(sample_project):
    memory = opened(sample_project)
    with pytest.raises(InputError, match="reasoning mode"):
        memory.ask("x", reasoning="tree_of_thought")
    with pytest.raises(InputError, match="refusal"):
        memory.ask("x", refusal="two\nlines")


def test_bad_style_in_uac_toml_is_a_config_error(project_copy):
    _set_answer_settings(project_copy, reasoning="maybe")
    with pytest.raises(ConfigError, match="reasoning must be one of direct, step_by_step"):
        opened(project_copy)


def test_cli_flags_for_the_style(sample_project, capsys):
    code = main(["ask", "--help"])
    assert code == 0
    help_text = capsys.readouterr().out
    for flag in ("--reasoning", "--answer-length", "--no-citations", "--refusal", "--tool-output-chars"):
        assert flag in help_text


def test_the_protocol_model_follows_the_style(sample_project):
    from uac.llm import LLMClient
    from uac.llm.rule_model import RuleModel

    llm = LLMClient(RuleModel(), sleep=lambda _s: None)
    memory = opened(sample_project, llm)
    answer = memory.ask(
        "Which zeppelin did the quokka pilot?", tool_mode="off", top_facts=0, top_archive=0, refusal="Unknown."
    )
    assert answer.answer == "Unknown."
    stepwise = memory.ask(
        "Which zeppelin did the quokka pilot?", tool_mode="off", top_facts=0, top_archive=0, reasoning="step_by_step"
    )
    assert stepwise.answer == "Not mentioned in memory." and stepwise.reasoning_text.startswith("Reading the memory")
