"""What a user sees when an optional part is missing, the Python is too old, or the
model cache cannot be written: one line that says what to install or set."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from uac._version import REQUIRES_PYTHON, python_problem
from uac.errors import ConfigError
from uac.extras import DISTRIBUTION, EXTRAS, install_command, require

ROOT = Path(__file__).resolve().parents[2]


def _blocked(tmp_path: Path, *modules: str) -> dict[str, str]:
    """An environment in which importing each of ``modules`` fails as if it were not installed."""
    shadow = tmp_path / "shadow"
    for module in modules:
        package = shadow / module
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(f"raise ImportError({'No module named ' + repr(module)!r})\n")
    path = os.pathsep.join([str(shadow), str(ROOT)])
    return dict(os.environ, PYTHONPATH=path, HF_HUB_OFFLINE="1", UAC_HOME=str(tmp_path / "home"))


def _uac(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "uac", *args], env=env, capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_every_extra_of_the_package_is_known_and_named_with_the_distribution():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == DISTRIBUTION == "user-as-code"
    assert set(project["optional-dependencies"]) == set(EXTRAS)
    assert install_command("server") == "pip install 'user-as-code[server]'"
    with pytest.raises(ValueError, match="unknown extra"):
        install_command("serverless")


def test_the_core_needs_neither_torch_nor_sentence_transformers_and_pins_nothing_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    core = " ".join(project["dependencies"]).lower()
    for heavy in ("torch", "sentence-transformers", "transformers", "nltk"):
        assert heavy not in core.replace("sentence-transformers", "" if heavy != "sentence-transformers" else "x")
    for requirement in [*project["dependencies"], *sum(project["optional-dependencies"].values(), [])]:
        assert "==" not in requirement, requirement
    assert "torch" in " ".join(project["optional-dependencies"]["reference"])


def test_require_names_the_extra():
    with pytest.raises(ConfigError) as caught:
        require("surely_not_installed_anywhere", "plots", what="the accuracy plot")
    assert "the accuracy plot needs the surely_not_installed_anywhere package" in caught.value.message
    assert caught.value.hint == "Install the plots extra: pip install 'user-as-code[plots]'."


@pytest.mark.parametrize(
    ("modules", "args", "extra"),
    [
        (("fastapi",), ("serve", "http", "--root", "{tmp}"), "server"),
        (("mcp",), ("serve", "mcp", "--root", "{tmp}"), "mcp"),
    ],
)
def test_a_missing_extra_is_one_line_naming_it(tmp_path, modules, args, extra):
    done = _uac(_blocked(tmp_path, *modules), *(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("uac: error:"), done.stderr
    assert f"pip install 'user-as-code[{extra}]'" in lines[0]


def test_the_reference_embedder_without_its_extra_is_one_line(tmp_path):
    env = _blocked(tmp_path, "sentence_transformers")
    env["UAC_EMBEDDINGS"] = "torch"
    assert _uac(env, "init", "ana").returncode == 0
    done = _uac(env, "search", "ana", "anything")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'user-as-code[reference]'" in lines[0], done.stderr


def test_an_unwritable_model_cache_is_one_line_naming_the_setting(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    env = _blocked(tmp_path)
    env["UAC_CACHE_DIR"] = str(blocker / "cache")
    assert _uac(env, "init", "ana").returncode == 0
    done = _uac(env, "search", "ana", "anything")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "UAC_CACHE_DIR" in lines[0], done.stderr


def test_an_old_python_is_one_line_saying_what_to_do():
    assert python_problem(sys.version_info) is None
    assert python_problem(REQUIRES_PYTHON + (0,)) is None
    message = python_problem((3, 10, 12))
    assert message is not None and "\n" not in message
    assert "Python 3.11 or newer" in message and "3.10.12" in message
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["requires-python"] == ">=" + ".".join(map(str, REQUIRES_PYTHON))
