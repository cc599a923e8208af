"""The benchmark scripts under ``benchmarks/``: their documented flags, and one
small end-to-end run of the LoCoMo retrieval benchmark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MINI_LOCOMO = REPO / "tests" / "locomo" / "data" / "mini_locomo.json"

FLAGS = {
    "bench_retrieval_locomo.py": ["--data", "--conversations", "--out", "--skip-scale", "--scale-facts",
                                  "--timed-conversations"],
    "bench_structure.py": ["--records", "--repeat", "--json"],
    "bench_sandbox.py": ["--records", "--repeat", "--cold-repeat", "--check"],
    "bench_compile_scale.py": ["--sessions", "--step", "--per-session", "--out"],
    "bench_http_load.py": ["--users", "--sessions", "--concurrency", "--search-requests", "--repl-requests",
                           "--writes", "--deadline", "--json"],
}


def _script(name: str, *args: str, env: dict[str, str] | None = None, timeout: int = 120):
    return subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / name), *args],
        cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env,
    )


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_help_lists_the_documented_flags(name):
    done = _script(name, "--help")
    assert done.returncode == 0, done.stderr
    for flag in FLAGS[name]:
        assert flag in done.stdout, f"{name} --help does not mention {flag}"


def test_a_bad_flag_is_a_usage_error():
    done = _script("bench_structure.py", "--records", "many")
    assert done.returncode == 2
    assert "Usage:" in done.stderr and "--records" in done.stderr


@pytest.mark.slow
@pytest.mark.embeddings
def test_retrieval_benchmark_on_a_small_locomo_file(tmp_path):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "UAC_BLOCK_NETWORK": "1"}
    done = _script(
        "bench_retrieval_locomo.py", "--data", str(MINI_LOCOMO), "--conversations", "mini-1", "mini-2",
        "--timed-conversations", "1", "--scale-facts", "120", "--out", str(tmp_path), env=env, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "results.json").read_text())
    assert result["conversations"] == ["mini-1", "mini-2"]
    # categories 1-4 with evidence: 6 in mini-1, 2 in mini-2
    assert result["questions"] == 8
    for system in ("uac:facts", "uac:archive", "uac:all", "baseline:dense", "baseline:bm25+dense"):
        assert 0.0 < result["recall"][system]["recall@20"] <= 1.0
    assert result["scale"]["facts"] == 120 and result["scale"]["queries"] == 8
    assert result["timing"]["ingest_seconds"] > 0
    assert "[PASS] facts recall@10 >= 0.80 (aim)" in done.stdout or "[FAIL] facts recall@10 >= 0.80 (aim)" in done.stdout
    facts = result["recall"]["uac:facts"]
    targets = result["targets"]
    assert targets["facts recall@10 >= 0.80 (aim)"]["value"] == facts["recall@10"]
    assert targets["facts recall@10 multi-hop >= 0.55 (aim)"]["value"] == facts["recall@10_cat1"]
    assert targets["facts recall@10 open-domain >= 0.55 (aim)"]["value"] == facts["recall@10_cat3"]

    unknown = _script("bench_retrieval_locomo.py", "--data", str(MINI_LOCOMO), "--conversations", "conv-99",
                      env=env)
    assert unknown.returncode == 2
    assert "no conversation conv-99" in unknown.stderr


def test_compile_scale_benchmark_on_short_histories(tmp_path):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "UAC_BLOCK_NETWORK": "1"}
    out = tmp_path / "scale.json"
    done = _script("bench_compile_scale.py", "--sessions", "2,4", "--step", "2", "--per-session", "8", "--out", str(out), env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert [r["sessions"] for r in results] == [2, 4] and results[1]["compiles"] == 2
    for r in results:
        assert r["recorded"] + r["considered"] == r["facts"] and r["pending"] == 0
        assert 0 < r["largest_completion"] < 4000 and r["bounded"]["coverage"] == 1.0
    assert "tokens per new fact, largest N vs smallest" in done.stdout
