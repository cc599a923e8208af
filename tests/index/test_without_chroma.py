"""Without the chroma extra the embedded backend keeps the vectors in the flat copies
alone: ingest, search, forget, doctor, a crash and a repair all work, and chromadb is
never imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uac import StoreError, UserMemory
from uac.index import client as index_client

pytestmark = pytest.mark.embeddings
REPO = Path(__file__).resolve().parents[2]

SESSION = {
    "date": "2024-05-08",
    "messages": [
        {"role": "user", "name": "Maya", "content": "I went to a pottery class in Lisbon yesterday."},
        {"role": "user", "name": "Maya", "content": "My cat Oliver learned to open the fridge."},
    ],
}
LATER = {"date": "2024-06-02", "messages": [{"role": "user", "content": "I sold my old bike to a neighbour."}]}


@pytest.fixture
def no_chroma(monkeypatch):
    monkeypatch.setattr(index_client, "chroma_installed", lambda: False)


def test_the_flat_copies_are_the_vector_store(no_chroma, tmp_path):
    with UserMemory.create(tmp_path / "maya", user_name="Maya") as memory:
        memory.add_session(SESSION)
        memory.add_session(LATER)
        assert not memory.index.uses_chroma
        hits = memory.search("pottery in Lisbon", k=3, channel="facts")
        assert hits and "pottery" in hits[0].text
        facts = memory.index.channel("facts")
        assert facts.vector_count() == len(facts) and facts.vectors.ids() == set(facts.rows.order)
        gone = next(f for f in memory.facts() if "fridge" in f.text)
        memory.forget(fact=gone.id)
        assert all("fridge" not in h.text for h in memory.search("cat fridge", k=10, channel="facts"))
        report = memory.doctor()
        assert report.ok, report.to_json()
    assert not (tmp_path / "maya" / ".uac" / "chroma").exists()


def test_a_lost_flat_copy_is_a_clear_error_the_doctor_sees_and_repair_fixes(no_chroma, tmp_path):
    with UserMemory.create(tmp_path / "maya", user_name="Maya") as memory:
        memory.add_session(SESSION)
    (tmp_path / "maya" / ".uac" / "index" / "facts.vectors").unlink()
    with UserMemory.open(tmp_path / "maya") as memory:
        with pytest.raises(StoreError) as caught:
            memory.search("pottery", channel="facts")
        assert "not in step" in caught.value.message and "repair" in caught.value.hint
        checks = {c.name: c for c in memory.doctor().checks}
        assert checks["indexes"].status == "fail" and "no Chroma store" in checks["indexes"].detail
        assert memory.doctor(repair=True).ok
        assert "pottery" in memory.search("pottery", k=1, channel="facts")[0].text


def test_a_crash_between_the_corpus_and_its_vectors_is_caught_up(no_chroma, tmp_path):
    root = tmp_path / "maya"
    UserMemory.create(root, user_name="Maya").close()
    (tmp_path / "s.json").write_text(json.dumps(SESSION))
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_")}
    env.update(
        {"HF_HUB_OFFLINE": "1", "UAC_BLOCK_NETWORK": "1", "UAC_CRASH_AT": "index:facts-corpus", "PYTHONPATH": str(REPO)}
    )
    code = (
        f"{_BLOCK_CHROMA}\nfrom uac import UserMemory\n"
        f"UserMemory.open({str(root)!r}).ingest({str(tmp_path / 's.json')!r})\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr  # killed at the failpoint, mid-append of the facts corpus
    with UserMemory.open(root) as memory:
        hits = memory.search("pottery class", k=2, channel="facts")  # the catch-up indexes the session again
        assert hits and "pottery" in hits[0].text
        assert memory.doctor().ok


_BLOCK_CHROMA = """
import importlib.abc, sys
class _NoChroma(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "chromadb" or name.startswith("chromadb."):
            raise ModuleNotFoundError(f"No module named {name!r}")
sys.meta_path.insert(0, _NoChroma())
"""


def test_a_process_without_chromadb_never_needs_it(tmp_path):
    root = tmp_path / "maya"
    (tmp_path / "s.json").write_text(json.dumps(SESSION))
    script = (
        _BLOCK_CHROMA
        + f"""
import json, sys
from uac import UserMemory
m = UserMemory.create({str(root)!r}, user_name="Maya")
m.ingest({str(tmp_path / "s.json")!r})
m.compile()
hits = m.search("pottery", k=1)
fact = m.facts()[0]
m.forget(fact=fact.id)
ok = m.doctor(deep=True).ok and m.doctor(repair=True).ok
print(json.dumps({{"hit": hits[0].text, "ok": ok, "chromadb": "chromadb" in sys.modules}}))
"""
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_")}
    env.update({"HF_HUB_OFFLINE": "1", "UAC_BLOCK_NETWORK": "1", "PYTHONPATH": str(REPO)})
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"hit": result["hit"], "ok": True, "chromadb": False} and "pottery" in result["hit"]


def test_a_chroma_server_without_chromadb_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setenv("UAC_INDEX_BACKEND", "http")
    script = (
        _BLOCK_CHROMA
        + f"""
from uac import UserMemory
UserMemory.create({str(tmp_path / "p")!r}).search("anything")
"""
    )
    env = {k: v for k, v in os.environ.items() if k != "UAC_BLOCK_NETWORK"}
    env.update({"HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO), "UAC_INDEX_BACKEND": "http"})
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "user-as-code[chroma]" in done.stderr, done.stderr
