"""The CLI boundary: commands, --json, and bad input that changes nothing."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from uac.cli import app, main

REPO = Path(__file__).resolve().parents[2]


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def snapshot(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != "lock"
    }


def test_version(capsys):
    from uac import __version__

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"uac {__version__}"


def test_init_and_doctor_json(capsys, tmp_path):
    target = tmp_path / "alice"
    code, out, _ = run(capsys, "init", str(target), "--user-name", "Alice", "--timezone", "Europe/Paris", "--json")
    assert code == 0
    data = json.loads(out)
    assert data == {"project": str(target), "user_name": "Alice", "timezone": "Europe/Paris", "format_version": 1}
    code, out, _ = run(capsys, "doctor", str(target), "--json")
    report = json.loads(out)
    names = [c["name"] for c in report["checks"]]
    assert {"format", "layout", "lock", "llm", "sandbox"} <= set(names)
    llm_check = next(c for c in report["checks"] if c["name"] == "llm")
    assert llm_check["data"]["provider"] == "none"
    sandbox_check = next(c for c in report["checks"] if c["name"] == "sandbox")
    assert sandbox_check["data"]["level"] in ("jail", "process")
    assert report["format_version"] == 1


def test_doctor_reports_configured_provider(capsys, tmp_path, monkeypatch):
    run(capsys, "init", str(tmp_path / "p"))
    monkeypatch.setenv("UAC_LLM_PROVIDER", "openai")
    monkeypatch.setenv("UAC_LLM_MODEL", "llama3.1")
    monkeypatch.setenv("UAC_LLM_BASE_URL", "http://127.0.0.1:11434/v1")
    code, out, _ = run(capsys, "doctor", str(tmp_path / "p"))
    assert "llama3.1" in out and "127.0.0.1:11434" in out


def test_doctor_repair_restores_layout(capsys, tmp_path):
    run(capsys, "init", str(tmp_path / "p"))
    (tmp_path / "p" / "memory" / "sessions").rmdir()
    code, out, _ = run(capsys, "doctor", str(tmp_path / "p"))
    assert code == 1 and "FAIL" in out and "memory/sessions" in out
    code, out, _ = run(capsys, "doctor", str(tmp_path / "p"), "--repair")
    assert code == 0 and (tmp_path / "p" / "memory" / "sessions").is_dir()


def _commands() -> list[str]:
    import typer.main

    group = typer.main.get_command(app)
    return sorted(group.commands)


@pytest.mark.parametrize(
    "args_for",
    [
        lambda p: ["doctor", str(p / "missing")],
        lambda p: ["doctor", str(p / "plain")],
        lambda p: ["doctor", str(p / "corrupt")],
        lambda p: ["doctor", str(p / "good"), "--no-such-option"],
        lambda p: ["init", str(p / "good")],
        lambda p: ["init", str(p / "new"), "--timezone", "Not/AZone"],
    ],
)
def test_bad_input_exits_nonzero_with_one_line_and_changes_nothing(capsys, tmp_path, args_for):
    (tmp_path / "plain").mkdir()
    run(capsys, "init", str(tmp_path / "good"))
    run(capsys, "init", str(tmp_path / "corrupt"))
    (tmp_path / "corrupt" / "uac.toml").write_text("format_version = [\n")
    before = snapshot(tmp_path)
    code, out, err = run(capsys, *args_for(tmp_path))
    assert code != 0
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert lines, "an error message is expected on stderr"
    problem = [line for line in lines if "error" in line.lower()]
    assert len(problem) == 1, err
    assert snapshot(tmp_path) == before
    assert out == ""


def test_every_command_has_help(capsys):
    for name in _commands():
        code, out, _ = run(capsys, name, "--help")
        assert code == 0 and "Usage:" in out, name


def test_every_command_is_in_the_readme_cli_reference():
    readme = (REPO / "README.md").read_text("utf-8")
    match = re.search(r"^## CLI reference\n(.*?)(?=^## )", readme, re.S | re.M)
    assert match, "README.md needs a '## CLI reference' section"
    section = match.group(1)
    missing = [name for name in _commands() if not re.search(rf"\buac {re.escape(name)}\b", section)]
    assert not missing, f"commands missing from the README CLI reference: {missing}"


def test_debug_env_reraises(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "uac", "doctor", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        env={"UAC_DEBUG": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode != 0 and "Traceback" in proc.stderr and "ProjectNotFound" in proc.stderr


def test_import_uac_and_cli_stay_light():
    code = (
        "import sys, uac, uac.cli, uac.memory, uac.llm;"
        "heavy = [m for m in ('torch', 'chromadb', 'sentence_transformers', 'bm25s', 'libcst', 'black', 'openai', 'RestrictedPython') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_the_command_line_reads_the_server_bounds_without_the_servers():
    # ``uac serve``'s limit flags come from uac.server.bounds; building the commands loads no server
    code = (
        "import sys, typer.main; from uac.cli import app; typer.main.get_command(app);"
        "print(sorted(m for m in sys.modules if m == 'asyncio' or m.startswith('uac.server.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "['uac.server.bounds', 'uac.server.mcp_names']"
