"""Each command loads only what it needs: ``import uac.cli`` followed by a search
imports no torch (nor sentence-transformers, chromadb, bm25s or the sandbox's machinery).

Every check runs in a fresh interpreter, since this test process has imported
everything already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings

HEAVY = (
    "torch",
    "sentence_transformers",
    "transformers",
    "chromadb",
    "bm25s",
    "scipy",
    "sandbox",
    "sandbox.session",
    "RestrictedPython",
    "libcst",
    "black",
    "openai",
    "onnxruntime",
    "tokenizers",
)

_RUN = """
import json, sys
import uac.cli
code = uac.cli.main(json.loads(sys.argv[1]))
heavy = [m for m in json.loads(sys.argv[2]) if m in sys.modules]
print("\\n" + json.dumps({"code": code, "loaded": heavy}))
"""


def run_cli(argv: list[str], watch: tuple[str, ...] = HEAVY, **env: str) -> tuple[int, list[str], str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("UAC_LLM")}
    environment.update(HF_HUB_OFFLINE="1", **env)
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, json.dumps(argv), json.dumps(list(watch))],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    *output, last = proc.stdout.rstrip("\n").split("\n")
    report = json.loads(last)
    return report["code"], report["loaded"], "\n".join(output)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lazy") / "maya"
    memory = UserMemory.create(root, user_name="Maya")
    conversation = tmp_path_factory.mktemp("input") / "chat.json"
    conversation.write_text(
        json.dumps(
            {
                "date": "2024-05-08",
                "messages": [
                    {"role": "user", "name": "Maya", "content": "I went to a pottery class in Lisbon yesterday."},
                    {"role": "user", "name": "Leo", "content": "Nice! I adopted a cat named Oliver last week."},
                ],
            }
        ),
        "utf-8",
    )
    memory.ingest(conversation, format="messages", extractor="rules")
    memory.close()
    # one search in this process brings the derived tables up to date, as any first search does
    UserMemory.open(root).search("pottery")
    return root


#: what the host shares with the sandbox at no cost: the day arithmetic of both periods
#: (``sandbox.spans``, standard library only) and the read-only base of their values
LIGHT_SANDBOX = ("sandbox", "sandbox.spans", "sandbox.readonly")
SANDBOX_MACHINERY = ("sandbox.session", "sandbox.jail", "sandbox.process", "sandbox.codec", "sandbox.worker")


def test_a_search_imports_no_torch(project):
    watch = HEAVY + LIGHT_SANDBOX + SANDBOX_MACHINERY
    code, loaded, output = run_cli(["search", str(project), "pottery class", "--json"], watch)
    assert code == 0
    hits = json.loads(output)["results"]
    assert hits and any("pottery" in h["text"] for h in hits)
    for module in ("torch", "sentence_transformers", "transformers", "chromadb", "bm25s", "scipy", "RestrictedPython"):
        assert module not in loaded, f"uac search imported {module}"
    sandbox_parts = {m for m in loaded if m == "sandbox" or m.startswith("sandbox.")}
    assert sandbox_parts <= set(LIGHT_SANDBOX), f"uac search imported {sorted(sandbox_parts - set(LIGHT_SANDBOX))}"
    assert "onnxruntime" in loaded  # the query was embedded, just not with torch


def test_the_check_would_see_torch(project):
    # the reference embedder does import torch: the check above can fail
    code, loaded, _ = run_cli(["search", str(project), "pottery class", "--json"], UAC_EMBEDDINGS="torch")
    assert code == 0 and "torch" in loaded and "sentence_transformers" in loaded


def test_repl_loads_no_embeddings(project):
    code, loaded, output = run_cli(["repl", str(project), "-c", "result = 6 * 7", "--json"])
    assert code == 0 and json.loads(output)["result"] == 42
    for module in ("torch", "onnxruntime", "tokenizers", "chromadb", "transformers"):
        assert module not in loaded, f"uac repl imported {module}"


def test_offline_ask_and_show_import_no_torch(project):
    code, loaded, output = run_cli(["ask", str(project), "Where was the pottery class?", "--json"])
    assert code == 0 and json.loads(output)["answer"] is None
    assert not {"torch", "sentence_transformers", "chromadb"} & set(loaded)
    code, loaded, _ = run_cli(["show", str(project)])
    assert code == 0
    # the sandbox's one shared parse lock (sandbox.pyparse) is light; its machinery is not loaded
    assert not {"torch", "onnxruntime", "chromadb", "sandbox.session", "RestrictedPython"} & set(loaded)


_IMPORT_ONLY = """
import json, sys
import uac.cli
print(json.dumps(sorted(sys.modules)))
"""

#: what a command that only opens a project must not pay for
CAPABILITIES = (
    "uac.llm.client",
    "uac.llm.openai_provider",
    "uac.memorize.ingest",
    "uac.extract.rules",
    "uac.extract.llm",
    "uac.browse",
    "uac.answer.reader",
    "uac.compile.dispatch",
    "uac.doctor",
)


def test_the_command_line_imports_no_capability_until_a_command_runs():
    proc = subprocess.run([sys.executable, "-c", _IMPORT_ONLY], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    assert "uac.memory" in loaded  # the facade itself is cheap
    assert not set(CAPABILITIES) & loaded
    # nor does the argument parser bring a validation library (typer >= 0.28 would)
    assert "pydantic" not in loaded


def test_a_search_loads_no_model_client_nor_writer(project):
    code, loaded, _ = run_cli(["search", str(project), "pottery", "--json"], watch=CAPABILITIES + ("pydantic",))
    assert code == 0
    assert loaded == []


def test_a_search_of_imported_records_imports_no_chroma(tmp_path):
    root = tmp_path / "maya"
    memory = UserMemory.create(root, user_name="Maya")
    (tmp_path / "trips.csv").write_text("city,start\nKyoto,2023-04-02\nOslo,2024-01-05\n", "utf-8")
    memory.import_records(tmp_path / "trips.csv", domain="travel", collection="trips")
    memory.close()
    # the view changes behind the records index: the search brings it in step by itself
    state = root / "domains" / "travel" / "state.py"
    state.write_text(state.read_text("utf-8").replace("Oslo", "Bergen"), "utf-8")
    code, loaded, output = run_cli(["search", str(root), "Bergen", "--channel", "records", "--json"])
    assert code == 0
    hits = json.loads(output)["results"]
    assert hits[0]["channel"] == "records" and "Bergen" in hits[0]["text"] and hits[0]["record"]["position"] == 1
    for module in ("torch", "sentence_transformers", "chromadb", "sandbox.session", "RestrictedPython"):
        assert module not in loaded, f"uac search imported {module}"
