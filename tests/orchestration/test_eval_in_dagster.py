"""`quant-rag eval` runs as the Dagster job `evaluate`: `evaluation_runs` is materialised on the state's
instance with the arm table and the MLflow run ids, and every arm is still logged to MLflow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg

from corpus.state.layout import StateLayout
from evaluation.tracking import read_run, tracking_uri

REPO = Path(__file__).resolve().parents[2]


def _quant_rag(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "QUANT_RAG_HOME": str(home),
        "PYTHONPATH": str(REPO),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    for name in ("DAGSTER_HOME", "MLFLOW_TRACKING_URI"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=900
    )


def test_cli_eval_materialises_evaluation_runs_and_logs_to_mlflow(state_copy):
    layout = StateLayout(state_copy)
    done = _quant_rag(
        state_copy, "eval", "--bench", "library", "--arms", "bm25,placebo", "--limit-queries", "6", "--json"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert "Traceback" not in done.stderr and "DEBUG" not in done.stderr
    with dg.DagsterInstance.from_config(str(layout.dagster_home)) as instance:
        records = instance.fetch_materializations(dg.AssetKey("evaluation_runs"), limit=1).records
        assert len(records) == 1
        assert instance.get_run_by_id(records[0].run_id).job_name == "evaluate"
        meta = {k: v.value for k, v in records[0].asset_materialization.metadata.items()}
        assert instance.fetch_materializations(dg.AssetKey("benchmarks"), limit=1).records
    for arm in ("bm25", "placebo"):
        assert meta[f"{arm}.ndcg@10"] == out["arms"][arm]["ndcg@10"]
        assert meta[f"{arm}.mlflow_run_id"] == out["mlflow"]["runs"][arm]
        assert arm in meta["table"]
    assert meta["benchmark"] == "library_dev" and meta["signature"] == out["corpus_signature"]
    run = read_run(tracking_uri(layout.mlflow), meta["bm25.mlflow_run_id"])
    assert run["status"] == "FINISHED" and run["name"] == f"library_dev · bm25 · {out['corpus_signature'][:8]}"
    assert {"arm": "bm25", "benchmark": "library_dev", "corpus_signature": out["corpus_signature"]}.items() <= run[
        "tags"
    ].items()


def test_a_refused_eval_is_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    from cli.main import main
    from orchestration.console import CONSOLE

    monkeypatch.setattr(CONSOLE, "echo", None)  # `quant-rag eval` turns the terminal on: restored after
    monkeypatch.setattr(CONSOLE, "verbose", False)
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "empty"))
    assert main(["eval", "--bench", "library"]) == 2
    assert main(["eval", "--bench", "no-such-set"]) == 2
    err = capsys.readouterr().err
    assert "quant-rag ingest" in err and "no-such-set" in err and "Traceback" not in err
    assert not (tmp_path / "empty").exists()
