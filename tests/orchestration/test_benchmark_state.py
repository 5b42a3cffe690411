"""A BEIR benchmark's corpus goes through the library's ingestion jobs into its own state (own
Dagster instance, one partition per document, published with a marker); `quant-rag eval` then only
reads it: a second evaluation runs no ingestion."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import dagster as dg
from tiny_benchmark import NAME, TOPICS, write_beir

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from ingest.parsing.beir import read_corpus
from ingest.publication.benchmark import MARKER, benchmark_layout, read_state

REPO = Path(__file__).resolve().parents[2]


def _runs(layout: StateLayout) -> list[str]:
    with dg.DagsterInstance.from_config(str(layout.dagster_home)) as instance:
        return [run.job_name for run in instance.get_runs()]


def test_the_benchmark_state_is_materialised_by_the_ingestion_jobs(benchmark_root):
    home = StateLayout(benchmark_root / "home")
    layout = benchmark_layout(home, NAME, read_corpus(benchmark_root / NAME / "corpus.jsonl"))
    assert sorted(set(_runs(layout))) == ["ingest_documents", "refresh_corpus"]
    with dg.DagsterInstance.from_config(str(layout.dagster_home)) as instance:
        partitions = instance.get_dynamic_partitions("documents")
    documents = layout.registered_document_ids()
    assert sorted(partitions) == documents and len(documents) == 10 + 4  # 10 records alone, 2 groups, 2 alone
    assert read_state(layout, ServedConfig()) is not None and (layout.root / MARKER).exists()


def test_a_benchmark_state_is_indexed_under_the_profile_it_records(tmp_path, monkeypatch):
    """The state resource a benchmark's jobs run with applies the profile its state recorded (BM25's
    k1 and stop words reach the index build); a state without a record (the library's) applies none."""
    from corpus.state.profile import record_profile
    from orchestration.resources import production_resources

    monkeypatch.delenv("QUANT_RAG_PROFILE", raising=False)
    layout = StateLayout(tmp_path / "state").ensure()
    assert production_resources(layout)["state"].config == ServedConfig.from_env()
    record_profile(layout, "tatqa")
    assert production_resources(layout)["state"].config == ServedConfig.from_env().with_profile("tatqa")
    record_profile(layout, "")
    assert production_resources(layout)["state"].config == ServedConfig.from_env()


def test_cli_eval_reads_the_published_benchmark_state_and_ingests_nothing(benchmark_root, tmp_path):
    home = tmp_path / "home"
    # the tiny state, linked (read only) into a fresh home: the eval writes its own runs and MLflow
    shutil.copytree(benchmark_root / "home" / "benchmarks", home / "benchmarks", copy_function=os.link)
    folder = write_beir(tmp_path / NAME, {"q0": TOPICS[0], "q1": TOPICS[2]}, {"q0": "d0", "q1": "d2"})
    layout = benchmark_layout(StateLayout(home), NAME, read_corpus(folder / "corpus.jsonl"))
    before = _runs(layout)
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
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "eval", "--bench", str(folder), "--arms", "bm25,placebo", "--json"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["benchmark"] == f"{NAME}-test" and summary["questions"] == 2
    assert summary["arms"]["bm25"]["ndcg@10"] == 1.0
    assert summary["corpus_signature"] == json.loads((layout.root / MARKER).read_text())["signature"]
    assert _runs(layout) == before  # nothing ingested: the published state was complete
    assert "evaluate" in _runs(StateLayout(home))
