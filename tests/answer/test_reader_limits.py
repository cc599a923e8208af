"""The reader works with resolved ask options: every mode and size it reads is set."""

from __future__ import annotations

import pytest

from uac.answer.options import AskOptions, ReaderLimits
from uac.config import AnswerConfig
from uac.errors import InputError


def test_resolved_options_give_the_reader_every_limit():
    limits = AskOptions(top_facts=7, tool_mode="off").resolve(AnswerConfig()).limits()
    assert isinstance(limits, ReaderLimits)
    assert (limits.top_facts, limits.tool_mode) == (7, "off")
    assert limits.top_archive == AnswerConfig().top_archive and limits.loading == AnswerConfig().loading


def test_unresolved_options_name_what_is_unset_and_how_to_fill_it():
    with pytest.raises(InputError, match="not resolved: .*top_facts") as caught:
        AskOptions(loading="modular").limits()
    assert "loading" not in caught.value.message and "resolve" in caught.value.hint
