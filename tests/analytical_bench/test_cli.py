"""``python -m analytical_bench``: generate and run (offline), and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analytical_bench.cases import Dataset
from analytical_bench.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_generate_writes_a_checksummed_dataset(tmp_path, capsys, dataset):
    assert main(["generate", "--out", str(tmp_path / "ds.json")]) == 0
    assert dataset.checksum in capsys.readouterr().out
    assert Dataset.load(tmp_path / "ds.json").checksum == dataset.checksum


def test_run_rejects_bad_arguments(tmp_path, capsys):
    assert main(["run", "--dataset", str(tmp_path / "none.json"), "--out", str(tmp_path)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["run", "--systems", "mem0", "--out", str(tmp_path)]) == 2
    assert "unknown system" in capsys.readouterr().err
    assert main(["run", "--tiers", "7", "--out", str(tmp_path)]) == 2
    assert "no case matches" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--tiers", "twenty"])


def test_missing_matplotlib_names_the_extra(monkeypatch, tmp_path):
    from analytical_bench import plot

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'user-as-code\[plots\]'"):
        plot.plot_series({"a": {20: 50.0}}, tmp_path / "x.png", title="t", ylabel="y")


@pytest.mark.slow
@pytest.mark.embeddings
def test_module_runs_offline_without_a_model(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "UAC_BLOCK_NETWORK": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "analytical_bench",
            "run",
            "--tiers",
            "20",
            "--limit",
            "2",
            "--quiet",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "no model configured" in done.stdout
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["mode"] == "offline" and run["dataset"]["cases"] == 110
    assert len(run["options"]["selected_case_ids"]) == 2


def test_run_uses_the_model_configured_in_the_environment(tmp_path, monkeypatch, capsys, dataset):
    case = dataset.select(tiers=[20]).cases[0]
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"content": str(case.gold), "match": case.question}) + "\n")
    monkeypatch.setenv("UAC_LLM_PROVIDER", "scripted")
    monkeypatch.setenv("UAC_LLM_SCRIPT", str(script))
    out = tmp_path / "out"
    code = main(
        [
            "run",
            "--systems",
            "full_context",
            "--tiers",
            "20",
            "--limit",
            "1",
            "--out",
            str(out),
            "--quiet",
            "--no-plot",
            "--workers",
            "2",
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert "1 answers" in capsys.readouterr().out
    row = json.loads((out / "results.jsonl").read_text())
    assert row["case_id"] == case.id and row["correct"] is True
    run = json.loads((out / "run.json").read_text())
    assert run["mode"] == "model" and run["llm"]["provider"] == "scripted"
    assert run["options"]["workers"] == 2
    assert "| Full Context | 100.0 |" in (out / "report.md").read_text()
    assert not (out / "accuracy_vs_n.png").exists()


def test_run_in_step_by_step_mode_records_it(tmp_path, monkeypatch, capsys, dataset):
    case = dataset.select(tiers=[20]).cases[0]
    script = tmp_path / "script.jsonl"
    reply = f"Reading every record and counting.\nThat gives the value asked for.\nAnswer: {case.gold}"
    script.write_text(json.dumps({"content": reply, "match": case.question}) + "\n")
    monkeypatch.setenv("UAC_LLM_PROVIDER", "scripted")
    monkeypatch.setenv("UAC_LLM_SCRIPT", str(script))
    out = tmp_path / "out"
    code = main(
        [
            "run",
            "--systems",
            "full_context",
            "--tiers",
            "20",
            "--limit",
            "1",
            "--out",
            str(out),
            "--quiet",
            "--no-plot",
            "--reasoning",
            "step_by_step",
        ]
    )
    assert code == 0, capsys.readouterr().err
    row = json.loads((out / "results.jsonl").read_text())
    assert row["reasoning"] == "step_by_step" and row["correct"] is True and row["response"] == reply
    assert json.loads((out / "run.json").read_text())["options"]["reasoning"] == "step_by_step"
    assert main(["run", "--reasoning", "slow", "--out", str(tmp_path / "x"), "--limit", "1"]) == 2
    assert "unknown reasoning mode" in capsys.readouterr().err
