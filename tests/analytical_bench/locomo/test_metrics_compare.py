import json
import sys

import pytest

from analytical_bench.locomo.compare import bootstrap_ci, compare, mcnemar_exact
from analytical_bench.locomo.metrics import (
    evidence_recall,
    percentile,
    session_recall,
    summarize_answers,
    summarize_retrieval,
)
from analytical_bench.locomo.records import JsonlWriter, read_jsonl
from analytical_bench.locomo.report import plot_run, render_markdown, summarize_run
from uac.errors import InputError, UserError


def test_evidence_recall_counts_turns_covered_by_top_k_items():
    ranked = [("D1:1",), ("D2:3", "D2:4"), ("D5:1",), ()]
    assert evidence_recall(["D2:4", "D5:1"], ranked, 1) == 0.0
    assert evidence_recall(["D2:4", "D5:1"], ranked, 2) == 0.5
    assert evidence_recall(["D2:4", "D5:1"], ranked, 3) == 1.0
    assert evidence_recall([], ranked, 3) is None


def test_session_recall_uses_item_sessions_and_turns():
    ranked = [("D1:1",), (), ("D3:2",)]
    sessions = [1, 4, None]
    # gold sessions 3 and 4: the second item comes from session 4, the third covers D3:2
    assert session_recall(["D3:1", "D4:9"], ranked, sessions, 10) == 1.0
    assert session_recall(["D3:1", "D4:9"], ranked, sessions, 2) == 0.5
    assert session_recall([], ranked, sessions) is None


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10], 95) == 10
    assert percentile([], 50) is None
    assert percentile([0, 10], 95) == pytest.approx(9.5)


def test_mcnemar_exact_hand_computed():
    assert mcnemar_exact(0, 0) == 1.0
    # 5 discordant pairs, all one way: 2 * (1/32)
    assert mcnemar_exact(5, 0) == pytest.approx(2 / 32)
    # 1 vs 3: 2 * (C(4,0) + C(4,1)) / 16 = 10/16
    assert mcnemar_exact(1, 3) == pytest.approx(10 / 16)
    assert mcnemar_exact(3, 3) == 1.0


def test_bootstrap_interval_contains_mean_and_is_seeded():
    diffs = [1.0] * 30 + [0.0] * 60 + [-1.0] * 10
    low, high = bootstrap_ci(diffs, resamples=500, seed=1)
    assert low < 0.2 < high
    assert (low, high) == bootstrap_ci(diffs, resamples=500, seed=1)
    assert bootstrap_ci([0.5] * 10) == (0.5, 0.5)


def _answer(qid, category, f1=None, label=None, refusal=None, latency=1.0):
    return {
        "qid": qid,
        "category": category,
        "question": f"question {qid}?",
        "gold": "g",
        "prediction": f"p{qid}",
        "f1": f1,
        "refusal": refusal,
        "judge": None
        if label is None
        else {"label": label, "readable": True, "prompt_tokens": 10, "completion_tokens": 2},
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "latency_seconds": latency,
        "evidence_recall": None,
    }


def _run_dir(path, system, rows, kind="answers"):
    (path / "run.json").parent.mkdir(parents=True, exist_ok=True)
    (path / "run.json").write_text(json.dumps({"mode": "online", "config": {"systems": [system]}}), "utf-8")
    JsonlWriter(path / kind / f"{system}.jsonl").write_all(rows)
    return path


def test_summaries_per_category_and_micro():
    rows = [
        _answer("a", 1, f1=1.0, label="CORRECT", latency=1),
        _answer("b", 4, f1=0.5, label="WRONG", latency=2),
        _answer("c", 4, f1=0.0, label="CORRECT", latency=3),
        _answer("d", 5, refusal=1.0, latency=4),
        _answer("e", 5, refusal=0.0, latency=5),
    ]
    s = summarize_answers(rows)
    assert s["n_answerable"] == 3
    assert s["f1"] == pytest.approx(0.5)
    assert s["judge_accuracy"] == pytest.approx(2 / 3)
    assert s["refusal_accuracy"] == 0.5
    assert s["categories"]["4"]["f1"] == pytest.approx(0.25)
    assert s["categories"]["4"]["judge_accuracy"] == 0.5
    assert s["categories"]["5"]["f1"] is None
    assert s["latency_p50"] == 3
    assert s["tokens_per_question"] == 105
    retrieval = summarize_retrieval(
        [
            {
                "qid": "x",
                "category": 1,
                "evidence": ["D1:1"],
                "recall": {"5": 1.0, "10": 1.0, "20": 1.0},
                "session_recall": 1.0,
            },
            {
                "qid": "y",
                "category": 2,
                "evidence": ["D1:2"],
                "recall": {"5": 0.0, "10": 0.5, "20": 1.0},
                "session_recall": 0.0,
            },
            {
                "qid": "z",
                "category": 2,
                "evidence": [],
                "recall": {"5": None, "10": None, "20": None},
                "session_recall": None,
            },
        ]
    )
    assert retrieval["n_with_evidence"] == 2
    assert retrieval["recall@10"] == 0.75
    assert retrieval["categories"]["2"]["recall@5"] == 0.0


