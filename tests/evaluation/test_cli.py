"""`quant-rag eval` on the ingested slice: JSON shape, placebo noise floor, skipped count, MLflow."""

from __future__ import annotations

import json

import pytest

from evaluation.cli import BUNDLED, main
from evaluation.datasets import load_library_questions
from evaluation.runs import absent_companion
from evaluation.tracking import PER_QUESTION_ARTIFACT, read_run, tracking_uri


@pytest.fixture()
def mlflow_uri(tmp_path, monkeypatch):
    uri = tracking_uri(tmp_path / "mlflow")  # keep the shared ingested state untouched
    (tmp_path / "mlflow").mkdir()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    return uri


def test_library_eval_json(ingested_home, mlflow_uri, monkeypatch, capsys):
    monkeypatch.setenv("QUANT_RAG_HOME", str(ingested_home))
    assert main(["--bench", "library", "--arms", "dense,bm25,hybrid,placebo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["arms"]) == {"dense", "bm25", "hybrid", "placebo"}
    for row in out["arms"].values():
        assert {"ndcg@10", "recall@10", "mrr", "ci"} <= set(row)
        assert row["ci"][0] <= row["ndcg@10"] <= row["ci"][1]
    pairs = {p["a"]: p for p in out["pairs"]}
    assert set(pairs) == {"bm25", "hybrid", "placebo"} and all(p["b"] == "dense" for p in pairs.values())
    assert pairs["placebo"]["ci"][0] <= 0 <= pairs["placebo"]["ci"][1]
    # the slice holds 7 documents: questions whose gold lies elsewhere are skipped and counted
    # the absent-topic questions beside the dev split are loaded with it (negatives, never skipped)
    absent = load_library_questions(absent_companion(BUNDLED["library"]))
    total = len(load_library_questions(BUNDLED["library"])) + len(absent)
    negatives = out["negatives"]["dense"]["n"]
    assert out["skipped"]["gold_document_absent"] > 0
    assert out["questions"] + sum(out["skipped"].values()) == total
    assert out["arms"]["dense"]["n"] == out["questions"] - negatives > 0
    for arm in ("dense", "bm25", "hybrid"):  # every mode gets a probability on one scale
        abstention = out["abstention"][arm]
        assert abstention["absent_flagged"][1] == len(absent) and abstention["negatives_flagged"][1] == negatives
        assert abstention["answerable_flagged"][1] == out["arms"][arm]["n"] and 0 <= abstention["auroc"] <= 1
    run = read_run(mlflow_uri, out["mlflow"]["runs"]["hybrid"])
    assert run["status"] == "FINISHED"
    assert run["params"]["mode"] == "hybrid" and run["params"]["corpus_signature"] == out["corpus_signature"]
    assert {"config_hash", "model", "benchmark"} <= set(run["params"])
    assert run["metrics"]["ndcg_at_10"] == pytest.approx(out["arms"]["hybrid"]["ndcg@10"])
    assert {"ndcg_at_10.ci_lo", "ndcg_at_10.ci_hi", "diff_vs_dense.ci_lo"} <= set(run["metrics"])
    assert PER_QUESTION_ARTIFACT in run["artifacts"] and any(a.endswith(".png") for a in run["artifacts"])


def test_library_eval_table(ingested_home, mlflow_uri, monkeypatch, capsys):
    monkeypatch.setenv("QUANT_RAG_HOME", str(ingested_home))
    assert main(["--bench", "library", "--arms", "bm25,placebo", "--limit-queries", "5"]) == 0
    table = capsys.readouterr().out
    assert "placebo − bm25" in table and "95% CI" in table


def test_library_eval_refuses_without_state(tmp_path, mlflow_uri, monkeypatch, capsys):
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "empty"))
    assert main(["--bench", "library", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "quant-rag ingest" in captured.err
    assert not (tmp_path / "empty").exists()


def test_unknown_bench_and_bad_arms(tmp_path, mlflow_uri, monkeypatch, capsys):
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path))
    assert main(["--bench", "no-such-set"]) == 2
    assert main(["--bench", "scifact", "--arms", "placebo,dense"]) == 2
    assert "no-such-set" in capsys.readouterr().err


def test_the_terminal_shows_our_progress_and_not_library_chatter():
    """`quant-rag eval` on a benchmark builds its state: our progress lines stay, the ONNX
    optimiser's and sentence-transformers' INFO lines do not (a fresh process: basicConfig)."""
    import subprocess
    import sys

    script = (
        "import logging; from evaluation.cli import configure_logging; configure_logging(); "
        "logging.getLogger('onnx_model_bert').info('fused 12 nodes'); "
        "logging.getLogger('sentence_transformers.base.model').info('no device provided'); "
        "logging.getLogger('evaluation.runs').info('embedded 128/3224 pieces'); "
        "logging.getLogger('onnx_model').warning('graph not optimised')"
    )
    stderr = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stderr
    assert "embedded 128/3224 pieces" in stderr and "graph not optimised" in stderr  # progress and warnings
    assert "fused 12 nodes" not in stderr and "no device provided" not in stderr
