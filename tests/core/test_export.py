"""uac export: the source of truth and the view travel, derived data does not."""

from __future__ import annotations

import json
import tarfile

import pytest

from uac.cli import main
from uac.errors import UserError
from uac.memory import UserMemory


def test_export_directory_and_archive(tmp_path, capsys):
    memory = UserMemory.create(tmp_path / "alice")
    (memory.root / ".uac" / "derived.bin").write_bytes(b"x" * 10)
    (memory.root / "NOTES.md").write_text("kept by the user")
    copy = memory.export(tmp_path / "copy")
    assert copy.kind == "directory" and copy.files >= 3
    assert (tmp_path / "copy" / "NOTES.md").read_text() == "kept by the user"
    assert (tmp_path / "copy" / "memory" / "facts.jsonl").exists()
    assert (tmp_path / "copy" / "uac.toml").exists()
    assert not (tmp_path / "copy" / ".uac").exists()
    reopened = UserMemory.open(tmp_path / "copy")
    assert reopened.doctor(repair=True).ok
    code = main(["export", str(memory.root), str(tmp_path / "a.tar.gz"), "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "archive"
    with tarfile.open(tmp_path / "a.tar.gz") as tar:
        names = tar.getnames()
    assert "alice/uac.toml" in names and "alice/NOTES.md" in names and "alice/memory/facts.jsonl" in names
    assert not any("/.uac" in n for n in names)


def test_export_refuses_existing_targets_and_inside_project(tmp_path):
    memory = UserMemory.create(tmp_path / "alice")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "f").write_text("x")
    with pytest.raises(UserError, match="already exists"):
        memory.export(tmp_path / "busy")
    with pytest.raises(UserError, match="inside the project"):
        memory.export(memory.root / "sub")
    assert not (memory.root / "sub").exists()
