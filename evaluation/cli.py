"""`quant-rag eval`: run arms over a benchmark, compare them paired, log every arm to MLflow.

    quant-rag eval --bench library|scifact|tatqa|PATH --arms dense,bm25,hybrid,placebo
                   [--json] [--limit-queries N] [--split S]

PATH is a BEIR folder or a library question JSONL. The library set needs an ingested, coherent
state (QUANT_RAG_HOME). A BEIR set is read from its corpus's own published state, under that state's
benchmarks/ folder (ingest.publication.benchmark); `quant-rag eval` ingests it there through the pipeline's jobs
on first use, so this module only runs queries and statistics.
Results go to stdout (a table, or JSON with --json); logs go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from evaluation.families import FAMILY_METRICS, family_pairs, family_table
from evaluation.metrics import METRIC_NAMES, PRIMARY_METRIC
from evaluation.plots import plot_arms
from evaluation.report import abstention_summary, format_table, summary_json
from evaluation.runs import PLACEBO, RunResult, StateNotReady, arm_modes, beir_target, library_target, run_arms
from evaluation.stats import compare_arms
from evaluation.tracking import gain_rule, log_evaluation, run_name, tracking_uri
from serving.answer.errors import ServingError

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED = {
    "library": REPO_ROOT / "evaluation" / "questions" / "library_dev.jsonl",
    "library-test": REPO_ROOT / "evaluation" / "questions" / "library_test.jsonl",  # frozen: measure once
    "vignettes": REPO_ROOT / "evaluation" / "questions" / "vignettes_dev.jsonl",  # Debian's R vignettes
    "vignettes-test": REPO_ROOT / "evaluation" / "questions" / "vignettes_test.jsonl",  # frozen: measure once
    "scifact": REPO_ROOT / "bench" / "scifact",
    "tatqa": REPO_ROOT / "bench" / "tatqa",
}
DEFAULT_ARMS = "dense,bm25,hybrid,placebo"
EXPERIMENT = "evaluation"


def resolve_bench(bench: str) -> Path:
    """A bundled name or a path (BEIR folder or question JSONL)."""
    path = BUNDLED.get(bench) or Path(bench)
    if not path.exists():
        raise FileNotFoundError(f"no benchmark {bench!r}: name one of {sorted(BUNDLED)} or an existing path")
    return path


def _side_facts(result: RunResult) -> dict:
    """What the ranking metrics leave out: negatives' top scores, parsed periods, timings."""
    first = next(iter(result.arms))
    questions = {q.id: q for q in result.target.questions}
    facts: dict = {"negatives": {}, "seconds": {a: round(s, 3) for a, s in result.seconds.items()}}
    negative = {q.id for q in result.target.questions if not q.gains}
    for arm in result.arms:
        rows = [r for r in result.records if r["arm"] == arm]
        tops: dict[bool, list[float]] = {True: [], False: []}  # is negative -> top scores (0 when nothing was found)
        for r in rows:
            tops[r["id"] in negative].append(r["top_score"] or 0.0)
        mean = lambda xs: float(np.mean(xs)) if xs else None  # noqa: E731
        facts["negatives"][arm] = {
            "n": len(tops[True]),
            "mean_top_score": mean(tops[True]),
            "answerable_mean_top_score": mean(tops[False]),
        }
    facts["families"] = family_means(result)
    facts["family_table"] = family_table(result.target.questions, result.per_query)
    facts["family_pairs"] = family_pairs(result.target.questions, result.per_query) if len(result.arms) > 1 else []
    facts["abstention_auroc"] = {
        arm: evidence_auroc([r for r in result.records if r["arm"] == arm], negative) for arm in result.arms
    }
    facts["abstention"] = {
        arm: abstention_summary(
            [r for r in result.records if r["arm"] == arm], negative, result.target.config.no_answer_threshold
        )
        for arm in result.arms
    }
    dated = [r for r in result.records if r["arm"] == first and questions[r["id"]].period is not None]
    facts["dated"] = {
        "n": len(dated),
        "period_matched": sum(tuple(r["period"]) == tuple(questions[r["id"]].period or ()) for r in dated),
    }
    return facts


