"""The user project format: create, open, validate, migrations, workspace."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from uac import migrations
from uac.config import FORMAT_VERSION, load_config
from uac.errors import (
    ConfigError,
    FormatVersionError,
    InvalidName,
    MigrationError,
    NotAProject,
    ProjectExists,
    ProjectNotFound,
)
from uac.project import Project
from uac.workspace import resolve_project, workspace_home


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"<dir>")
        for p in sorted(root.rglob("*"))
        if p.name != "lock"
    }


def test_create_writes_format_v1_layout(tmp_path):
    project = Project.create(tmp_path / "alice", user_name="Alice", timezone="Europe/Berlin")
    root = project.root
    assert (root / "uac.toml").is_file()
    assert (root / "MANIFEST.md").read_text().startswith("# User project: Alice")
    assert (root / "memory" / "facts.jsonl").read_bytes() == b""
    assert (root / "memory" / "sessions").is_dir()
    assert (root / "domains" / "__init__.py").is_file()
    assert (root / ".uac").is_dir()
    config = load_config(root / "uac.toml")
    assert config.format_version == FORMAT_VERSION == 1
    assert config.user.name == "Alice"
    assert config.user.timezone == "Europe/Berlin"
    assert list(config.migrations) == migrations.known_names()
    assert project.layout_problems() == []


def test_open_roundtrips_settings(tmp_path):
    Project.create(tmp_path / "p", user_name="Bob")
    project = Project.open(tmp_path / "p")
    assert project.config.user.name == "Bob"
    assert project.config.compile.bounded_chars == 30_000
    assert project.config.answer.state_chars == 6_000


def test_create_refuses_existing_project_and_nonempty_dir(tmp_path):
    Project.create(tmp_path / "p")
    with pytest.raises(ProjectExists):
        Project.create(tmp_path / "p")
    other = tmp_path / "q"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ProjectExists, match="not empty"):
        Project.create(other)
    assert sorted(os.listdir(other)) == ["notes.txt"]


def test_create_with_bad_timezone_changes_nothing(tmp_path):
    with pytest.raises(ConfigError, match="time zone"):
        Project.create(tmp_path / "p", timezone="Mars/Olympus")
    assert not (tmp_path / "p").exists()


def test_open_missing_and_non_project(tmp_path):
    with pytest.raises(ProjectNotFound, match="no user project") as missing:
        Project.open(tmp_path / "nothing")
    from uac.cli.vocabulary import CLI

    assert "uac init" in missing.value.hint_for(CLI)
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotAProject, match="no uac.toml"):
        Project.open(tmp_path / "plain")
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotAProject):
        Project.open(tmp_path / "file")


def test_open_newer_format_is_refused(tmp_path):
    root = Project.create(tmp_path / "p").root
    text = (root / "uac.toml").read_text().replace("format_version = 1", "format_version = 99")
    (root / "uac.toml").write_text(text)
    with pytest.raises(FormatVersionError, match="format 99"):
        Project.open(root)


def test_unknown_migration_means_newer_uac(tmp_path):
    root = Project.create(tmp_path / "p").root
    text = (root / "uac.toml").read_text()
    text = text.replace('"0004_change_log"]', '"0004_change_log", "0099_from_the_future"]')
    (root / "uac.toml").write_text(text)
    with pytest.raises(FormatVersionError, match="0099_from_the_future"):
        Project.open(root)


def test_pending_migrations_apply_on_open(tmp_path):
    root = Project.create(tmp_path / "p").root
    (root / "domains" / "__init__.py").unlink()
    text = (
        (root / "uac.toml").read_text().replace(', "0002_domains_package", "0003_event_periods", "0004_change_log"', "")
    )
    (root / "uac.toml").write_text(text)
    project = Project.open(root)
    assert (root / "domains" / "__init__.py").is_file()
    assert list(project.config.migrations) == migrations.known_names()
    assert list(load_config(root / "uac.toml").migrations) == migrations.known_names()


def test_open_without_migrate_leaves_disk_alone(tmp_path):
    root = Project.create(tmp_path / "p").root
    text = (
        (root / "uac.toml").read_text().replace(', "0002_domains_package", "0003_event_periods", "0004_change_log"', "")
    )
    (root / "uac.toml").write_text(text)
    before = tree(root)
    Project.open(root, migrate=False)
    assert tree(root) == before


def test_migration_history_out_of_order_is_an_error():
    with pytest.raises(MigrationError):
        migrations.pending(["0002_domains_package"])


# Released migrations are append-only: this list may only grow at its end.
RELEASED = ["0001_layout", "0002_domains_package", "0003_event_periods", "0004_change_log"]


def test_migrations_are_append_only_and_unique():
    names = migrations.known_names()
    assert names[: len(RELEASED)] == RELEASED
    assert len(names) == len(set(names))
    assert names == sorted(names)


@pytest.mark.parametrize(
    "mutation, message",
    [
        (lambda t: t + "\n[llm\n", "not valid TOML"),
        (lambda t: t.replace("format_version = 1\n", ""), "no format_version"),
        (lambda t: t.replace('provider = "none"', 'provider = "magic"'), "must be one of"),
        (lambda t: t.replace("top_facts = 20", 'top_facts = "many"'), "whole number"),
        (lambda t: t.replace("[sandbox]", "[sandbox]\nrequire_jial = true"), "unknown key"),
        (lambda t: t.replace('timezone = "UTC"', 'timezone = "Nowhere/Land"'), "time zone"),
        (lambda t: t.replace('currency = ""', 'currency = "aussie dollars"'), "ISO 4217"),
    ],
)
def test_corrupt_config_is_a_clear_error(tmp_path, mutation, message):
    root = Project.create(tmp_path / "p").root
    (root / "uac.toml").write_text(mutation((root / "uac.toml").read_text()))
    with pytest.raises(ConfigError, match=message) as info:
        Project.open(root)
    assert "uac.toml" in str(info.value)


def test_non_utf8_config(tmp_path):
    root = Project.create(tmp_path / "p").root
    (root / "uac.toml").write_bytes(b'format_version = 1\nname = "\xff"\n')
    with pytest.raises(ConfigError, match="UTF-8"):
        Project.open(root)


def test_unknown_top_level_tables_survive_a_rewrite(tmp_path):
    root = Project.create(tmp_path / "p").root
    with open(root / "uac.toml", "a") as handle:
        handle.write("\n[future]\nflag = true\n")
    project = Project.open(root)
    with project.lock():
        project.save_config(project.config.with_section("answer", top_facts=7))
    again = Project.open(root)
    assert again.config.extra == {"future": {"flag": True}}
    assert again.config.answer.top_facts == 7


def test_repair_layout_recreates_missing_parts(tmp_path):
    project = Project.create(tmp_path / "p")
    (project.root / "memory" / "sessions").rmdir()
    (project.root / "MANIFEST.md").unlink()
    assert len(project.layout_problems()) == 2
    done = project.repair_layout()
    assert len(done) == 2 and project.layout_problems() == []


def test_workspace_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv("UAC_HOME", raising=False)
    assert workspace_home() == Path("user_projects")
    assert resolve_project("alice") == Path("user_projects/alice")
    monkeypatch.setenv("UAC_HOME", str(tmp_path))
    assert resolve_project("alice") == tmp_path / "alice"
    assert resolve_project("./alice") == Path("./alice")
    assert resolve_project(tmp_path / "x") == tmp_path / "x"
    for bad in ["a..b", "a b", "-x", "x" * 65, "über", "   "]:
        with pytest.raises(InvalidName):
            resolve_project(bad)


def test_bare_names_create_under_uac_home(workspace):
    project = Project.create("carol")
    assert project.root == workspace / "carol"
    assert Project.open("carol").config.user.name == "carol"


def test_project_paths_follow_the_layout(tmp_path):
    project = Project.create(tmp_path / "p", user_name="Maya")
    paths, root = project.paths, project.root
    assert paths.root == root and [f.name for f in dataclasses.fields(paths)] == ["root"]
    assert paths.config == root / "uac.toml" and paths.manifest == root / "MANIFEST.md"
    assert (paths.memory, paths.facts, paths.sessions) == (
        root / "memory",
        root / "memory" / "facts.jsonl",
        root / "memory" / "sessions",
    )
    assert (paths.domains, paths.internal, paths.lock) == (root / "domains", root / ".uac", root / ".uac" / "lock")
    assert paths.config.is_file() and paths.manifest.is_file() and paths.sessions.is_dir()


def test_what_stands_for_a_project_shows_its_class_and_directory(tmp_path):
    from uac.memory import UserMemory

    memory = UserMemory.create(tmp_path / "p", user_name="Maya")
    where = repr(str(memory.root))
    assert repr(memory) == f"UserMemory({where})"
    assert repr(memory.context) == f"MemoryContext({where})"
    assert repr(memory.project) == f"Project({where})"
    assert memory.root == memory.context.root == memory.project.root
    memory.close()
