"""Whole runs on the fixture file: offline (retrieval metrics) and scripted (every system)."""

from __future__ import annotations

import json

import pytest

from analytical_bench.locomo.cli import main
from analytical_bench.locomo.compare import compare
from analytical_bench.locomo.records import read_jsonl
from analytical_bench.locomo.runner import RunConfig, Runner
from uac.errors import InputError
from uac.llm import LLMClient, ScriptedProvider

pytestmark = pytest.mark.embeddings


def _offline_run(locomo_file, out, **overrides):
    logs: list[str] = []
    overrides.setdefault("systems", ["uac", "full_context", "rag"])
    config = RunConfig(data=locomo_file, out=out, **overrides)
    summary = Runner(config, llm_factory=lambda: None, log=logs.append).run()
    return summary, logs


def test_offline_run_reports_retrieval_metrics(locomo_file, tmp_path):
    out = tmp_path / "run"
    summary, logs = _offline_run(locomo_file, out)
    assert "offline mode" in logs[0] and "retrieval metrics only" in logs[0]
    assert any("full_context: not a retrieval system" in line for line in logs)
    run = json.loads((out / "run.json").read_text("utf-8"))
    assert run["mode"] == "offline" and run["model"] is None
    assert run["conversations"] == ["mini-1", "mini-2"]
    assert sorted(summary["retrieval"]) == ["rag", "uac-all", "uac-archive", "uac-facts"]
    assert not (out / "answers").exists()
    # categories 1-4 only: 6 in mini-1, 2 in mini-2
    for name in summary["retrieval"]:
        rows = read_jsonl(out / "retrieval" / f"{name}.jsonl")
        assert len(rows) == 8
        assert {r["category"] for r in rows} <= {1, 2, 3, 4}
        for row in rows:
            assert len(row["retrieved_ids"]) <= 20
            recalls = [row["recall"][k] for k in ("5", "10", "20")]
            assert all(0.0 <= r <= 1.0 for r in recalls)
            assert recalls == sorted(recalls)  # recall grows with k
            covered = [row["turns_covered"][k] for k in ("5", "10", "20")]
            assert covered == sorted(covered) and covered[0] >= 1
    # every turn of these small conversations fits in the top 20 raw turns
    assert summary["retrieval"]["rag"]["recall@20"] == 1.0
    assert summary["retrieval"]["rag"]["session_recall@10"] == 1.0
    # one raw turn per item: 5 turns for mini-1 questions, all 4 of mini-2 for its two
    assert summary["retrieval"]["rag"]["turns@5"] == (6 * 5 + 2 * 4) / 8
    rag_rows = {r["qid"]: r for r in read_jsonl(out / "retrieval" / "rag.jsonl")}
    assert rag_rows["mini-2:q1"]["evidence"] == ["D2:1"]
    prepared = {(r["system"], r["sample_id"]): r for r in read_jsonl(out / "prepare.jsonl")}
    uac = prepared[("uac", "mini-1")]
    assert uac["index_bytes"]["uac"] > 0 and uac["index_bytes"]["memory"] > 0
    assert uac["details"]["ingest"]["extractor"] == "rules"
    assert uac["details"]["compile"]["mode"] == "offline"
    assert uac["prompt_tokens"] == 0
    assert prepared[("rag", "mini-1")]["index_bytes"]["vectors"] > 0
    assert (out / "projects" / "mini-1" / "uac.toml").exists()
    report = (out / "report.md").read_text("utf-8")
    assert "mode: **offline** (no model configured: retrieval metrics only)" in report
    assert "| uac-all | 8 |" in report
    assert "Published reference figures" in report
    assert (out / "report.png").stat().st_size > 1000
    assert json.loads((out / "summary.json").read_text("utf-8"))["run"]["mode"] == "offline"

    # an existing run is not overwritten ...
    with pytest.raises(InputError, match="already holds a run"):
        _offline_run(locomo_file, out)
    # ... and resuming it skips everything already written
    _, logs = _offline_run(locomo_file, out, resume=True)
    assert not any("prepared" in line or "ranked" in line for line in logs)
    assert len(read_jsonl(out / "retrieval" / "uac-all.jsonl")) == 8
    assert len(read_jsonl(out / "prepare.jsonl")) == 4  # uac and rag for two conversations


def test_resume_finishes_an_interrupted_offline_run(locomo_file, tmp_path):
    out = tmp_path / "run"
    _offline_run(locomo_file, out, systems=["rag"], limit_questions=2)
    assert len(read_jsonl(out / "retrieval" / "rag.jsonl")) == 4
    # simulate an interruption: drop the last two records, tear the file's end
    path = out / "retrieval" / "rag.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:2]) + lines[2][:15], "utf-8")
    _offline_run(locomo_file, out, systems=["rag"], limit_questions=2, resume=True)
    rows = read_jsonl(path)
    assert sorted(r["qid"] for r in rows) == ["mini-1:q0", "mini-1:q1", "mini-2:q0", "mini-2:q1"]


