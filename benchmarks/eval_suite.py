"""Wall time of a full evaluation: a BEIR set's state through the ingestion jobs (first run) and the arms.

    QUANT_RAG_HOME=<state> python benchmarks/eval_suite.py --bench scifact --arms bm25,dense [--json]
    QUANT_RAG_HOME=<ingested state> python benchmarks/eval_suite.py --bench library

Runs what `quant-rag eval` runs, timing each phase: the benchmark's state ingested by the
pipeline's jobs or reused (orchestration.benchmark.prepare_benchmark), then `evaluation.cli.evaluate`:
retrieval per arm (from the run itself), bootstrap + MLflow logging. Set
OMP_NUM_THREADS to bound the threads the embedding model uses.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import harness  # noqa: E402

from assets.evaluation import benchmark_corpus  # noqa: E402
from corpus.config import ServedConfig  # noqa: E402
from corpus.state.layout import StateLayout  # noqa: E402
from evaluation.cli import DEFAULT_ARMS, evaluate, resolve_bench  # noqa: E402
from evaluation.report import format_table  # noqa: E402
from orchestration.benchmark import prepare_benchmark  # noqa: E402


def prepared(layout: StateLayout, bench: str) -> None:
    """The benchmark's published state, built by the ingestion jobs when missing (BEIR sets only)."""
    corpus = benchmark_corpus(bench)
    if corpus is not None:
        prepare_benchmark(layout.ensure(), *corpus)


def timed_evaluation(bench: str, arms: list[str], split: str | None, limit: int | None) -> dict:
    layout, config = StateLayout.from_env(), ServedConfig.from_env()
    _, state_s = harness.timed(prepared, layout, bench)
    summary, evaluation_s = harness.timed(evaluate, layout, config, bench, arms, split, limit)
    retrieval = sum(summary["seconds"].values())
    questions = summary["questions"]
    return {
        "bench": bench,
        "path": str(resolve_bench(bench)),
        "arms": arms,
        "questions": questions,
        "total_s": round(state_s + evaluation_s, 1),
        "retrieval_s": {a: round(s, 1) for a, s in summary["seconds"].items()},
        "ms_per_question_per_arm": round(1000 * retrieval / max(1, questions * len(arms)), 1),
        "benchmark_state_s": round(state_s, 1),
        "setup_and_logging_s": round(evaluation_s - retrieval, 1),
        "summary": summary,
    }


def main() -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--bench", default="library")
    parser.add_argument("--arms", default=DEFAULT_ARMS)
    parser.add_argument("--split", default=None)
    parser.add_argument("--limit-queries", type=int, default=None)
    args = parser.parse_args()
    meter = harness.StealMeter()
    result = timed_evaluation(args.bench, args.arms.split(","), args.split, args.limit_queries)
    lines = [
        f"{result['bench']}: {result['questions']} questions × {len(result['arms'])} arms in "
        f"{result['total_s']} s (benchmark state {result['benchmark_state_s']} s, retrieval "
        f"{result['retrieval_s']}, {result['ms_per_question_per_arm']} ms/question/arm; setup+logging "
        f"{result['setup_and_logging_s']} s)",
        format_table(result["summary"]),
    ]
    harness.emit(args, result, lines, meter=meter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
