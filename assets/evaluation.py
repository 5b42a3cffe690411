"""Evaluation assets: the benchmark sets (keyed by content hash and corpus signature) and the
paired evaluation runs of the library dev set, logged to MLflow.

No `from __future__ import annotations` here: Dagster rejects string annotations on `context`.
"""

import dagster as dg

from assets.resources import StateResource
from corpus.signature import recorded_signature
from corpus.state import StateLayout, atomic_write_json
from evaluation.cli import BUNDLED, DEFAULT_ARMS, evaluate
from evaluation.datasets import load_beir, load_library_questions, questions_hash
from evaluation.metrics import PRIMARY_METRIC

LIBRARY_BENCH = "library"
HASH_CHARS = 12


def record_benchmarks(layout: StateLayout) -> dict[str, dict]:
    """Write layout.benchmarks/<name>-<content hash>-<signature>.json for every bundled set."""
    signature = recorded_signature(layout)
    records = {}
    for name, path in BUNDLED.items():
        if path.is_dir():
            beir = load_beir(path)
            record = {"kind": "beir", "split": beir.split, "content_hash": beir.content_hash,
                      "documents": len(beir.corpus), "questions": len(beir.queries)}
        else:
            record = {"kind": "library", "content_hash": questions_hash(path),
                      "questions": len(load_library_questions(path))}
        record.update(name=name, path=str(path), corpus_signature=signature)
        key = f"{name}-{record['content_hash'][:HASH_CHARS]}-{signature or 'unsigned'}"
        atomic_write_json(layout.benchmarks / f"{key}.json", record)
        records[name] = record
    return records


@dg.asset(deps=["corpus_signature"], group_name="evaluation", code_version="benchmarks-v1",
          description="Bundled benchmark sets, each recorded with its content hash and the corpus signature.")
def benchmarks(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    records = record_benchmarks(state.layout)
    return dg.MaterializeResult(metadata={
        "signature": next(iter(records.values()))["corpus_signature"] or "",
        **{f"{name}.content_hash": r["content_hash"][:HASH_CHARS] for name, r in records.items()},
        **{f"{name}.questions": r["questions"] for name, r in records.items()}})


@dg.asset(deps=["benchmarks", "vector_index", "bm25_index"], group_name="evaluation",
          code_version="evaluation-runs-v1",
          description="Library dev set under dense, bm25, hybrid and a placebo arm; paired CIs, logged to MLflow.")
def evaluation_runs(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    summary = evaluate(state.layout, state.config, LIBRARY_BENCH, DEFAULT_ARMS.split(","))
    context.log.info(f"evaluation {summary['benchmark']}: " + ", ".join(
        f"{arm} {row[PRIMARY_METRIC]:.3f}" for arm, row in summary["arms"].items()))
    return dg.MaterializeResult(metadata={
        "signature": summary["corpus_signature"], "config_hash": summary["config_hash"],
        "questions": summary["questions"], "skipped": sum(summary["skipped"].values()),
        **{f"run_id.{arm}": run for arm, run in summary["mlflow"]["runs"].items()},
        **{f"{PRIMARY_METRIC}.{arm}": row[PRIMARY_METRIC] for arm, row in summary["arms"].items()},
        **{f"diff.{p['a']}-{p['b']}": p["diff"] for p in summary["pairs"]}})
