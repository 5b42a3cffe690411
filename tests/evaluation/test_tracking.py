"""MLflow round trip on a sqlite store in a temporary folder; summary, table and plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from mlflow import MlflowClient

from evaluation.plots import plot_arms
from evaluation.report import format_table, summary_json
from evaluation.stats import compare_arms
from evaluation.tracking import (
    EXPERIMENT_KIND,
    EXPERIMENT_KIND_TAG,
    PER_QUESTION_ARTIFACT,
    gain_rule,
    log_evaluation,
    metric_key,
    read_run,
    tracking_uri,
)


def _arms():
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 30)

    def make(v):
        return {
            f"q{i}": {"ndcg@10": x, "recall@10": x, "mrr": x, "miss": float(x < 0.1)}
            for i, x in enumerate(np.clip(v, 0, 1))
        }

    return {"dense": make(base), "hybrid": make(base + 0.2), "dense-placebo": make(base + rng.normal(0, 0.02, 30))}


def test_round_trip(tmp_path, capfd, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    arms = _arms()
    summary = summary_json(arms, compare_arms(arms, "ndcg@10", placebo="dense-placebo"))
    assert set(summary["arms"]["dense"]) >= {"ndcg@10", "recall@10", "mrr", "ci"}
    assert {"a", "b", "diff", "ci"} <= set(summary["pairs"][0])
    table = format_table(summary)
    assert "hybrid − dense" in table and "placebo" in table
    png = plot_arms(summary, tmp_path / "plots" / "arms.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    uri = tracking_uri(tmp_path / "mlflow")
    params = {"signature": "abc123def0", "config_hash": "cfg1", "benchmark": "library_dev"}
    metrics = {
        "hybrid.ndcg@10": summary["arms"]["hybrid"]["ndcg@10"],
        "hybrid.ndcg@10.lo": summary["arms"]["hybrid"]["ci"][0],
    }
    per_question = [{"id": q, "arm": "dense", **m} for q, m in arms["dense"].items()]
    rule = gain_rule(document_credit=True)
    run_id = log_evaluation(
        uri, "library", params, metrics, per_question, png, name="library_dev · dense · abc123de", rule=rule
    )
    assert capfd.readouterr().out == ""  # stdout belongs to the MCP protocol

    back = read_run(uri, run_id)
    assert back["params"] == params and back["status"] == "FINISHED"
    assert back["metrics"] == {metric_key(k): v for k, v in metrics.items()}
    assert back["artifacts"] == sorted([PER_QUESTION_ARTIFACT, "arms.png"])
    store = tmp_path / "mlflow" / "artifacts"
    assert len(list(store.rglob("arms.png"))) == 1 and (tmp_path / "mlflow" / "mlflow.db").exists()
    client = MlflowClient(tracking_uri=uri)
    logged = json.loads(Path(client.download_artifacts(run_id, PER_QUESTION_ARTIFACT, str(tmp_path))).read_text())
    assert logged == {"gain_rule": rule, "questions": per_question}
    assert back["name"] == "library_dev · dense · abc123de" and back["tags"] == {
        "benchmark": "library_dev",
        "config_hash": "cfg1",
    }
    assert client.get_experiment(back["experiment_id"]).tags[EXPERIMENT_KIND_TAG] == EXPERIMENT_KIND
    second = log_evaluation(uri, "library", params, metrics, [], None)  # same experiment reused
    assert read_run(uri, second)["experiment_id"] == back["experiment_id"]


def test_server_url_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5000")
    assert tracking_uri(tmp_path) == "http://127.0.0.1:5000"
    assert metric_key("recall@10") == "recall_at_10"


def test_an_evaluation_names_and_tags_its_runs(ingested_home, tmp_path, monkeypatch):
    """A person scanning the runs table sees benchmark · arm · signature, and can filter by tag."""
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from evaluation.cli import evaluate

    uri = tracking_uri(tmp_path / "mlflow")
    (tmp_path / "mlflow").mkdir()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    summary = evaluate(StateLayout(ingested_home), ServedConfig.from_env(), "library", ["bm25", "placebo"], limit=5)
    signature, benchmark = summary["corpus_signature"], summary["benchmark"]
    for arm, run_id in summary["mlflow"]["runs"].items():
        run = read_run(uri, run_id)
        assert run["name"] == f"{benchmark} · {arm} · {signature[:8]}" and benchmark.startswith("library")
        assert run["tags"]["arm"] == arm and run["tags"]["benchmark"] == benchmark
        assert run["tags"]["corpus_signature"] == signature
        assert {"config_hash", "model"} <= set(run["tags"])
        client = MlflowClient(tracking_uri=uri)
        logged = json.loads(Path(client.download_artifacts(run_id, PER_QUESTION_ARTIFACT, str(tmp_path))).read_text())
        assert "once per document" in logged["gain_rule"] and "recall 0" in logged["gain_rule"]
        assert logged["questions"] and all(row["arm"] == arm for row in logged["questions"])
