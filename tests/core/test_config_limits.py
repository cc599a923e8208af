"""uac.toml: per-purpose completion limits and timeouts, and the [extract] table."""

from __future__ import annotations

from pathlib import Path

import pytest

from uac.config import DEFAULT_MAX_TOKENS, ProjectConfig, dump_config, parse_config
from uac.errors import ConfigError
from uac.llm import resolve_settings

PATH = Path("uac.toml")


def test_defaults_round_trip_through_the_file():
    config = ProjectConfig()
    again = parse_config(dump_config(config), PATH)
    assert again.llm.max_tokens == DEFAULT_MAX_TOKENS and again.llm.timeouts == {}
    assert again.extract.window_chars == 12_000 and again.llm.check_context is True
    assert "[llm.max_tokens]" in dump_config(config)


def test_a_partial_table_keeps_the_other_defaults():
    text = "format_version = 1\n[llm]\ncheck_context = false\n[llm.max_tokens]\nanswer = 512\ncompile = 0\n[llm.timeouts]\ncompile = 300\n[extract]\nwindow_chars = 6000\n"
    config = parse_config(text, PATH)
    assert config.llm.max_tokens["answer"] == 512 and config.llm.max_tokens["extract"] == DEFAULT_MAX_TOKENS["extract"]
    assert config.extract.window_chars == 6000
    limits = resolve_settings(config.llm, env={"UAC_LLM_TIMEOUT": "20"}).limits
    assert limits.max_tokens_for("answer") == 512
    assert limits.max_tokens_for("structure.domain:travel") is None  # 0: let the server decide
    assert limits.timeout_for("structure.domain:travel") == 300.0 and limits.timeout_for("answer") == 20.0
    assert limits.check_context is False


@pytest.mark.parametrize(
    "table, message",
    [
        ("[llm.max_tokens]\nsummarize = 10\n", "unknown purpose"),
        ("[llm.max_tokens]\nanswer = 1.5\n", "whole number"),
        ("[llm.max_tokens]\nanswer = -1\n", "positive"),
        ("[llm.timeouts]\nanswer = 0\n", "positive"),
        ('[llm.timeouts]\nanswer = "soon"\n', "number"),
        ("[llm]\nmax_tokens = 5\n", "table of purpose"),
        ("[extract]\nwindow = 5\n", "unknown key"),
    ],
)
def test_bad_limits_name_the_table_and_the_fix(table, message):
    with pytest.raises(ConfigError, match=message):
        parse_config("format_version = 1\n" + table, PATH)
