"""A project compiled three times (incremental mode, the rule model): the fixture whose
change log the history tests read line by line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from uac.llm import LLMClient, ScriptedProvider
from uac.memory import UserMemory

from ..compile.helpers import protocol_handler


def write_session(path: Path, date: str, lines: list[str]) -> Path:
    path.write_text(
        json.dumps({"date": date, "messages": [{"role": "user", "content": line} for line in lines]}), "utf-8"
    )
    return path


def open_scripted(root: Path) -> UserMemory:
    return UserMemory.open(root, llm=LLMClient(ScriptedProvider(handler=protocol_handler), sleep=lambda _s: None))


@pytest.fixture(scope="session")
def compiled_thrice(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("history")
    root = base / "alice"
    UserMemory.create(root, user_name="Alice")
    memory = open_scripted(root)
    memory.ingest(
        write_session(
            base / "a.json", "2024-03-01", ["I flew to Lisbon for a hiking trip.", "I work at Acme Labs as a baker."]
        ),
        extractor="rules",
    )
    assert memory.compile(mode="incremental").ok
    memory.ingest(
        write_session(
            base / "b.json", "2024-04-01", ["I flew to Kyoto for a conference trip.", "I now work at Globex as a chef."]
        ),
        extractor="rules",
    )
    assert memory.compile(mode="incremental").ok
    assert memory.compile(mode="incremental").ok  # nothing new: no compile in the log
    memory.close()
    return root


@pytest.fixture
def project(compiled_thrice, tmp_path) -> Path:
    """A copy of the thrice-compiled project a test may change."""
    root = tmp_path / "alice"
    shutil.copytree(compiled_thrice, root)
    return root
