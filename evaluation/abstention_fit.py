"""Fit the abstention models (serving.abstention.model) on the library dev set: answerable questions
against the dev negatives and the absent-topic dev questions (library_absent_dev.jsonl).

    QUANT_RAG_HOME=... python -m evaluation.abstention_fit [--split dev|test] [--sets library,vignettes]
                                                           [--expansions FILE] [--cv]

`--split dev` (the default) fits each model by L2-regularised logistic regression and prints its
coefficients, AUROC and flag rates at the configured threshold (`no_answer_threshold`), plus the
threshold that flags the most negatives with at most MAX_FALSE_ABSTENTION of answerable ones;
`--split test` only measures the shipped models on the frozen questions (measure once). `--cv`
also estimates the fitting procedure itself on dev: repeated stratified 5-fold cross-validation,
each fold fitted and its operating point placed on the other four, flag rates on the held-out fold. The
cooperative model needs a hypothetical passage per question: the absent-topic files carry theirs;
the others' are read from the blind expansions beside the questions, or `--expansions FILE`.
`--sets` names the question sets pooled into one fit (`library`, and `vignettes` on a state that
holds Debian's R vignettes too): a model fitted across corpora, reported per set as well.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from evaluation.datasets import expansions_file
from evaluation.runs import ABSENT, absent_companion, library_target, retrieve
from serving.abstention import model as abstention
from serving.abstention import terms
from serving.retrieval.first_stage import dense
from serving.retrieval.input_encoding import hypothetical_vector

QUESTIONS = Path(__file__).resolve().parent / "questions"
L2 = 0.1  # ridge on standardised features: a few dozen negatives do not pin five free weights
MAX_FALSE_ABSTENTION = 0.05
# The shared threshold sits at this quantile of the dev answerable questions' probabilities, the one
# whose held-out false abstention stayed near MAX_FALSE_ABSTENTION under `--cv` (docs/measurements.md,
# "Cooperative search in int8, abstention from semantic coverage").
OPERATING_QUANTILE = 0.97
CV_REPEATS = 20


def hypotheticals(paths: list[Path]) -> dict[str, str]:
    """Question id -> hypothetical passage, from JSONL files that carry one."""
    out = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("hypothetical_passage"):
                out[row["id"]] = row["hypothetical_passage"]
    return out


def collect(split: str, mode: str, expansions: Path | None, question_set: str = "library") -> list[dict]:
    """One row per question: id, set, negative, absent, features (with the hypothetical's when known)."""
    path = QUESTIONS / f"{question_set}_{split}.jsonl"
    expansions = expansions or expansions_file(path)  # the blind ones beside the questions
    written = hypotheticals([p for p in (absent_companion(path), expansions) if p and p.exists()])
    target = library_target(StateLayout.from_env(), ServedConfig.from_env(), path)
    try:
        engine, rows = target.engine, []
        for q in target.questions:
            result = retrieve(engine, q.text, mode)
            found, searched, scope = result.found, result.searched, result.scope
            hypothetical = None
            if q.id in written and found.dense_scores:
                allowed, passage = engine.catalogue.documents_in_scope(scope), written[q.id]
                vector = hypothetical_vector(engine.parts, passage)  # as the server searches it
                near = dense(engine.parts, passage, abstention.DENSE_K, allowed, scope, vector)
                hypothetical = (written[q.id], [c.score for c in near])
            statistics = terms.term_statistics(engine.parts.bm25)
            values = abstention.features(
                searched,
                engine.config.analyzer,
                statistics,
                abstention.passage_texts(engine.parts.reader, [h.chunk_id for h in found.hits]),
                list(found.dense_scores) or None,
                hypothetical,
                abstention.semantic_of(engine.parts, searched, found, statistics),
            )
            row = {"id": q.id, "set": question_set, "negative": not q.gains, "absent": q.family == ABSENT}
            rows.append(row | {"features": values})
        return rows
    finally:
        target.close()


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression with an L2 penalty on standardised inputs; weights in raw units."""
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / std

    def loss(w):
        logits = z @ w[1:] + w[0]
        return float(np.sum(np.logaddexp(0, logits) - y * logits) + L2 * np.sum(w[1:] ** 2))

    w = minimize(loss, np.zeros(x.shape[1] + 1), method="L-BFGS-B").x
    coefficients = w[1:] / std
    return coefficients, float(w[0] - np.sum(coefficients * mean))


def cross_validated(x: np.ndarray, negative: np.ndarray, absent: np.ndarray, threshold: float) -> dict:
    """Mean held-out AUROC and flag counts of fit + operating_shift over CV_REPEATS x 5 folds."""
    rng = np.random.default_rng(0)
    flagged_absent, flagged_answerable, aurocs = 0, 0, []
    for _ in range(CV_REPEATS):
        fold = np.empty(len(negative), dtype=int)
        for label in (False, True):  # stratified: each fold keeps the share of negatives
            members = rng.permutation(np.flatnonzero(negative == label))
            fold[members] = np.arange(len(members)) % 5
        logits = np.empty(len(negative))
        for k in range(5):
            train, test = fold != k, fold == k
            coefficients, intercept = fit(x[train], negative[train].astype(float))
            answerable = x[train][~negative[train]] @ coefficients + intercept
            logits[test] = x[test] @ coefficients + intercept + operating_shift(answerable, threshold)
        flags = logits >= np.log(threshold / (1 - threshold))
        flagged_absent += int((flags & absent).sum())
        flagged_answerable += int((flags & ~negative).sum())
        aurocs.append(auroc(list(logits[negative]), list(logits[~negative])))
    return {
        "cv_auroc": round(float(np.mean(aurocs)), 3),
        "cv_absent_flagged": f"{flagged_absent / CV_REPEATS:.1f}/{int(absent.sum())}",
        "cv_answerable_flagged": f"{flagged_answerable / CV_REPEATS:.1f}/{int((~negative).sum())}",
    }


def operating_shift(answerable_logits: np.ndarray, threshold: float) -> float:
    """What to add to a model's intercept so that `threshold` falls at OPERATING_QUANTILE of the
    answerable questions' probabilities (a logistic fitted on a few dozen negatives puts its
    0.5 anywhere; the flag must hold its false-abstention rate)."""
    at = float(np.quantile(answerable_logits, OPERATING_QUANTILE))
    return float(np.log(threshold / (1 - threshold)) - at)


def auroc(scores_negative: list[float], scores_answerable: list[float]) -> float:
    """P(a negative scores above an answerable question), ties one half."""
    from scipy.stats import mannwhitneyu

    return float(mannwhitneyu(scores_negative, scores_answerable).statistic) / (
        len(scores_negative) * len(scores_answerable)
    )


def rates(rows: list[dict], model: abstention.Model, threshold: float) -> dict:
    """AUROC and flag rates of `model` at `threshold` over the rows that have its features."""
    rows = [r for r in rows if all(f in r["features"] for f in model.features)]
    p = [model.probability(r["features"]) for r in rows]
    neg = [v for v, r in zip(p, rows) if r["negative"]]
    pos = [v for v, r in zip(p, rows) if not r["negative"]]
    absent = [v for v, r in zip(p, rows) if r["absent"]]
    allowed = int(MAX_FALSE_ABSTENTION * len(pos))
    best = sorted(pos)[-allowed - 1] + 1e-6 if len(pos) > allowed else 0.0
    count = lambda xs, t: f"{sum(v >= t for v in xs)}/{len(xs)}"  # noqa: E731
    return {
        "auroc": round(auroc(neg, pos), 3),
        "threshold": threshold,
        "negatives_flagged": count(neg, threshold),
        "absent_flagged": count(absent, threshold),
        "answerable_flagged": count(pos, threshold),
        f"best_threshold_at_{MAX_FALSE_ABSTENTION}": round(best, 4),
        "absent_flagged_there": count(absent, best),
        "answerable_flagged_there": count(pos, best),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--expansions", type=Path, default=None)
    parser.add_argument("--cv", action="store_true", help="also cross-validate the procedure on dev")
    parser.add_argument("--sets", default="library", help="question sets pooled: library[,vignettes]")
    args = parser.parse_args(argv)
    sets = args.sets.split(",")
    rows = [row for name in sets for row in collect(args.split, args.mode, args.expansions, name)]
    threshold = ServedConfig.from_env().no_answer_threshold
    out = {}
    for name, model in abstention.MODELS.items():
        if args.split == "dev":
            have = [r for r in rows if all(f in r["features"] for f in model.features)]
            x = np.array([[r["features"][f] for f in model.features] for r in have])
            negative = np.array([r["negative"] for r in have], dtype=bool)
            coefficients, intercept = fit(x, negative.astype(float))
            intercept += operating_shift(x[~negative] @ coefficients + intercept, threshold)
            model = abstention.Model(
                model.features, tuple(round(float(c), 3) for c in coefficients), round(intercept, 3)
            )
            out[name + " (fitted now)"] = {"coefficients": model.coefficients, "intercept": model.intercept}
            if args.cv:
                absent = np.array([r["absent"] for r in have], dtype=bool)
                out[name + " (fitted now)"] |= cross_validated(x, negative, absent, threshold)
        out[name] = rates(rows, model, threshold)
        for each in sets if len(sets) > 1 else []:
            out[name] |= {f"{each}: {key}": value for key, value in _flags(rows, model, threshold, each)}
    print(json.dumps(out, indent=1))


def _flags(rows: list[dict], model: abstention.Model, threshold: float, question_set: str):
    """(what, count) of `model`'s flags on one question set of a pooled fit."""
    mine = rates([r for r in rows if r["set"] == question_set], model, threshold)
    return [(key, mine[key]) for key in ("absent_flagged", "answerable_flagged")]


if __name__ == "__main__":
    main()
