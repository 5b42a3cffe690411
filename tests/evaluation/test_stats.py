"""Paired bootstrap: no difference contains 0, a real one excludes it; the placebo rule."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.stats import compare_arms, mean_ci, paired_bootstrap_ci

RNG = np.random.default_rng(0)
BASE = RNG.uniform(0.2, 0.8, size=80)


def test_identical_arms_contain_zero():
    diff, lo, hi = paired_bootstrap_ci(BASE, BASE.copy())
    assert diff == 0 and lo <= 0 <= hi


def test_noisy_equal_arms_contain_zero():
    other = BASE + RNG.normal(0, 0.05, size=BASE.size)
    other -= other.mean() - BASE.mean()  # same mean, different per question
    _, lo, hi = paired_bootstrap_ci(other, BASE)
    assert lo < 0 < hi


def test_clearly_better_arm_excludes_zero():
    better = BASE + 0.1 + RNG.normal(0, 0.05, size=BASE.size)
    diff, lo, hi = paired_bootstrap_ci(better, BASE)
    assert 0 < lo < diff < hi
    assert diff == pytest.approx(np.mean(better - BASE))


def test_seed_makes_the_interval_reproducible_and_level_widens_it():
    other = BASE + RNG.normal(0.02, 0.1, size=BASE.size)
    assert paired_bootstrap_ci(other, BASE) == paired_bootstrap_ci(other, BASE)
    _, lo95, hi95 = paired_bootstrap_ci(other, BASE)
    _, lo99, hi99 = paired_bootstrap_ci(other, BASE, level=0.99)
    assert lo99 < lo95 and hi95 < hi99


def test_mean_ci_brackets_the_mean():
    mean, lo, hi = mean_ci(BASE)
    assert lo < mean < hi and mean == pytest.approx(BASE.mean())
    with pytest.raises(ValueError):
        paired_bootstrap_ci(BASE, BASE[:-1])


def _arm(values):
    return {f"q{i}": {"ndcg@10": float(v)} for i, v in enumerate(values)}


def test_placebo_interval_overlap_cancels_a_result():
    noise = RNG.normal(0, 0.25, size=BASE.size)
    arms = {
        "ref": _arm(BASE),
        "small": _arm(BASE + 0.03 + RNG.normal(0, 0.02, size=BASE.size)),
        "big": _arm(BASE + 0.4 + RNG.normal(0, 0.02, size=BASE.size)),
        "placebo": _arm(BASE + noise - noise.mean() + 0.02),
    }
    without = {p["a"]: p for p in compare_arms(arms, "ndcg@10", placebo=None)}
    assert without["small"]["significant"] and without["big"]["significant"]
    pairs = {p["a"]: p for p in compare_arms(arms, "ndcg@10", placebo="placebo")}
    floor = pairs["placebo"]["ci"]
    assert pairs["placebo"]["placebo"] and floor[0] < 0.03 < floor[1]
    assert not pairs["small"]["significant"]  # excludes 0, but inside the noise floor
    assert pairs["big"]["significant"] and pairs["big"]["b"] == "ref"


def test_compare_arms_refuses_unpaired_questions():
    with pytest.raises(ValueError):
        compare_arms({"a": _arm(BASE), "b": _arm(BASE[:-1])}, "ndcg@10", None)
    with pytest.raises(ValueError):
        compare_arms({"a": _arm(BASE), "b": _arm(BASE)}, "ndcg@10", placebo="a")
