"""What the second stage (serving.retrieval.rescan) recovers on a library question set.

    QUANT_RAG_HOME=<state> python benchmarks/rescan_recoveries.py [--bench library] [--arm hybrid]
        [--documents 3] [--per-document 2]

Runs ARM and ARM+rescan_documents=D+rescan_per_document=P paired. A question is a candidate for the
second stage when, under ARM, a gold passage's document is among the first three documents of the
ranking while no gold passage is in the top 10; it is recovered when the second stage puts a gold
passage in the top 10. Also counts the questions it loses (a gold passage in the top 10 before,
none after) and prints nDCG@10 per family before and after.
"""

from __future__ import annotations

import sys

import harness
import numpy as np

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from evaluation.cli import resolve_bench
from evaluation.runs import library_target, run_arms

TOP_DOCUMENTS, TOP_PASSAGES = 3, 10


def documents_in_order(ranked: list[str], doc_of: dict[str, str]) -> list[str]:
    order: list[str] = []
    for chunk in ranked:
        if doc_of.get(chunk) not in order:
            order.append(doc_of.get(chunk))
    return order


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--bench", default="library")
    parser.add_argument("--arm", default="hybrid")
    parser.add_argument("--documents", type=int, default=3)
    parser.add_argument("--per-document", type=int, default=2)
    args = parser.parse_args(argv)
    second = f"{args.arm}+rescan_documents={args.documents}+rescan_per_document={args.per_document}"
    target = library_target(StateLayout.from_env(), ServedConfig.from_env(), resolve_bench(args.bench))
    try:
        result = run_arms(target, [args.arm, second])
    finally:
        target.close()
    ranked = {(r["arm"], r["id"]): r["ranked"] for r in result.records}
    doc_of = target.doc_of or {}
    candidates, recovered, lost = [], [], []
    for q in target.questions:
        gold = {c for c, g in q.gains.items() if g > 0}
        if not gold:
            continue
        before, after = ranked[(args.arm, q.id)], ranked[(second, q.id)]
        hit_before, hit_after = bool(gold & set(before[:TOP_PASSAGES])), bool(gold & set(after[:TOP_PASSAGES]))
        leading = documents_in_order(before, doc_of)[:TOP_DOCUMENTS]
        if not hit_before and any(doc_of.get(c) in leading for c in gold):
            candidates.append(q.id)
            if hit_after:
                recovered.append(q.id)
        if hit_before and not hit_after:
            lost.append(q.id)
    lines = [
        f"{args.arm}: gold document in the first {TOP_DOCUMENTS}, no gold passage in the top {TOP_PASSAGES}: "
        f"{len(candidates)} {candidates}",
        f"recovered by {second}: {len(recovered)} {recovered}; lost: {len(lost)} {lost}",
    ]
    families = sorted({q.family for q in target.questions if q.gains and q.family})
    ndcg = {}
    for arm in (args.arm, second):
        ndcg[arm] = {
            f: round(
                float(
                    np.mean(
                        [result.per_query[arm][q.id]["ndcg@10"] for q in target.questions if q.gains and q.family == f]
                    )
                ),
                4,
            )
            for f in families
        }
        lines.append(f"{arm:<60}" + " ".join(f"{f} {m:.3f}" for f, m in ndcg[arm].items()))
    harness.emit(
        args, {"candidates": candidates, "recovered": recovered, "lost": lost, "ndcg@10_by_family": ndcg}, lines
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
