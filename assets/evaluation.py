"""Evaluation assets: the benchmark sets (keyed by content hash and corpus signature) and the
paired evaluation runs of the library dev set, logged to MLflow.

No `from __future__ import annotations` here: Dagster rejects string annotations on `context`.
"""

import dagster as dg

from assets.resources import StateResource
from corpus.state.layout import StateLayout, atomic_write_json
from corpus.state.signature import recorded_signature
from evaluation.cli import BUNDLED, DEFAULT_ARMS, REQUEST_ERRORS, evaluate, resolve_bench
from evaluation.cli import main as evaluation_main
from evaluation.datasets import load_beir, load_library_questions, questions_hash
from evaluation.metrics import PRIMARY_METRIC
from evaluation.report import format_table
from ingest.parsing.beir import read_corpus

LIBRARY_BENCH = "library"
HASH_CHARS = 12


def record_benchmarks(layout: StateLayout) -> dict[str, dict]:
    """Write layout.benchmarks/<name>-<content hash>-<signature>.json for every bundled set."""
    signature = recorded_signature(layout)
    records = {}
    for name, path in BUNDLED.items():
        if path.is_dir():
            beir = load_beir(path)
            content_hash = beir.content_hash
            record = {
                "kind": "beir",
                "split": beir.split,
                "content_hash": content_hash,
                "documents": len(beir.corpus),
                "questions": len(beir.queries),
            }
        else:
            content_hash = questions_hash(path)
            record = {"kind": "library", "content_hash": content_hash, "questions": len(load_library_questions(path))}
        record.update(name=name, path=str(path), corpus_signature=signature)
        key = f"{name}-{content_hash[:HASH_CHARS]}-{signature or 'unsigned'}"
        atomic_write_json(layout.benchmarks / f"{key}.json", record)
        records[name] = record
    return records


@dg.asset(
    deps=["corpus_signature"],
    group_name="evaluation",
    code_version="benchmarks-v1",
    description="Bundled benchmark sets, each recorded with its content hash and the corpus signature.",
)
def benchmarks(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    records = record_benchmarks(state.layout)
    return dg.MaterializeResult(
        metadata={
            "signature": next(iter(records.values()))["corpus_signature"] or "",
            **{f"{name}.content_hash": r["content_hash"][:HASH_CHARS] for name, r in records.items()},
            **{f"{name}.questions": r["questions"] for name, r in records.items()},
        }
    )


class EvaluationRequest(dg.Config):
    """What to evaluate: the nightly schedule and the UI use the defaults, `quant-rag eval` its flags."""

    bench: str = LIBRARY_BENCH
    arms: list[str] = DEFAULT_ARMS.split(",")
    split: str | None = None
    limit_queries: int | None = None


def evaluation_metadata(summary: dict) -> dict:
    """The arm table (as `quant-rag eval` prints it), each arm's figures and MLflow run id, the paired
    differences, and the whole summary (the CLI prints it from here)."""
    metadata = {
        "benchmark": summary["benchmark"],
        "signature": summary["corpus_signature"],
        "config_hash": summary["config_hash"],
        "questions": summary["questions"],
        "skipped": sum(summary["skipped"].values()),
        "table": dg.MetadataValue.md(f"```\n{format_table(summary)}\n```"),
        "summary": dg.MetadataValue.json(summary),
    }
    for arm, row in summary["arms"].items():
        metadata.update({f"{arm}.{name}": row[name] for name in ARM_FIGURES if name in row})
        metadata[f"{arm}.ci"] = f"[{row['ci'][0]:.3f}, {row['ci'][1]:.3f}]"
        metadata[f"{arm}.mlflow_run_id"] = summary["mlflow"]["runs"][arm]
    metadata.update({f"diff.{p['a']}-{p['b']}": p["diff"] for p in summary["pairs"]})
    return metadata


ARM_FIGURES = (PRIMARY_METRIC, "recall@10", "mrr")


@dg.asset(
    deps=["benchmarks", "vector_index", "bm25_index"],
    group_name="evaluation",
    code_version="evaluation-runs-v2",
    description="Paired evaluation of retrieval arms on a benchmark (default: the library dev set under "
    "dense, bm25, hybrid and a placebo arm), bootstrap CIs, every arm logged to MLflow.",
)
def evaluation_runs(
    context: dg.AssetExecutionContext, state: StateResource, config: EvaluationRequest
) -> dg.MaterializeResult:
    try:
        summary = evaluate(state.layout, state.config, config.bench, config.arms, config.split, config.limit_queries)
    except REQUEST_ERRORS as exc:  # a request error, not a crash: its message is the run's failure
        raise dg.Failure(description=str(exc), allow_retries=False) from exc
    context.log.info(
        f"evaluation {summary['benchmark']}: "
        + ", ".join(f"{arm} {row[PRIMARY_METRIC]:.3f}" for arm, row in summary["arms"].items())
    )
    return dg.MaterializeResult(metadata=evaluation_metadata(summary))


def benchmark_corpus(bench: str) -> tuple[str, dict[str, dict]] | None:
    """(name, corpus) of the BEIR set `bench` names (bundled name or folder); None for a library
    question set. What the runner ingests into the benchmark's own state before evaluating it."""
    path = resolve_bench(bench)
    return (path.name, read_corpus(path / "corpus.jsonl")) if path.is_dir() else None


def eval_command(argv: list[str], run, errors: tuple) -> int:
    """`quant-rag eval`'s command line (evaluation's) with the orchestration's `run`: this module is
    where the evaluation package meets Dagster, so orchestration needs no import of it."""
    return evaluation_main(argv, run=run, errors=errors)
