"""The abstention fit's procedure on synthetic features: the operating point holds its share of
answerable questions, and cross-validation sees a separable signal and a useless one for what
they are."""

from __future__ import annotations

import numpy as np

from evaluation.abstention_fit import OPERATING_QUANTILE, cross_validated, fit, operating_shift

THRESHOLD = 0.7


def _data(separation: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    answerable = rng.normal(0.0, 1.0, (80, 2))
    absent = rng.normal(-separation, 1.0, (40, 2))  # less evidence for an absent topic
    x = np.vstack([answerable, absent])
    negative = np.array([False] * 80 + [True] * 40)
    return x, negative, negative.copy()


def test_the_shift_puts_the_threshold_at_the_operating_quantile():
    x, negative, _ = _data(2.0)
    coefficients, intercept = fit(x, negative.astype(float))
    logits = x[~negative] @ coefficients + intercept
    shifted = logits + operating_shift(logits, THRESHOLD)
    flagged = (1 / (1 + np.exp(-shifted)) >= THRESHOLD).mean()
    assert abs(flagged - (1 - OPERATING_QUANTILE)) <= 1 / 80 + 1e-9
    assert coefficients[0] < 0 and coefficients[1] < 0  # more evidence, less abstention


def test_cross_validation_tells_a_signal_from_noise():
    strong = cross_validated(*_data(3.0), THRESHOLD)
    noise = cross_validated(*_data(0.0), THRESHOLD)
    assert strong["cv_auroc"] > 0.95 and noise["cv_auroc"] < 0.65
    absent_strong = float(strong["cv_absent_flagged"].split("/")[0])
    absent_noise = float(noise["cv_absent_flagged"].split("/")[0])
    assert absent_strong > 30 and absent_noise < 8
    for result in (strong, noise):  # held out, the operating point still flags few answerable questions
        assert float(result["cv_answerable_flagged"].split("/")[0]) <= 0.08 * 80


def test_a_pooled_fit_reports_each_question_set_apart():
    from evaluation.abstention_fit import _flags
    from serving.abstention.model import Model

    model = Model(("evidence",), (-10.0,), 5.0)  # flags evidence below about 0.42 at 0.7
    rows = [
        {"set": "library", "negative": True, "absent": True, "features": {"evidence": 0.1}},
        {"set": "library", "negative": False, "absent": False, "features": {"evidence": 0.9}},
        {"set": "vignettes", "negative": True, "absent": True, "features": {"evidence": 0.8}},
        {"set": "vignettes", "negative": False, "absent": False, "features": {"evidence": 0.2}},
    ]
    assert dict(_flags(rows, model, THRESHOLD, "library")) == {"absent_flagged": "1/1", "answerable_flagged": "0/1"}
    assert dict(_flags(rows, model, THRESHOLD, "vignettes")) == {"absent_flagged": "0/1", "answerable_flagged": "1/1"}
