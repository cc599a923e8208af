"""The reader prompt says one thing: every combination of the answer-style settings is
rendered and checked for the contradictions named in :func:`contradictions`."""

from __future__ import annotations

import datetime as dt
import itertools
import re

import pytest

from uac.answer.reader import reader_system_prompt
from uac.answer.style import DEFAULT_REFUSAL, LENGTHS, REASONING_MODES, AnswerStyle, final_answer_line, has_answer_line
from uac.errors import InputError
from uac.llm.rule_model.request import block_json

REFUSALS = (DEFAULT_REFUSAL, "Not mentioned", "I don't know.")
#: every refusal wording uac or its harnesses have used
KNOWN_REFUSALS = (*REFUSALS, "Not mentioned in the conversation.")
LENGTH_MARKERS = {
    "phrase": "a few words at most",
    "short": "one or two sentences",
    "full": "as complete as the question needs",
}
FACT_IDS = ["conv-26_s3-f12", "conv-26_s4-f2"]
ARCHIVE_IDS = ["conv-26_s3/c4"]
EVIDENCE = {"facts and excerpts": (FACT_IDS, ARCHIVE_IDS), "facts only": (FACT_IDS, []), "nothing": ([], [])}
TOOL_MODES = ("native", "codeblock", "off")


def _refusals(prompt: str, configured: str) -> list[str]:
    """Every refusal wording the prompt says, longest match first (so "Not mentioned"
    inside "Not mentioned in memory." is not counted twice)."""
    spans: list[tuple[int, int]] = []
    said = []
    for wording in sorted({*KNOWN_REFUSALS, configured}, key=len, reverse=True):
        for match in re.finditer(re.escape(wording), prompt):
            if not any(start <= match.start() < end for start, end in spans):
                spans.append((match.start(), match.end()))
                said.append(wording)
    return said


def contradictions(prompt: str, style: AnswerStyle, fact_ids, archive_ids, tool_mode: str) -> list[str]:
    """The named contradictions ``prompt`` holds for these settings (empty: none).  The prose
    is checked; the ``reader_settings`` data block, which restates the settings, must agree."""
    found = []
    settings = block_json(prompt, "reader_settings")
    expected = {
        "code": tool_mode if tool_mode != "off" else None,
        "step_by_step": style.step_by_step,
        "refusal": style.refusal,
    }
    if settings != expected:
        found.append(f"the reader_settings block says {settings}, the settings are {expected}")
    prompt = re.sub(r"\n<reader_settings>\n.*?\n</reader_settings>\n", "\n", prompt, flags=re.S)
    no_cite = "Do not cite"
    cites = re.findall(r"\bcit(?:e|ation|ations)\b", prompt.replace(no_cite, ""), re.I)
    bracketed = {token for group in re.findall(r"\[([^\]|]+)\]", prompt) for token in re.split(r",\s*", group)}
    ids = {t for t in bracketed if any(ch.isdigit() for ch in t)}
    if not style.citations and (cites or ids):
        found.append("citations off, but the prompt asks for them")
    if style.citations and no_cite in prompt:
        found.append("citations on, but the prompt forbids them")
    if style.citations and "without explanation or citations" in prompt:
        found.append("citations on, but the prompt forbids them")
    if ids - set(fact_ids) - set(archive_ids):
        found.append(
            f"citation example names ids that are not in the prompt's evidence: {sorted(ids - set(fact_ids) - set(archive_ids))}"
        )
    said = _refusals(prompt, style.refusal)
    for wording in sorted(set(said) - {style.refusal}):
        found.append(f"a second refusal wording: {wording!r}")
    if said.count(style.refusal) != 1:
        found.append(f"the refusal {style.refusal!r} appears {said.count(style.refusal)} times")
    lengths = [name for name, marker in LENGTH_MARKERS.items() if marker in prompt]
    if lengths != [style.length]:
        found.append(f"length instructions {lengths} for length {style.length!r}")
    if "Keep the final answer short" in prompt and style.length != "short":
        found.append("a second length instruction")
    if style.step_by_step:
        if "step by step" not in prompt or "last line" not in prompt:
            found.append("step-by-step mode without its instruction")
        if re.search(r"reply with only", prompt, re.I):
            found.append("step by step, yet told to reply with only something")
        if "without explanation" in prompt and "The answer on that line is" not in prompt:
            found.append("step by step, yet told to answer without explanation")
    else:
        if "step by step" in prompt or "last line" in prompt:
            found.append("direct mode, yet told to reason step by step")
    if tool_mode == "off" and ("python" in prompt):
        found.append("no tool, yet the prompt offers one")
    if tool_mode != "off" and "python" not in prompt:
        found.append("a tool, but the prompt does not say so")
    return found