def test_forced_offline_makes_no_model_call(locomo_file, tmp_path):
    provider = ScriptedProvider()  # any request would fail: the script is empty
    config = RunConfig(data=locomo_file, out=tmp_path / "run", systems=["uac"], conversations=["mini-2"], offline=True)
    summary = Runner(config, llm_factory=lambda: LLMClient(provider), log=lambda _m: None).run()
    assert summary["run"]["mode"] == "offline"
    assert provider.requests == []


@pytest.mark.slow
def test_scripted_run_every_system(locomo_file, tmp_path, answering_provider, llm_factory):
    out = tmp_path / "run"
    config = RunConfig(data=locomo_file, out=out, workers=2, compile_mode="offline")
    summary = Runner(config, llm_factory=llm_factory, log=lambda _m: None).run()
    assert summary["run"]["mode"] == "online"
    assert summary["run"]["model"] == "scripted:scripted"
    assert sorted(summary["answers"]) == ["full_context", "rag", "uac"]
    for system in ("uac", "full_context", "rag"):
        rows = {r["qid"]: r for r in read_jsonl(out / "answers" / f"{system}.jsonl")}
        assert len(rows) == 10  # categories 1-5 of both conversations
        maya = rows["mini-1:q0"]
        assert maya["prediction"] == "cello" and maya["f1"] == 1.0
        assert maya["judge"]["label"] == "CORRECT"
        assert maya["question_date"] == "2023-06-02"
        theo = rows["mini-1:q4"]
        assert theo["category"] == 5 and theo["gold"] is None and theo["adversarial_answer"] == "cello"
        assert theo["refusal"] == 1.0 and theo["judge"] is None and theo["f1"] is None
        other = rows["mini-1:q5"]
        assert other["gold"] == "3" and other["f1"] == 0.0 and other["judge"]["label"] == "WRONG"
        assert all(r["prompt_tokens"] > 0 for r in rows.values())
    uac = {r["qid"]: r for r in read_jsonl(out / "answers" / "uac.jsonl")}
    assert uac["mini-1:q0"]["answer"] == "cello [mini-1_s1-f2]"  # raw answer kept, citation stripped for scoring
    assert uac["mini-1:q0"]["retrieved_ids"]
    rag = {r["qid"]: r for r in read_jsonl(out / "answers" / "rag.jsonl")}
    assert rag["mini-1:q2"]["evidence_recall"] == 1.0
    full = {r["qid"]: r for r in read_jsonl(out / "answers" / "full_context.jsonl")}
    assert full["mini-1:q0"]["retrieved_turns"] is None and full["mini-1:q0"]["evidence_recall"] is None

    prompts = ["\n".join(m.content or "" for m in r.messages) for r in answering_provider.requests]
    full_prompts = [p for p in prompts if "whole conversation is given below" in p]
    assert full_prompts and "Session 1 (1:56 pm on 8 May, 2023)" in full_prompts[0]
    assert "[shares an image: a photo of a yellow tram on a steep street]" in full_prompts[0]
    assert any("[FACTS]" in p and "2023-06-02" in p for p in prompts)  # uac's reader, question date set

    prepared = {(r["system"], r["sample_id"]): r for r in read_jsonl(out / "prepare.jsonl")}
    assert prepared[("uac", "mini-1")]["details"]["ingest"]["extractor"] == "llm"
    assert prepared[("uac", "mini-1")]["prompt_tokens"] > 0  # ingest tokens per conversation
    assert prepared[("full_context", "mini-1")]["prompt_tokens"] == 0

    s = summary["answers"]["uac"]
    assert s["n_answerable"] == 8 and s["n_adversarial"] == 2
    assert s["judge_accuracy"] == pytest.approx(1 / 8)
    assert s["refusal_accuracy"] == 0.5  # "What car does Karl drive?" got "I do not know"
    report = (out / "report.md").read_text("utf-8")
    assert "## Answers" in report and "| uac | 8 |" in report

    result = compare(f"{out}:rag", f"{out}:uac", resamples=100)
    assert result.metric == "judge" and result.n == 8 and result.difference == 0.0

    # limit and selection: a second, smaller run
    small = tmp_path / "small"
    config = RunConfig(
        data=locomo_file, out=small, systems=["rag"], conversations=["mini-2"], limit_questions=2, judge=False
    )
    summary = Runner(config, llm_factory=llm_factory, log=lambda _m: None).run()
    rows = read_jsonl(small / "answers" / "rag.jsonl")
    assert sorted(r["qid"] for r in rows) == ["mini-2:q0", "mini-2:q1"]  # threads finish in any order
    assert all(r.get("judge") is None for r in rows)
    assert summary["answers"]["rag"]["judge_accuracy"] is None


