"""The model zoo: ingest, compile and ask through servers that behave like the real ones.

Every profile must complete on the fixture conversation, lose no session, keep
at least 95% of the facts the strict profile keeps, and answer the aggregate
question over the compiled state right.  The cut-context profile must first
stop with the error that names the fix, then complete once the fix is applied.
"""

from __future__ import annotations

import json

import pytest

from .conversation import ANSWER
from .profiles import PROFILES

pytestmark = pytest.mark.slow

ALL = list(PROFILES)


@pytest.mark.parametrize("name", ALL)
def test_profile_completes_and_answers_right(zoo_runs, name):
    run = zoo_runs(name)
    strict = zoo_runs("strict")
    assert run.completed, run.row()
    assert run.sessions == 4, "a session was lost"
    assert run.facts >= 0.95 * strict.facts, run.row(strict.facts)
    assert run.answer_value == ANSWER and str(ANSWER) in (run.answer or "")
    assert "<think>" not in (run.answer or "")
    assert run.usage.calls > 0 and run.usage.prompt_tokens > 0


def test_strict_needs_no_fallback(zoo_runs):
    run = zoo_runs("strict")
    assert run.error is None and run.refused == 0
    assert (run.usage.retries, run.usage.fallbacks) == (0, 0)
    assert run.extraction["kept"] == run.extraction["items"] and run.extraction["dropped"] == 0
    assert run.tool_mode == "native"


def test_cut_context_stops_with_the_fix_then_completes(zoo_runs):
    run = zoo_runs("ollama")
    assert run.error is not None
    for words in ("context window", "OLLAMA_CONTEXT_LENGTH", "num_ctx", "[extract] window_chars"):
        assert words in run.error
    assert run.sessions_after_error == 3, "the sessions before the cut one stay; the cut one is not half-written"
    assert run.completed and run.sessions == 4


def test_vllm_without_tool_parser_falls_back_to_fenced_code(zoo_runs, tmp_path):
    run = zoo_runs("vllm")
    assert run.refused == 1, "the refusal is remembered: tools are sent once"
    assert run.tool_mode == "codeblock" and run.usage.fallbacks == 1


def test_llamacpp_without_json_schema_uses_json_mode(zoo_runs):
    run = zoo_runs("llamacpp")
    assert run.refused == 1, "json_schema is refused once, then json_object is used"
    assert run.usage.fallbacks == 1


def test_sloppy_replies_are_coerced_repaired_and_counted(zoo_runs):
    run = zoo_runs("sloppy")
    stats = run.extraction
    assert stats["coerced"] > 0 and stats["repaired"] > 0 and stats["dropped"] > 0
    assert stats["kept"] + stats["dropped"] >= stats["items"] - stats["repaired"]
    assert stats["windows_fallback"] == 0


def test_truncated_windows_are_split_not_lost(zoo_runs):
    run = zoo_runs("truncating")
    assert run.extraction["windows_split"] >= 1 and run.extraction["windows_fallback"] == 0
    assert run.facts == zoo_runs("strict").facts


def test_flaky_server_costs_retries_only(zoo_runs):
    run = zoo_runs("flaky")
    assert run.usage.retries >= 2
    assert run.requests == run.usage.calls + run.usage.retries


def test_remembered_capabilities_are_on_disk(zoo_runs, tmp_path_factory):
    zoo_runs("llamacpp")
    files = list(tmp_path_factory.getbasetemp().glob("zoo-runs*/llamacpp/llm-endpoints.json"))
    assert files
    endpoints = json.loads(files[0].read_text())["endpoints"]
    assert [entry["json_mode"] for entry in endpoints.values()] == ["object"]
