"""Summary of an evaluation run: per-arm means with the primary metric's CI, paired differences."""

from __future__ import annotations

from typing import Any

import numpy as np

from evaluation.families import format_families
from evaluation.metrics import PRIMARY_METRIC
from evaluation.stats import mean_ci

SUMMARY_METRICS = (PRIMARY_METRIC, "recall@10", "mrr")
ABSENT = "absent"  # evaluation.runs.ABSENT: the absent-topic questions' family


def abstention_summary(rows: list[dict], negative: set[str], threshold: float) -> dict | None:
    """How one arm's `no_answer` probability separates negatives from answerable questions:
    AUROC (P(a negative scores above an answerable one), ties one half) and the share flagged at
    `threshold` among negatives, absent-topic questions and answerable ones. None without both."""
    from scipy.stats import mannwhitneyu

    scored = [r for r in rows if r.get("no_answer") is not None]
    neg = [r["no_answer"] for r in scored if r["id"] in negative]
    pos = [r["no_answer"] for r in scored if r["id"] not in negative]
    absent = [r["no_answer"] for r in scored if r.get("family") == ABSENT]
    if not neg or not pos:
        return None
    flagged = lambda xs: [sum(v >= threshold for v in xs), len(xs)]  # noqa: E731
    return {
        "auroc": round(float(mannwhitneyu(neg, pos).statistic) / (len(neg) * len(pos)), 3),
        "threshold": threshold,
        "negatives_flagged": flagged(neg),
        "absent_flagged": flagged(absent),
        "answerable_flagged": flagged(pos),
    }


def format_abstention(summary: dict) -> list[str]:
    """Lines of the abstention table (summary["abstention"]: arm -> abstention_summary)."""
    rows = {arm: row for arm, row in summary.get("abstention", {}).items() if row}
    if not rows:
        return []
    share = lambda k, n: f"{k}/{n} ({k / n:.0%})" if n else "—"  # noqa: E731
    lines = [
        "",
        f"{'no_answer_likely at threshold':<44}{'AUROC':>8}{'negatives':>16}{'absent topics':>16}{'answerable':>16}",
    ]
    for arm, row in rows.items():
        lines.append(
            f"{arm + ' (≥ ' + str(row['threshold']) + ')':<44}{row['auroc']:>8.3f}"
            + "".join(f"{share(*row[k]):>16}" for k in ("negatives_flagged", "absent_flagged", "answerable_flagged"))
        )
    return lines


def summary_json(arms: dict[str, dict[str, dict[str, float]]], pairs: list[dict]) -> dict:
    """{"arms": {ARM: {ndcg@10, recall@10, mrr, ci: [lo, hi] of ndcg@10, n, misses}},
    "pairs": [{a, b, diff, ci, significant, placebo}]}.

    `arms` is arm -> question -> metrics (`evaluate_run`); `pairs` comes from `compare_arms`.
    """
    summary: dict = {"arms": {}, "pairs": []}
    for arm, per_question in arms.items():
        rows = list(per_question.values())
        entry: dict[str, Any] = {m: float(np.mean([r[m] for r in rows])) for m in SUMMARY_METRICS}
        _, lo, hi = mean_ci([r[PRIMARY_METRIC] for r in rows])
        entry.update(ci=[lo, hi], n=len(rows), misses=int(sum(r["miss"] for r in rows)))
        summary["arms"][arm] = entry
    for pair in pairs:
        summary["pairs"].append({k: pair[k] for k in ("a", "b", "diff", "ci", "significant", "placebo") if k in pair})
    return summary


def format_table(summary: dict) -> str:
    """Plain-text tables of the arms and of the paired differences."""
    head = f"{'arm':<44}{'n':>5}" + "".join(f"{m:>11}" for m in SUMMARY_METRICS) + f"{'95% CI':>18}{'misses':>8}"
    lines = [head, "-" * len(head)]
    for arm, row in summary["arms"].items():
        lo, hi = row["ci"]
        lines.append(
            f"{arm:<44}{row['n']:>5}"
            + "".join(f"{row[m]:>11.3f}" for m in SUMMARY_METRICS)
            + f"{f'[{lo:.3f}, {hi:.3f}]':>18}{row['misses']:>8}"
        )
    families = sorted({f for row in summary.get("families", {}).values() for f in row})
    if families:
        # the last column: how well the best dense similarity alone separates negatives (the
        # no-answer model's own AUROC is in the abstention table below)
        lines += ["", f"{'nDCG@10 by family':<44}" + "".join(f"{f:>10}" for f in families) + f"{'evidence AUROC':>16}"]
        for arm, row in summary["families"].items():
            auroc = summary.get("abstention_auroc", {}).get(arm)
            lines.append(
                f"{arm:<44}"
                + "".join(f"{row.get(f, float('nan')):>10.3f}" for f in families)
                + (f"{auroc:>16.3f}" if auroc is not None else f"{'—':>16}")
            )
    lines += format_families(summary)
    lines += format_abstention(summary)
    if summary["pairs"]:
        lines += ["", f"{'a − b':<60}{'diff':>9}{'95% CI':>20}  verdict"]
        for pair in summary["pairs"]:
            lo, hi = pair["ci"]
            verdict = (
                "placebo" if pair.get("placebo") else ("significant" if pair.get("significant") else "not a result")
            )
            lines.append(
                f"{pair['a'] + ' − ' + pair['b']:<60}{pair['diff']:>+9.3f}{f'[{lo:+.3f}, {hi:+.3f}]':>20}  {verdict}"
            )
    return "\n".join(lines)
