"""Wall time of a full evaluation: a BEIR set's state through the ingestion jobs (first run) and the arms.

    QUANT_RAG_HOME=<state> python benchmarks/eval_suite.py --bench scifact --arms bm25,dense [--json]
    QUANT_RAG_HOME=<ingested state> python benchmarks/eval_suite.py --bench library

Runs what `quant-rag eval` runs, timing each phase: the benchmark's state ingested by the
pipeline's jobs or reused (orchestration.benchmark.prepare_benchmark), then `evaluation.cli.evaluate`:
retrieval per arm (from the run itself), bootstrap + MLflow logging. Set
OMP_NUM_THREADS to bound the threads the embedding model uses.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from assets.evaluation import benchmark_corpus  # noqa: E402
from corpus.config import ServedConfig  # noqa: E402
from corpus.state.layout import StateLayout  # noqa: E402
from evaluation.cli import DEFAULT_ARMS, evaluate, resolve_bench  # noqa: E402
from evaluation.report import format_table  # noqa: E402
from orchestration.benchmark import prepare_benchmark  # noqa: E402


def timed_evaluation(bench: str, arms: list[str], split: str | None, limit: int | None) -> dict:
    layout, config = StateLayout.from_env(), ServedConfig.from_env()
    start = time.perf_counter()
    corpus = benchmark_corpus(bench)
    if corpus is not None:
        prepare_benchmark(layout.ensure(), *corpus)
    state_s = time.perf_counter() - start
    summary = evaluate(layout, config, bench, arms, split, limit)
    total = time.perf_counter() - start
    retrieval = sum(summary["seconds"].values())
    questions = summary["questions"]
    return {"bench": bench, "path": str(resolve_bench(bench)), "arms": arms, "questions": questions,
            "total_s": round(total, 1), "retrieval_s": {a: round(s, 1) for a, s in summary["seconds"].items()},
            "ms_per_question_per_arm": round(1000 * retrieval / max(1, questions * len(arms)), 1),
            "benchmark_state_s": round(state_s, 1), "setup_and_logging_s": round(total - state_s - retrieval, 1),
            "summary": summary}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default="library")
    parser.add_argument("--arms", default=DEFAULT_ARMS)
    parser.add_argument("--split", default=None)
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = timed_evaluation(args.bench, args.arms.split(","), args.split, args.limit_queries)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{result['bench']}: {result['questions']} questions × {len(result['arms'])} arms in "
              f"{result['total_s']} s (retrieval {result['retrieval_s']}, "
              f"{result['ms_per_question_per_arm']} ms/question/arm; setup+logging "
              f"{result['setup_and_logging_s']} s)")
        print(format_table(result["summary"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
