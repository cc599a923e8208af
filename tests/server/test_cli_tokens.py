"""``uac token`` and ``uac serve`` on the command line (no model, no server process)."""

from __future__ import annotations

import json

import pytest

from uac.cli import main
from uac.errors import ConfigError, StoreError
from uac.memory import UserMemory
from uac.server.extras import require
from uac.server.tokens import TokenStore, admin_token_valid


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_token_create_list_revoke(tmp_path, capsys):
    project = tmp_path / "alice"
    UserMemory.create(project)
    code, out, _ = run(capsys, "token", "create", str(project), "--name", "phone", "--json")
    assert code == 0
    created = json.loads(out)
    token = created["token"]
    assert token.startswith(f"uac_{created['id']}_") and created["name"] == "phone"
    store = TokenStore.for_project(project)
    assert store.verify(token).id == created["id"]
    assert token not in store.path.read_text()

    code, out, err = run(capsys, "token", "create", str(project))
    assert code == 0
    # TOKEN=$(uac token create ...) captures the token alone; the note goes to stderr
    assert out.count("\n") == 1
    plain_token = out.strip()
    assert "shown only now" in err and store.verify(plain_token) is not None

    code, out, err = run(capsys, "token", "create", str(project), "--quiet")
    assert code == 0 and err == "" and store.verify(out.strip()) is not None

    code, out, _ = run(capsys, "token", "list", str(project), "--json")
    listed = json.loads(out)["tokens"]
    assert [t["id"] for t in listed][0] == created["id"] and len(listed) == 3
    assert token not in out and "sha256" not in out

    code, out, _ = run(capsys, "token", "revoke", str(project), created["id"])
    assert code == 0 and created["id"] in out
    assert store.verify(token) is None and store.verify(plain_token) is not None

    code, _, err = run(capsys, "token", "revoke", str(project), created["id"])
    assert code == 2 and "no token with id" in err and "uac token list" in err


def test_admin_tokens(tmp_path, capsys, monkeypatch):
    code, out, _ = run(capsys, "token", "create", "--admin", "--root", str(tmp_path), "--json")
    assert code == 0
    token = json.loads(out)["token"]
    assert admin_token_valid(tmp_path, token)
    assert not admin_token_valid(tmp_path, token + "x")
    assert not admin_token_valid(tmp_path, None)
    monkeypatch.setenv("UAC_ADMIN_TOKEN", "from-env")
    assert admin_token_valid(tmp_path, "from-env")
    code, _, err = run(capsys, "token", "create", "--admin", "--root", str(tmp_path / "missing"))
    assert code != 0 and "is not a directory" in err


def test_token_for_a_missing_project_is_a_clear_error(tmp_path, capsys):
    code, out, err = run(capsys, "token", "create", str(tmp_path / "nobody"))
    assert code == 2 and out == "" and "uac init" in err


def test_a_damaged_token_file_is_a_clear_error(tmp_path):
    project = tmp_path / "alice"
    UserMemory.create(project)
    store = TokenStore.for_project(project)
    token, _ = store.create()
    store.path.write_text("{not json")
    with pytest.raises(StoreError) as caught:
        store.verify(token)
    from uac.cli.vocabulary import CLI

    assert "token file" in str(caught.value) and "uac token create" in caught.value.hint_for(CLI)


def test_serve_help_and_missing_extras():
    with pytest.raises(ConfigError, match=r"pip install 'user-as-code\[server\]'"):
        require("fastapi_not_installed_here", "server")
    with pytest.raises(ConfigError, match=r"pip install 'user-as-code\[mcp\]'"):
        require("mcp_not_installed_here.server", "mcp")


def test_serve_refuses_a_root_that_does_not_exist(tmp_path, capsys):
    code, _, err = run(capsys, "serve", "http", "--root", str(tmp_path / "nope"))
    assert code == 2 and "is not a directory" in err
    code, _, err = run(capsys, "serve", "mcp", "--root", str(tmp_path), "--transport", "carrier-pigeon")
    assert code == 2 and "--transport" in err
    code, _, err = run(capsys, "serve", "mcp", "--root", str(tmp_path), "--project", "ghost")
    assert code == 2 and "ghost" in err
