"""A user's memory is private to its owner whichever way it was made: ``uac init``, the
API and the server make projects (and everything written into them later, and
exports) with directories 0700 and files 0600 whatever the umask; doctor names what
other users can reach in an older project and --repair closes it."""

from __future__ import annotations

import json
import os
import stat
import tarfile
from pathlib import Path

import pytest

from uac.cli import main
from uac.memory import UserMemory


@pytest.fixture(params=[0o022, 0o000])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def modes(root: Path) -> dict[str, int]:
    """Every directory and file under ``root`` (Chroma's own store aside: uac makes its
    directory 0700, what Chroma writes inside keeps Chroma's modes) -> its mode."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts[:2] != (".uac", "chroma") or len(rel.parts) == 2:
            found[str(rel)] = stat.S_IMODE(path.lstat().st_mode)
    return found


def not_private(root: Path) -> dict[str, str]:
    return {rel: oct(mode) for rel, mode in modes(root).items() if mode != (0o700 if (root / rel).is_dir() else 0o600)}


def run(capsys, *args: str) -> int:
    code = main(list(args))
    capsys.readouterr()
    return code


def test_init_makes_a_private_project_whatever_the_umask(capsys, tmp_path, umask):
    assert run(capsys, "init", str(tmp_path / "p")) == 0
    assert not_private(tmp_path / "p") == {}
    empty = tmp_path / "given"
    empty.mkdir(mode=0o755)  # an empty directory named for the project is made private too
    assert run(capsys, "init", str(empty)) == 0
    assert not_private(empty) == {}


def test_the_api_and_the_server_make_the_same_private_projects(tmp_path, umask):
    from uac.server.workspace import ServedWorkspace

    UserMemory.create(tmp_path / "api").close()
    (tmp_path / "root").mkdir()
    served = ServedWorkspace(tmp_path / "root")
    served.create("bob").close()
    served.close()
    assert not_private(tmp_path / "api") == {} and not_private(tmp_path / "root" / "bob") == {}
    assert sorted(modes(tmp_path / "api")) == sorted(modes(tmp_path / "root" / "bob"))


def test_the_servers_export_is_private_too(tmp_path):
    from uac.server.http.export import export_archive

    memory = UserMemory.create(tmp_path / "p")
    os.chmod(memory.root / "uac.toml", 0o644)  # as a file made otherwise may be
    with tarfile.open(fileobj=export_archive(memory)) as tar:
        members = tar.getmembers()
    assert {(m.isdir(), oct(m.mode)) for m in members} == {(True, "0o700"), (False, "0o600")}


@pytest.mark.embeddings
def test_everything_written_later_is_private_too(capsys, tmp_path, umask):
    project = tmp_path / "p"
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps({"date": "2024-03-01", "messages": [{"role": "user", "content": "I flew to Kyoto yesterday."}]})
    )
    records = tmp_path / "trips.json"
    records.write_text(json.dumps([{"city": "Kyoto", "nights": 7}]))
    assert run(capsys, "init", str(project)) == 0
    assert run(capsys, "ingest", str(project), str(chat)) == 0
    assert run(capsys, "import-records", str(project), str(records), "--domain", "travel", "--collection", "trips") == 0
    assert run(capsys, "compile", str(project), "--mode", "offline") == 0
    assert run(capsys, "search", str(project), "Kyoto") == 0
    assert run(capsys, "correct", str(project), "I flew to Osaka, not Kyoto.") == 0
    assert not_private(project) == {}
    (project / ".uac" / "index").rename(tmp_path / "gone")  # derived data the repair makes again
    assert run(capsys, "doctor", str(project), "--repair") == 0
    assert (project / ".uac" / "index" / "facts.jsonl").is_file() and not_private(project) == {}

    assert run(capsys, "export", str(project), str(tmp_path / "out" / "copy")) == 0
    assert not_private(tmp_path / "out" / "copy") == {}
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == 0o700
    assert run(capsys, "export", str(project), str(tmp_path / "copy.tar.gz")) == 0
    assert stat.S_IMODE((tmp_path / "copy.tar.gz").stat().st_mode) == 0o600
    with tarfile.open(tmp_path / "copy.tar.gz") as tar:
        assert {oct(m.mode) for m in tar.getmembers()} == {"0o600"}


def test_doctor_finds_an_open_project_and_repair_closes_it(capsys, tmp_path):
    from uac.fsutil import exposed

    memory = UserMemory.create(tmp_path / "p")
    root = memory.root
    assert exposed(root) == [] and memory.doctor().check("privacy").status == "ok"
    # as an earlier uac made it: the umask's modes
    for path in [root, *root.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert "." in exposed(root) and "uac.toml" in exposed(root) and "memory/facts.jsonl" in exposed(root)
    check = memory.doctor().check("privacy")
    assert check.status == "warn" and "--repair" in check.detail and "uac.toml" in check.data["exposed"]
    assert memory.doctor(repair=True).check("privacy").repaired
    assert not_private(root) == {} and memory.doctor().check("privacy").status == "ok"
    # a closed directory hides what it holds: nothing inside is reachable
    os.chmod(root / "memory" / "facts.jsonl", 0o644)
    assert exposed(root) == []
    os.chmod(root, 0o750)  # the group may enter the project, not memory/
    assert exposed(root) == ["."]
    os.chmod(root / "memory", 0o710)  # ... and now memory/ too, without listing it
    assert exposed(root) == [".", "memory", "memory/facts.jsonl"]