def test_cli_offline_run_compare_and_report(locomo_file, tmp_path, capsys):
    out = tmp_path / "cli-run"
    code = main(
        [
            "run",
            "--data",
            str(locomo_file),
            "--out",
            str(out),
            "--systems",
            "rag",
            "--conversations",
            "mini-1",
            "--no-plot",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    assert "offline mode" in captured.err
    assert "| rag | 6 |" in captured.out
    assert not (out / "report.png").exists()
    assert main(["compare", f"{out}:rag", str(out / "retrieval" / "rag.jsonl"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metric"] == "recall@10" and data["difference"] == 0.0 and data["n"] == 6
    assert main(["report", str(out), "--no-plot"]) == 0
    assert main(["run", "--data", str(tmp_path / "missing.json"), "--out", str(tmp_path / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["run", "--data", str(locomo_file), "--out", str(tmp_path / "y"), "--systems", "mem0"]) == 2
    assert "unknown system mem0" in capsys.readouterr().err


def _step_by_step_handler(request):
    """Like the answering model, but a reader told to think step by step does so, the way
    real models write it: a reasoning block, prose, then a bold answer line."""
    from .conftest import answering_handler

    prompt = "\n".join(m.content or "" for m in request.messages)
    if request.json_schema is None and "Think step by step" in prompt and "instrument does Maya" in prompt:
        return {
            "content": "<think>Session 1 talks about music.</think>\nIn session 1 Maya says she practises "
            "the cello every evening.\nSo the instrument is the cello.\n\n**Answer:** cello"
        }
    if request.json_schema is None and "Think step by step" in prompt:
        return {"content": "Nothing in the sessions covers this.\nAnswer: Not mentioned in the conversation."}
    return answering_handler(request)


def test_step_by_step_run_keeps_the_last_line_and_records_the_mode(locomo_file, tmp_path):
    provider = ScriptedProvider(handler=_step_by_step_handler)
    out = tmp_path / "run"
    config = RunConfig(
        data=locomo_file,
        out=out,
        conversations=["mini-1"],
        compile_mode="offline",
        judge=False,
        workers=1,
        reasoning="step_by_step",
    )
    summary = Runner(config, llm_factory=lambda: LLMClient(provider, sleep=lambda _s: None), log=lambda _m: None).run()
    for system in ("uac", "full_context", "rag"):
        rows = {r["qid"]: r for r in read_jsonl(out / "answers" / f"{system}.jsonl")}
        assert {r["reasoning"] for r in rows.values()} == {"step_by_step"}, system
        maya = rows["mini-1:q0"]
        assert maya["prediction"] == "cello" and maya["f1"] == 1.0, (system, maya["answer"])
        assert "practises the cello" in maya["answer"]  # the whole reply is kept beside the scored line
        assert rows["mini-1:q4"]["refusal"] == 1.0
    readers = [r for r in provider.requests if r.json_schema is None]
    assert readers and all("Think step by step" in r.messages[0].content for r in readers)
    assert all("Short answer:" not in (r.messages[-1].content or "") for r in readers)
    run = json.loads((out / "run.json").read_text("utf-8"))
    assert run["config"]["reasoning"] == "step_by_step"
    assert "reasoning: step_by_step" in (out / "report.md").read_text("utf-8")
    assert summary["answers"]["uac"]["n_answerable"] == 6
    # a resumed run must answer in the same mode
    again = RunConfig(data=locomo_file, out=out, conversations=["mini-1"], resume=True, judge=False)
    with pytest.raises(InputError, match="step_by_step reasoning mode"):
        Runner(again, llm_factory=lambda: LLMClient(provider), log=lambda _m: None).run()


def test_direct_runs_record_their_mode_and_reject_unknown_modes(locomo_file, tmp_path, llm_factory):
    with pytest.raises(InputError, match="unknown reasoning mode"):
        Runner(RunConfig(data=locomo_file, out=tmp_path / "x", reasoning="deep"), llm_factory=lambda: None)
    out = tmp_path / "direct"
    config = RunConfig(data=locomo_file, out=out, systems=["full_context"], conversations=["mini-2"], judge=False)
    Runner(config, llm_factory=llm_factory, log=lambda _m: None).run()
    rows = read_jsonl(out / "answers" / "full_context.jsonl")
    assert rows and {r["reasoning"] for r in rows} == {"direct"}
