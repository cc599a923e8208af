"""Symbolic links inside a project are never followed out of it.

Each test plants real links (to a file outside the project, to /dev/zero, to a
directory outside) and checks that uac refuses to read or write through them,
and leaves the link targets untouched.
"""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path

import pytest

from uac.cli import main
from uac.errors import UnsafePath

SECRET = "password=hunter2\n"


@pytest.fixture
def outside(tmp_path) -> Path:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    return secret


def _chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps({"date": "2024-03-01", "messages": [{"role": "user", "content": "I adopted a cat named Miso."}]})
    )
    return path


def test_manifest_link_out_of_the_project_is_not_read(memory, outside):
    manifest = memory.project.paths.manifest
    manifest.unlink()
    manifest.symlink_to(outside)
    with pytest.raises(UnsafePath) as info:
        memory.project.read_text("MANIFEST.md")
    assert SECRET.strip() not in str(info.value)
    assert "MANIFEST.md" in str(info.value)


def test_a_link_inside_the_project_is_followed(memory):
    (memory.root / "NOTES.md").write_text("inside")
    (memory.root / "LINK.md").symlink_to(memory.root / "NOTES.md")
    assert memory.project.read_text("LINK.md") == "inside"


def test_domain_file_link_out_of_the_project_is_refused_by_the_view(memory, outside, tmp_path):
    records = tmp_path / "trips.json"
    records.write_text(json.dumps([{"city": "Oslo", "year": 2024}]))
    memory.import_records(records, domain="travel", collection="trips")
    state = memory.root / "domains" / "travel" / "state.py"
    state.unlink()
    state.symlink_to(outside)
    with pytest.raises(UnsafePath):
        memory.state["travel"]
    with pytest.raises(UnsafePath):
        memory.project.read_text("domains/travel/state.py")


def test_domain_file_link_to_a_fifo_or_device_is_refused(memory, tmp_path):
    fifo = memory.root / "domains" / "pipe.py"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePath):  # opened without blocking, then refused: not a regular file
        memory.project.read_text("domains/pipe.py")
    (memory.root / "ZERO.md").symlink_to("/dev/zero")
    with pytest.raises(UnsafePath):
        memory.project.read_text("ZERO.md")


def test_export_never_copies_link_targets(memory, outside, tmp_path):
    (memory.root / "zero.bin").symlink_to("/dev/zero")
    (memory.root / "secret.txt").symlink_to(outside)
    (memory.root / "elsewhere").symlink_to(outside.parent, target_is_directory=True)
    (memory.root / "NOTES.md").write_text("kept")
    report = memory.export(tmp_path / "copy")
    assert sorted(report.skipped) == ["elsewhere", "secret.txt", "zero.bin"]
    copied = {str(p.relative_to(tmp_path / "copy")) for p in (tmp_path / "copy").rglob("*")}
    assert "NOTES.md" in copied and not {"zero.bin", "secret.txt", "elsewhere"} & copied
    archive = memory.export(tmp_path / "copy.tar.gz")
    assert sorted(archive.skipped) == sorted(report.skipped)
    with tarfile.open(tmp_path / "copy.tar.gz") as tar:
        names = tar.getnames()
    assert not any(n.endswith(("zero.bin", "secret.txt", "elsewhere")) for n in names)


def test_cli_export_lists_what_it_left_out(memory, outside, tmp_path, capsys):
    (memory.root / "secret.txt").symlink_to(outside)
    assert main(["export", str(memory.root), str(tmp_path / "out"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == ["secret.txt"]


def test_fact_log_link_is_neither_read_nor_written_through(memory, outside, tmp_path):
    log = memory.project.paths.facts
    log.unlink()
    log.symlink_to(outside)
    with pytest.raises(UnsafePath):
        memory.facts()
    with pytest.raises(UnsafePath):
        memory.ingest(_chat(tmp_path), extractor="rules")
    # the target is neither appended to nor truncated as an "unfinished end of the log"
    assert outside.read_text() == SECRET
    report = memory.doctor()
    assert report.check("fact_log").status == "fail" and "symbolic link" in report.check("fact_log").detail


def test_fact_log_link_inside_the_project_is_refused_too(memory):
    log = memory.project.paths.facts
    log.rename(memory.root / "other.jsonl")
    log.symlink_to(memory.root / "other.jsonl")
    with pytest.raises(UnsafePath):
        memory.facts()


def test_lock_file_link_is_not_written_through(memory, outside):
    lock = memory.project.paths.lock
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.unlink(missing_ok=True)
    lock.symlink_to(outside)
    with pytest.raises(UnsafePath):
        with memory.project.lock("test"):
            pass
    assert outside.read_text() == SECRET


def test_archive_directory_link_out_of_the_project_is_not_written(memory, outside, tmp_path):
    sessions = memory.project.paths.sessions
    sessions.rmdir()
    sessions.symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(UnsafePath):
        memory.ingest(_chat(tmp_path), extractor="rules")
    assert sorted(p.name for p in outside.parent.iterdir()) == ["secret.txt"]