def test_compare_two_runs_lists_flips_with_interval(tmp_path):
    a = _run_dir(
        tmp_path / "a",
        "uac",
        [_answer(str(i), 4, f1=0.0, label="WRONG") for i in range(10)] + [_answer("x", 5, refusal=1.0)],
    )
    b_rows = [_answer(str(i), 4, f1=1.0, label="CORRECT" if i < 6 else "WRONG") for i in range(10)]
    b = _run_dir(tmp_path / "b", "uac", b_rows)
    result = compare(str(a), str(b), resamples=300)
    assert result.metric == "judge"
    assert result.n == 10
    assert (result.mean_a, result.mean_b) == (0.0, 0.6)
    assert result.difference == pytest.approx(0.6)
    assert result.ci_low <= 0.6 <= result.ci_high
    assert len(result.only_b) == 6 and result.only_a == []
    assert result.p_value == pytest.approx(2 / 64)
    text = result.to_markdown(show=2)
    assert "B - A = +60.0 pp" in text and "4 more" in text
    f1 = compare(str(a), str(b), metric="f1", resamples=100)
    assert f1.difference == 1.0 and len(f1.only_b) == 10
    with pytest.raises(InputError, match="does not apply"):
        compare(str(a), str(b), metric="recall@10")


def test_compare_retrieval_results_shows_evidence(tmp_path):
    def row(qid, recall):
        return {
            "qid": qid,
            "category": 4,
            "question": f"q{qid}?",
            "evidence": ["D1:1"],
            "retrieved_ids": ["x"],
            "recall": {"5": recall, "10": recall, "20": recall},
            "session_recall": recall,
        }

    run = _run_dir(tmp_path / "r", "rag", [row("1", 0.0), row("2", 1.0)], kind="retrieval")
    JsonlWriter(run / "retrieval" / "uac-all.jsonl").write_all([row("1", 1.0), row("2", 1.0)])
    result = compare(f"{run}:rag", f"{run}:uac-all", resamples=50)
    assert result.metric == "recall@10" and result.difference == 0.5
    assert "evidence: ['D1:1']" in result.to_markdown()
    assert compare(f"{run}:rag", f"{run}:uac-all", metric="session_recall@10", resamples=50).mean_a == 0.5
    with pytest.raises(InputError, match="holds retrieval but"):
        other = _run_dir(tmp_path / "o", "uac", [_answer("1", 4, f1=1.0)])
        compare(f"{run}:rag", str(other))


def test_compare_two_systems_of_one_run_and_bad_specs(tmp_path):
    run = _run_dir(tmp_path / "r", "uac", [_answer("1", 4, f1=1.0), _answer("2", 4, f1=0.0)])
    JsonlWriter(run / "answers" / "rag.jsonl").write_all([_answer("1", 4, f1=0.0), _answer("2", 4, f1=0.0)])
    result = compare(f"{run}:rag", f"{run}:uac", resamples=50)
    assert result.metric == "f1"  # no verdicts
    assert result.difference == 0.5
    with pytest.raises(InputError, match="several result sets"):
        compare(str(run), str(run))
    with pytest.raises(InputError, match="no result set"):
        compare(f"{run}:nope", f"{run}:uac")
    with pytest.raises(InputError, match="neither a run directory"):
        compare(str(tmp_path / "missing"), str(run))


def test_torn_last_line_is_ignored_and_dropped_before_appending(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"qid": "1"}\n{"qid": "2", "pred', "utf-8")
    assert [r["qid"] for r in read_jsonl(path)] == ["1"]
    JsonlWriter(path).write({"qid": "3"})
    assert [r["qid"] for r in read_jsonl(path)] == ["1", "3"]
    path.write_text('{"qid": "1"}\nnot json\n{"qid": "3"}\n', "utf-8")
    with pytest.raises(InputError, match="answers.jsonl:2"):
        read_jsonl(path)


def test_report_renders_reference_figures_and_caveat(tmp_path):
    run = _run_dir(tmp_path / "r", "uac", [_answer("1", 4, f1=1.0, label="CORRECT"), _answer("2", 5, refusal=1.0)])
    text = render_markdown(summarize_run(run))
    assert "| uac | 1 | 100.0 | 100.0 | 100.0 (n=1) |" in text
    assert "Reader and judge models differ across papers" in text
    assert "93.12" in text and "78.8" in text
    with pytest.raises(InputError, match="not a LoCoMo run directory"):
        summarize_run(tmp_path)


def test_missing_matplotlib_names_the_extra(tmp_path, monkeypatch):
    summary = {"answers": {}, "retrieval": {"rag": {"recall@5": 0.5, "recall@10": 0.6, "recall@20": 0.7}}}
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(UserError, match="matplotlib") as info:
        plot_run(summary, tmp_path / "x.png")
    assert "pip install 'user-as-code[plots]'" in info.value.hint