def family_means(result: RunResult) -> dict[str, dict[str, float]]:
    """arm -> question family -> mean nDCG@10 (families of the library set; BEIR sets have none)."""
    means: dict[str, dict[str, float]] = {}
    for arm, per_question in result.per_query.items():
        by_family: dict[str, list[float]] = {}
        for q in result.target.questions:
            if q.family and q.id in per_question:
                by_family.setdefault(q.family, []).append(per_question[q.id][PRIMARY_METRIC])
        means[arm] = {f: round(float(np.mean(v)), 3) for f, v in sorted(by_family.items())}
    return means


def evidence_auroc(rows: list[dict], negative: set[str]) -> float | None:
    """P(an answerable question's evidence > a negative one's): how well the evidence score
    separates questions the library answers from those it does not (ties count one half)."""
    from scipy.stats import mannwhitneyu

    pos = [r["evidence"] for r in rows if r["id"] not in negative and r.get("evidence") is not None]
    neg = [r["evidence"] for r in rows if r["id"] in negative and r.get("evidence") is not None]
    if not pos or not neg:
        return None
    return round(float(mannwhitneyu(pos, neg).statistic) / (len(pos) * len(neg)), 3)


def summarise(result: RunResult) -> dict:
    """report.summary_json plus the benchmark, state and side facts."""
    per_query = result.per_query
    if not any(per_query.values()):
        raise StateNotReady(f"{result.target.benchmark}: no scorable question (all skipped or negative)")
    placebo = PLACEBO if PLACEBO in per_query else None
    pairs = compare_arms(per_query, PRIMARY_METRIC, placebo=placebo) if len(per_query) > 1 else []
    summary = summary_json(per_query, pairs)
    target = result.target
    summary.update(
        benchmark=target.benchmark,
        benchmark_hash=target.benchmark_hash,
        corpus_signature=target.signature,
        config_hash=target.config_hash,
        profile=target.profile,
        model=target.config.embedding_model,
        modes=result.arms,
        questions=len(target.questions),
        skipped=target.skipped,
        **_side_facts(result),
    )
    return summary


def log_runs(result: RunResult, summary: dict, mlflow_dir: Path) -> dict[str, str]:
    """One MLflow run per arm (same evaluation_id); returns arm -> run_id."""
    uri, target = tracking_uri(mlflow_dir), result.target
    evaluation_id, reference = uuid.uuid4().hex[:12], next(iter(result.arms))
    run_ids = {}
    with tempfile.TemporaryDirectory() as tmp:
        plot = plot_arms(summary, Path(tmp) / f"{target.benchmark}-arms.png")
        for arm, mode in result.arms.items():
            rows = list(result.per_query[arm].values())
            metrics = {name: float(np.mean([r[name] for r in rows])) for name in METRIC_NAMES}
            lo, hi = summary["arms"][arm]["ci"]
            metrics.update(
                {f"{PRIMARY_METRIC}.ci_lo": lo, f"{PRIMARY_METRIC}.ci_hi": hi, "seconds": result.seconds[arm]}
            )
            for family, row in summary.get("family_table", {}).get(arm, {}).items():
                metrics.update({f"family.{family}.{m}": row[m][0] for m in FAMILY_METRICS})
            for pair in (p for p in summary["pairs"] if p["a"] == arm):
                metrics.update(
                    {
                        f"diff_vs_{pair['b']}.{PRIMARY_METRIC}": pair["diff"],
                        f"diff_vs_{pair['b']}.ci_lo": pair["ci"][0],
                        f"diff_vs_{pair['b']}.ci_hi": pair["ci"][1],
                    }
                )
            params = {
                "corpus_signature": target.signature,
                "config_hash": target.config_hash,
                "model": target.config.embedding_model,
                "mode": mode,
                "arm": arm,
                "reference_arm": reference,
                "benchmark": target.benchmark,
                "benchmark_hash": target.benchmark_hash,
                "evaluation_id": evaluation_id,
                "profile": target.profile,
                "expansions_hash": target.expansions_hash or "none",
                "questions": len(rows),
            }
            records = [r for r in result.records if r["arm"] == arm]
            run_ids[arm] = log_evaluation(
                uri,
                EXPERIMENT,
                params,
                metrics,
                records,
                plot,
                name=run_name(target.benchmark, arm, target.signature),
                rule=gain_rule(document_credit=target.doc_of is not None),
            )
    return run_ids


