"""``python -m analytical_bench conv`` end to end: the offline rows (CLI and library), and the model
systems with a scripted model that answers the way models do and with the rule model."""

from __future__ import annotations

import json

import pytest

from analytical_bench.cli import main
from analytical_bench.conv.dataset import generate, load_history
from analytical_bench.conv.run import run_conv
from uac.llm import ChatRequest, LLMClient, ScriptedProvider
from uac.llm.rule_model import respond_entry
from uac.llm.rule_model.request import call_kind


def _read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_the_offline_run_writes_results_scores_and_the_report(tmp_path, capsys):
    assert (
        main(["conv", "--sizes", "10", "--out", str(tmp_path / "out"), "--offline", "--quiet", "--no-hand-written"])
        == 0
    )
    assert "offline rows (no model configured)" in capsys.readouterr().out
    out = tmp_path / "out"
    history = generate(32, 10)
    rows = _read(out / "results.jsonl")
    assert len(rows) == len(history.questions) and {r["system"] for r in rows} == {"offline_view"}
    assert all(isinstance(r["correct"], bool) and r["gold"] is not None for r in rows)
    scores = _read(out / "view_scores.jsonl")
    assert {s["kind"] for s in scores} >= {"trip", "meal", "purchase", "job", "workout", "book", "home"}
    run = json.loads((out / "run.json").read_text())
    assert run["mode"] == "offline" and run["histories"][0]["sha256"] == history.sha256
    report = (out / "report.md").read_text()
    for heading in (
        "## Data",
        "## Phrasing diversity",
        "## Offline view: record precision / recall per kind",
        "## Accuracy (%) by history",
        "## Accuracy (%) by question kind",
        "## Tokens and model calls",
    ):
        assert heading in report
    assert history.sha256 in report
    # the data written is the data scored, and loads back checked
    assert load_history(out / "data" / "generated-10").sha256 == history.sha256


def test_bad_arguments_are_refused(tmp_path, capsys):
    assert main(["conv", "--sizes", "5", "--out", str(tmp_path), "--offline"]) == 2
    assert "10 to 500 sessions" in capsys.readouterr().err
    assert main(["conv", "--sizes", "10", "--systems", "mem0", "--out", str(tmp_path)]) == 2
    assert "unknown system(s) mem0" in capsys.readouterr().err
    assert main(["conv", "--hand-written", str(tmp_path / "none"), "--out", str(tmp_path), "--offline"]) == 2
    assert "is not a folder" in capsys.readouterr().err


def _answer_like_a_model(question) -> str:
    gold = question.gold
    if question.answer_kind == "int":
        return f"Based on what you told me, the answer is {gold}."
    if question.answer_kind == "float":
        return f"That comes to about {gold:,.2f} in total."
    if question.answer_kind == "set":
        return ", ".join(gold[:-1]) + (" and " if len(gold) > 1 else "") + gold[-1]
    return f"{gold}."


def scripted_client(history, failing: str):
    """The rule model for ingest and compile; the answers written as a model writes them;
    question ``failing`` gets an error from the endpoint."""
    by_text = sorted(history.questions, key=lambda q: -len(q.text))

    def handler(request: ChatRequest):
        prompt = "\n".join(m.content or "" for m in request.messages)
        if call_kind(request) == "answer" or request.purpose.endswith("full_context"):
            question = next(q for q in by_text if q.text in prompt)
            if question.id == failing:
                return {"error": "fatal", "message": "the endpoint refused the request"}
            return {"content": _answer_like_a_model(question)}
        return respond_entry(request)

    return LLMClient(ScriptedProvider(handler=handler), sleep=lambda _s: None)


@pytest.mark.slow
def test_model_systems_end_to_end_with_a_scripted_model(tmp_path):
    history = generate(32, 10)
    failing = history.questions[1].id
    llm = scripted_client(history, failing)
    outcome = run_conv([history], tmp_path / "out", llm=llm)
    rows = outcome.rows
    by_system = {s: [r for r in rows if r["system"] == s] for s in ("offline_view", "uac", "retrieval", "full_context")}
    assert all(len(v) == len(history.questions) for v in by_system.values())
    for system in ("uac", "retrieval", "full_context"):
        mine = by_system[system]
        wrong = [r for r in mine if not r["correct"]]
        assert [r["question_id"] for r in wrong] == [failing], wrong  # the error is scored wrong, the run goes on
        assert "the endpoint refused" in wrong[0]["error"]
        assert all(r["model_calls"] >= 1 for r in mine if r["question_id"] != failing)
    builds = _read(tmp_path / "out" / "builds.jsonl")
    uac_build = next(b for b in builds if b["system"] == "uac")
    assert uac_build["model_calls"] > 0 and uac_build["facts"] > 0
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["mode"] == "model" and run["totals"]["errors"] == 3 and run["totals"]["model_calls"] > 0


def test_full_context_that_does_not_fit_is_not_run_and_left_out_of_accuracy(tmp_path):
    from analytical_bench.conv.report import accuracy_cell
    from analytical_bench.conv.run import run_model_rows
    from analytical_bench.conv.systems import make_systems

    history = generate(32, 10)
    llm = LLMClient(ScriptedProvider(), sleep=lambda _s: None)  # any call would exhaust the empty script
    rows, _builds = run_model_rows([history], make_systems(["full_context"], llm, context_tokens=300), tmp_path)
    assert {r["status"] for r in rows} == {"not_run"} and {r["correct"] for r in rows} == {None}
    assert "do not fit in 300 (--context-tokens)" in rows[0]["error"]
    assert accuracy_cell(rows) == "not run"


@pytest.mark.slow
def test_model_systems_run_with_the_protocol_model(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("UAC_LLM_PROVIDER", "protocol")
    assert (
        main(
            [
                "conv",
                "--sizes",
                "10",
                "--out",
                str(tmp_path / "out"),
                "--quiet",
                "--no-hand-written",
                "--systems",
                "uac,retrieval,full_context",
            ]
        )
        == 0
    )
    rows = _read(tmp_path / "out" / "results.jsonl")
    assert {r["system"] for r in rows} == {"offline_view", "uac", "retrieval", "full_context"}
    assert sum(r["model_calls"] for r in rows if r["system"] == "uac") > 0
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["llm"]["provider"] == "protocol"
