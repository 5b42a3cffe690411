"""Paired percentile bootstrap and the placebo rule (docs/DESIGN.md §8).

Arms are compared on the same questions: the per-question differences are resampled together
(`scipy.stats.bootstrap(paired=True, method='percentile')`), with a fixed seed so a rerun gives
the same interval. A placebo arm (same configuration under another name) measures the noise
floor: a difference whose interval overlaps the placebo's is not a result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import stats

N_RESAMPLES = 4000
SEED = 20261130
LEVEL = 0.95


def _interval(
    data: tuple[np.ndarray, ...], statistic, spread: float, n_resamples: int, seed: int, level: float, paired: bool
) -> tuple[float, float]:
    if spread == 0:
        value = float(statistic(*data))  # every resample gives the same value
        return value, value
    result = stats.bootstrap(
        data,
        statistic,
        n_resamples=n_resamples,
        paired=paired,
        vectorized=True,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def mean_ci(x, n_resamples: int = N_RESAMPLES, seed: int = SEED, level: float = LEVEL) -> tuple[float, float, float]:
    """(mean, lo, hi): percentile bootstrap interval of the mean of `x`."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        raise ValueError("mean_ci needs at least one value")
    lo, hi = _interval((x,), lambda v, axis=-1: np.mean(v, axis=axis), np.ptp(x), n_resamples, seed, level, False)
    return float(x.mean()), lo, hi


def paired_bootstrap_ci(
    a, b, n_resamples: int = N_RESAMPLES, seed: int = SEED, level: float = LEVEL
) -> tuple[float, float, float]:
    """(mean of a − b, lo, hi): paired percentile bootstrap of the mean difference."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired samples must be two equal, non-empty 1-d arrays: {a.shape} vs {b.shape}")
    lo, hi = _interval(
        (a, b), lambda u, v, axis=-1: np.mean(u - v, axis=axis), np.ptp(a - b), n_resamples, seed, level, True
    )
    return float(np.mean(a - b)), lo, hi


def _values(per_question: Mapping, metric: str, questions: list[str]) -> np.ndarray:
    row = lambda v: v[metric] if isinstance(v, Mapping) else v  # noqa: E731
    return np.array([row(per_question[q]) for q in questions], dtype=float)


def compare_arms(per_query: dict[str, dict], metric: str, placebo: str | None = None, **bootstrap) -> list[dict]:
    """Each arm against the reference (the first arm), paired on the same questions.

    `per_query` is arm -> question -> {metric: value} (what `evaluate_run` returns) or
    arm -> question -> value. Returns one dict per pair: a (arm), b (reference), diff (mean a − b),
    ci [lo, hi], placebo (whether a is the placebo) and significant: the interval excludes 0 and,
    when a placebo arm is named, does not overlap the placebo pair's interval.
    """
    arms = list(per_query)
    if len(arms) < 2:
        raise ValueError("compare_arms needs at least two arms")
    if placebo is not None and placebo not in arms[1:]:
        raise ValueError(f"placebo arm {placebo!r} is not among the compared arms {arms[1:]}")
    reference = arms[0]
    questions = sorted(per_query[reference])
    for arm in arms[1:]:
        if set(per_query[arm]) != set(questions):
            raise ValueError(f"arms {reference!r} and {arm!r} were not run on the same questions")
    base = _values(per_query[reference], metric, questions)
    pairs: list[dict[str, Any]] = []
    for arm in arms[1:]:
        diff, lo, hi = paired_bootstrap_ci(_values(per_query[arm], metric, questions), base, **bootstrap)
        pairs.append(
            {
                "a": arm,
                "b": reference,
                "metric": metric,
                "n": len(questions),
                "diff": diff,
                "ci": [lo, hi],
                "placebo": arm == placebo,
                "significant": lo > 0 or hi < 0,
            }
        )
    floor = next((p["ci"] for p in pairs if p["placebo"]), None)
    if floor is not None:
        for pair in pairs:
            if not pair["placebo"]:
                overlaps = pair["ci"][0] <= floor[1] and floor[0] <= pair["ci"][1]
                pair["significant"] = pair["significant"] and not overlaps
    return pairs