def check_request(layout: StateLayout, bench: str, arms: list[str]) -> Path:
    """Refuse what cannot run before anything is written: an unknown benchmark, a bad arm, the
    library set without an ingested state. Returns the benchmark's path."""
    path = resolve_bench(bench)
    arm_modes(arms)  # refuse bad arm names before any indexing
    if not path.is_dir() and not layout.registered_document_ids():
        raise StateNotReady(
            f"no ingested corpus under {layout.root}: run `quant-rag ingest` "
            f"(or set QUANT_RAG_HOME) before evaluating the library"
        )
    return path


# What a request can fail with, reported as a one-line error (exit 2), never a traceback.
# This project's progress (a benchmark state's embedding, say) is shown at INFO; libraries' INFO
# (the ONNX optimiser's fusion counts, sentence-transformers' model loading) is chatter on a terminal.
OWN_LOGGERS = ("corpus", "evaluation", "ingest", "serving", "orchestration")


def configure_logging() -> None:
    """WARNING and above from everything on stderr, INFO from this project's own modules."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)


REQUEST_ERRORS = (StateNotReady, ServingError, FileNotFoundError, ValueError)


def evaluate(
    layout: StateLayout,
    config: ServedConfig,
    bench: str,
    arms: list[str],
    split: str | None = None,
    limit: int | None = None,
) -> dict:
    """Run, summarise and log one evaluation; the summary carries the MLflow run ids."""
    path = check_request(layout, bench, arms)
    if path.is_dir():
        target = beir_target(layout.ensure(), config, path, split, limit)
    else:
        target = library_target(layout, config, path, limit)
    try:
        result = run_arms(target, arms)
    finally:
        target.close()
    summary = summarise(result)
    layout.mlflow.mkdir(parents=True, exist_ok=True)
    summary["mlflow"] = {"tracking_uri": tracking_uri(layout.mlflow), "runs": log_runs(result, summary, layout.mlflow)}
    return summary


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="quant-rag eval", description=__doc__.split("\n")[0])
    parser.add_argument("--bench", required=True, help=f"{', '.join(BUNDLED)} or a path")
    parser.add_argument(
        "--arms",
        default=DEFAULT_ARMS,
        help="comma-separated arms MODE[@POOL][+FIELD=VALUE...] (modes dense, bm25, hybrid, placebo; "
        "FIELD any ranking field of ServedConfig); the first is the reference",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--limit-queries", type=int, default=None, help="first N questions only")
    parser.add_argument("--split", default=None, help="BEIR qrels split (default: test, else the only one)")
    args = parser.parse_args(argv)
    args.arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    return args


def print_summary(summary: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary, indent=1, sort_keys=False))
    else:
        print(
            f"{summary['benchmark']} · signature {summary['corpus_signature']} · config "
            f"{summary['config_hash']} · profile {summary['profile']} · {summary['questions']} questions"
            f" · skipped {summary['skipped']}"
        )
        print(format_table(summary))


def main(argv: list[str] | None = None, run: Callable[..., dict] | None = None, errors: tuple = ()) -> int:
    """`run(layout, bench, arms, split, limit)` evaluates; by default in this process. `quant-rag
    eval` passes the orchestration's, which materialises `evaluation_runs` in Dagster (and the
    `errors` its failed runs raise)."""
    args = parse_args(argv)
    configure_logging()
    layout = StateLayout.from_env()
    run = run or (lambda layout, *rest: evaluate(layout, ServedConfig.from_env(), *rest))
    try:
        check_request(layout, args.bench, args.arms)
        summary = run(layout, args.bench, args.arms, args.split, args.limit_queries)
    except (*REQUEST_ERRORS, *errors) as exc:
        print(f"quant-rag eval: {exc}", file=sys.stderr)
        return 2
    print_summary(summary, args.json)
    return 0
