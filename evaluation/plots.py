"""Plot of an evaluation summary: each arm's primary metric with its CI, and the paired differences."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402

from evaluation.metrics import PRIMARY_METRIC  # noqa: E402

_PAIR_COLOURS = {"placebo": "grey", "significant": "tab:green", "not a result": "tab:red"}


def _interval_panel(
    ax, labels: list[str], points: list[float], cis: list[list[float]], colours: list[str], xlabel: str
) -> None:
    """One dot per row with its interval as a horizontal error bar (first row on top)."""
    for row, (point, (lo, hi), colour) in enumerate(zip(points, cis, colours)):
        ax.errorbar(
            [point], [row], xerr=[[max(0.0, point - lo)], [max(0.0, hi - point)]], fmt="o", capsize=4, color=colour
        )
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(xlabel)
    ax.invert_yaxis()


def plot_arms(summary: dict, path: Path) -> Path:
    """Write a PNG of `summary` (shape of report.summary_json) to `path`; return the path."""
    arms = summary["arms"]
    pairs = summary.get("pairs", [])
    fig, axes = plt.subplots(
        1, 2 if pairs else 1, squeeze=False, figsize=(11 if pairs else 5.5, 0.6 * max(len(arms), len(pairs)) + 1.8)
    )
    _interval_panel(
        axes[0][0],
        list(arms),
        [row[PRIMARY_METRIC] for row in arms.values()],
        [row["ci"] for row in arms.values()],
        ["tab:blue"] * len(arms),
        f"{PRIMARY_METRIC} (95% CI)",
    )
    if pairs:
        verdicts = [
            "placebo" if p.get("placebo") else ("significant" if p.get("significant") else "not a result")
            for p in pairs
        ]
        _interval_panel(
            axes[0][1],
            [f"{p['a']} − {p['b']}" for p in pairs],
            [p["diff"] for p in pairs],
            [p["ci"] for p in pairs],
            [_PAIR_COLOURS[v] for v in verdicts],
            f"paired difference in {PRIMARY_METRIC}",
        )
        axes[0][1].axvline(0, color="black", linewidth=0.8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
