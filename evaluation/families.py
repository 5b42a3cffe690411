"""Per-family figures of a library run: each arm's nDCG@10 and recall@10 with their CIs, and each
arm against the reference paired within the family (the cooperative arm must not lose a family
beyond its interval, the dated one included)."""

from __future__ import annotations

from evaluation.metrics import PRIMARY_METRIC
from evaluation.stats import mean_ci, paired_bootstrap_ci

FAMILY_METRICS = (PRIMARY_METRIC, "recall@10")


ALL = "all"


def _by_family(questions, per_question: dict) -> dict[str, list[str]]:
    """family -> scored question ids, with every scored question under ALL (when families exist)."""
    ids: dict[str, list[str]] = {}
    for q in questions:
        if q.family and q.id in per_question:
            ids.setdefault(q.family, []).append(q.id)
    if ids:
        ids[ALL] = [q.id for q in questions if q.id in per_question]
    return dict(sorted(ids.items()))


def family_table(questions, per_query: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """arm -> family -> {n, METRIC: [mean, lo, hi]} (percentile bootstrap of the mean)."""
    table: dict[str, dict[str, dict]] = {}
    for arm, per_question in per_query.items():
        table[arm] = {}
        for family, ids in _by_family(questions, per_question).items():
            row: dict = {"n": len(ids)}
            for metric in FAMILY_METRICS:
                row[metric] = [round(v, 3) for v in mean_ci([per_question[i][metric] for i in ids])]
            table[arm][family] = row
    return table


def family_pairs(questions, per_query: dict[str, dict]) -> list[dict]:
    """Each arm − the reference (the first arm) per family and metric, paired: {a, b, family,
    metric, diff, ci}."""
    arms = list(per_query)
    reference = arms[0]
    pairs = []
    for arm in arms[1:]:
        for family, ids in _by_family(questions, per_query[reference]).items():
            for metric in FAMILY_METRICS:
                diff, lo, hi = paired_bootstrap_ci(
                    [per_query[arm][i][metric] for i in ids], [per_query[reference][i][metric] for i in ids]
                )
                pairs.append(
                    {
                        "a": arm,
                        "b": reference,
                        "family": family,
                        "metric": metric,
                        "diff": round(diff, 3),
                        "ci": [round(lo, 3), round(hi, 3)],
                    }
                )
    return pairs


def format_families(summary: dict) -> list[str]:
    """Text lines: per arm and family, nDCG@10 and recall@10 with CIs; then the paired family
    differences against the reference."""
    table = summary.get("family_table") or {}
    if not table:
        return []
    lines = ["", f"{'by family (mean [95% CI])':<28}{'family':<10}{'n':>4}  {'nDCG@10':<24}{'recall@10':<24}"]
    for arm, families in table.items():
        for family, row in families.items():
            cells = "".join(
                f"{f'{m:.3f} [{lo:.3f}, {hi:.3f}]':<24}" for m, lo, hi in (row[metric] for metric in FAMILY_METRICS)
            )
            lines.append(f"{arm[:27]:<28}{family:<10}{row['n']:>4}  {cells}")
    pairs = summary.get("family_pairs") or []
    if pairs:
        lines += ["", f"{'a − b, paired within family':<44}{'family':<10}{'metric':<11}{'diff':>8}{'95% CI':>20}"]
        for p in pairs:
            lo, hi = p["ci"]
            lines.append(
                f"{(p['a'] + ' − ' + p['b'])[:43]:<44}{p['family']:<10}{p['metric']:<11}"
                f"{p['diff']:>+8.3f}{f'[{lo:+.3f}, {hi:+.3f}]':>20}"
            )
    return lines