def _render(style: AnswerStyle, evidence: str, tool_mode: str, instructions: str | None = None) -> str:
    fact_ids, archive_ids = EVIDENCE[evidence]
    return reader_system_prompt(
        user_name="Sam",
        today=dt.date(2023, 8, 1),
        has_state=True,
        has_facts=True,
        has_archive=True,
        tool_mode=tool_mode,
        style=style,
        fact_ids=fact_ids,
        archive_ids=archive_ids,
        tool_has_facts=tool_mode != "off",
        tool_description="Run Python code in a sandbox ..." if tool_mode == "codeblock" else "",
        instructions=instructions,
    )


COMBINATIONS = list(itertools.product((True, False), REFUSALS, LENGTHS, REASONING_MODES, TOOL_MODES, EVIDENCE))


def test_every_combination_renders_without_a_contradiction():
    assert len(COMBINATIONS) == 2 * 3 * 3 * 2 * 3 * 3
    failures = []
    for citations, refusal, length, reasoning, tool_mode, evidence in COMBINATIONS:
        style = AnswerStyle(citations=citations, refusal=refusal, length=length, reasoning=reasoning)
        prompt = _render(style, evidence, tool_mode)
        problems = contradictions(prompt, style, *EVIDENCE[evidence], tool_mode)
        if problems:
            failures.append(((citations, refusal, length, reasoning, tool_mode, evidence), problems))
    assert not failures, failures[:5]


def test_the_check_finds_the_old_contradictions():
    """The prompt uac used to build for the LoCoMo harness fails the check on every count."""
    old = (
        'If the memory does not contain the answer, say "Not mentioned in memory." Keep the final answer short and '
        "cite what supports it: fact ids in brackets such as [F12], or the computed value.\n\n"
        "Benchmark answer style: reply with a short phrase, a few words at most, without explanation or citations; "
        "if the memory does not contain the answer, reply 'Not mentioned'."
    )
    style = AnswerStyle(citations=False, refusal="Not mentioned", length="phrase")
    found = " | ".join(contradictions(old, style, FACT_IDS, [], "off"))
    assert "citations off, but the prompt asks for them" in found
    assert "not in the prompt's evidence: ['F12']" in found
    assert "a second refusal wording: 'Not mentioned in memory.'" in found
    assert "a second length instruction" in found


def test_the_citation_example_is_a_real_id_and_archive_excerpts_have_a_form():
    prompt = _render(AnswerStyle(), "facts and excerpts", "off")
    assert "e.g. [conv-26_s3-f12] for a fact or [conv-26_s3/c4] for a conversation excerpt" in prompt
    facts_only = _render(AnswerStyle(), "facts only", "off")
    assert "[conv-26_s3-f12]" in facts_only and "excerpt" not in facts_only.split("[ARCHIVE]")[-1].split("\n\n")[-1]
    nothing = _render(AnswerStyle(), "nothing", "off")
    assert "computed value or the STATE record" in nothing


def test_step_by_step_wording():
    prompt = _render(
        AnswerStyle(reasoning="step_by_step", length="phrase", refusal="Not mentioned"), "facts only", "codeblock"
    )
    assert "Think step by step" in prompt and "starting with 'Answer:'" in prompt
    assert "The answer on that line is a short phrase, a few words at most, without explanation." in prompt
    assert "the last line is exactly: Answer: Not mentioned" in prompt
    assert "reply with your reasoning so far and a fenced ```python code block, without an answer line" in prompt


def test_instructions_come_after_the_style():
    prompt = _render(AnswerStyle(), "nothing", "off", instructions="Answer in German.")
    assert prompt.rstrip().endswith("Answer in German.")


@pytest.mark.parametrize("bad", ["", "   ", "two\nlines", "x" * 201])
def test_bad_refusal_wordings_are_refused(bad):
    with pytest.raises(InputError):
        AnswerStyle(refusal=bad)


@pytest.mark.parametrize(
    "reply, kept",
    [
        ("The trips in 2024 were to Lisbon and Kyoto.\nAnswer: Lisbon", "Lisbon"),
        (
            "Let me think step by step.\n1. Maya went to Lisbon in March.\n\n**Answer:** Lisbon [conv-26_s3-f12]",
            "Lisbon [conv-26_s3-f12]",
        ),
        ("Reasoning ...\nFinal answer: 7 May 2023\n", "7 May 2023"),
        ("She counted three.\nAnswer:\n3", "3"),
        ("The evidence says nothing about it.\nAnswer: Not mentioned in memory.\n```", "Not mentioned in memory."),
        ("Step 1: look at the facts.\nThe answer is Hamburg, since Leo moved.\nHamburg", "Hamburg"),
        ("Answer: Paris\nOn reflection the later fact wins.\nAnswer: Berlin", "Berlin"),
        ("", ""),
    ],
)
def test_the_last_answer_line_is_kept(reply, kept):
    assert final_answer_line(reply) == kept


def test_has_answer_line_ignores_code_and_needs_an_answer():
    assert has_answer_line("I will compute.\n```python\nresult = 1\n```\nAnswer: 1")
    assert not has_answer_line("I will compute.\n```python\nresult = 1\n```")
    assert not has_answer_line("```python\nprint('Answer: 3')\n```")
    assert not has_answer_line("Answer:")
