"""Fixtures of the LoCoMo harness tests: a small LoCoMo-shaped file written for
these tests (two conversations, invented content) and scripted models."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from uac.llm import ChatRequest, LLMClient, ScriptedProvider

DATA = Path(__file__).parent / "data" / "mini_locomo.json"


@pytest.fixture
def locomo_file(tmp_path) -> Path:
    """A copy of the fixture file (tests may edit it)."""
    target = tmp_path / "mini_locomo.json"
    shutil.copy(DATA, target)
    return target


@pytest.fixture
def locomo_raw() -> list[dict]:
    return json.loads(DATA.read_text("utf-8"))


_TURN = re.compile(r"\bD\d+:\d+\b")


def answering_handler(request: ChatRequest) -> dict:
    """A scripted model for whole runs: extracts one fact per window, answers every
    reader prompt, judges answers that contain the gold as CORRECT."""
    prompt = "\n".join(m.content or "" for m in request.messages)
    if request.schema_name == "facts":
        turns = _TURN.findall(prompt.rsplit("Turns to extract from:", 1)[-1])
        first = turns[0]
        return {
            "json": {
                "facts": [
                    {
                        "text": f"Something was said in turn {first}.",
                        "evidence": [first],
                        "event_date": None,
                        "supersedes": None,
                        "speaker": None,
                    }
                ]
            }
        }
    if request.schema_name == "verdict":
        gold = re.search(r"Gold answer: (.*)", prompt).group(1).strip().lower()
        generated = re.search(r"Generated answer: (.*)", prompt).group(1).strip().lower()
        label = "CORRECT" if gold and gold in generated else "WRONG"
        return {"json": {"reason": "Compared the generated answer with the gold.", "label": label}}
    if request.json_schema is not None:
        raise AssertionError(f"unexpected structured request {request.schema_name!r}")
    if "instrument does Maya" in prompt:
        return {"content": "cello [mini-1_s1-f2]"}
    if "instrument does Theo" in prompt:
        return {"content": "Not mentioned in the conversation."}
    return {"content": "I do not know"}


@pytest.fixture
def answering_provider() -> ScriptedProvider:
    return ScriptedProvider(handler=answering_handler)


@pytest.fixture
def llm_factory(answering_provider):
    def make() -> LLMClient:
        return LLMClient(answering_provider, sleep=lambda _s: None)

    return make
