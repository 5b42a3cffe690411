"""Cooperative search's fusion weights, chosen by k-fold cross-validation on a library question set.

    QUANT_RAG_HOME=<state> python benchmarks/coop_weights.py [--bench library] [--folds 5]
        [--alternatives 0.25,0.5,0.75,1] [--hypothetical 0.25,0.5,0.75,1] [--extra +FIELD=VALUE] [--out f.json]

Every grid point (the question weighs 1; an alternative and the hypothetical passage at most as
much) is an arm `coop+coop_alternative_weight=A+coop_hypothetical_weight=H` run over the
answerable questions with their blind expansions. The questions are split into folds (seeded,
stratified by family); for each fold the point with the best mean nDCG@10 on the other folds is
chosen and scored on the fold: the mean of those held-out scores estimates what the tuning is worth
on unseen questions. The weights shipped are the point best on the whole set. Never run it on the
frozen split.
"""

from __future__ import annotations

import random
import sys

import harness
import numpy as np

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from evaluation.cli import resolve_bench
from evaluation.runs import library_target, run_arms

SEED = 31
FROZEN = "library-test"


def folds(questions, k: int) -> list[set[str]]:
    """k folds of the scored question ids, each family dealt round-robin after a seeded shuffle."""
    by_family: dict[str, list[str]] = {}
    for q in questions:
        if q.gains:
            by_family.setdefault(q.family or "", []).append(q.id)
    rng, parts, at = random.Random(SEED), [set() for _ in range(k)], 0
    for family in sorted(by_family):
        ids = sorted(by_family[family])
        rng.shuffle(ids)
        for qid in ids:
            parts[at % k].add(qid)
            at += 1
    return parts


def cross_validate(per_query: dict[str, dict], parts: list[set[str]], metric: str = "ndcg@10") -> dict:
    """Per fold: the arm best on the other folds and its held-out mean; the held-out mean overall."""
    chosen, held_out = [], {}
    for part in parts:
        train = lambda arm: np.mean([v[metric] for q, v in per_query[arm].items() if q not in part])  # noqa: E731
        best = max(per_query, key=lambda arm: (train(arm), arm))
        chosen.append(best)
        held_out.update({q: per_query[best][q][metric] for q in part})
    return {"chosen": chosen, "held_out_mean": float(np.mean(list(held_out.values())))}


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--bench", default="library")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--alternatives", default="0.25,0.5,0.75,1")
    parser.add_argument("--hypothetical", default="0.25,0.5,0.75,1")
    parser.add_argument("--extra", default="", help="overrides added to every arm, e.g. +rescan_documents=3")
    args = parser.parse_args(argv)
    if args.bench == FROZEN:
        parser.error("the frozen split is measured once, never tuned on")
    arms = [
        f"coop+coop_alternative_weight={a}+coop_hypothetical_weight={h}{args.extra}"
        for a in args.alternatives.split(",")
        for h in args.hypothetical.split(",")
    ]
    target = library_target(StateLayout.from_env(), ServedConfig.from_env(), resolve_bench(args.bench))
    try:
        result = run_arms(target, arms)
    finally:
        target.close()
    per_query = result.per_query
    parts = folds(target.questions, args.folds)
    cv = cross_validate(per_query, parts)
    means = {
        arm: {m: round(float(np.mean([v[m] for v in rows.values()])), 4) for m in ("ndcg@10", "recall@10")}
        for arm, rows in per_query.items()
    }
    best = max(means, key=lambda arm: (means[arm]["ndcg@10"], arm))
    report = {"grid": means, "cv": cv, "best_on_all": best, "folds": [sorted(p) for p in parts], "per_query": per_query}
    lines = [
        f"{arm:<90}{row['ndcg@10']:.3f}  {row['recall@10']:.3f}"
        for arm, row in sorted(means.items(), key=lambda item: -item[1]["ndcg@10"])
    ]
    lines += [
        f"{args.folds}-fold choices: {cv['chosen']}",
        f"held-out nDCG@10: {cv['held_out_mean']:.3f}",
        f"best on all dev: {best}",
    ]
    harness.emit(args, report, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
