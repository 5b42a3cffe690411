"""The period parser against labelled data written without it: the project's dev and frozen test
questions (a dated question's `period` field; every other question has none)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evaluation.datasets import load_library_questions
from serving.periods.apply import parse_period

ROOT = Path(__file__).resolve().parents[2]
SPLITS = ("library_dev.jsonl", "library_test.jsonl")
QUESTIONS = [q for split in SPLITS for q in load_library_questions(ROOT / "evaluation" / "questions" / split)]


def _newest_year() -> int:
    """The newest publication year of the bundled library (the conventions' `newest`)."""
    with (ROOT / "library" / "manifest.csv").open(encoding="utf-8", newline="") as handle:
        return max(int(row["year"]) for row in csv.DictReader(handle) if row["year"])


NEWEST = _newest_year()


def test_the_labelled_sets_hold_dated_questions():
    assert sum(q.period is not None for q in QUESTIONS) >= 20


@pytest.mark.parametrize("question", QUESTIONS, ids=[q.id for q in QUESTIONS])
def test_each_question_gets_exactly_its_labelled_period(question):
    period = parse_period(question.question, NEWEST)
    expected = tuple(question.period) if question.period is not None else (None, None)
    assert (period.year_min, period.year_max) == expected, period.rules


# The blind probe set: phrasings and non-year sentences written from the stated rules by someone
# who never saw the parser. A year_max at the corpus's newest year is the open bound (no document
# is newer; the conventions write "in the last N years" as [newest-N+1, null]).
PROBES = [
    json.loads(line)
    for line in (ROOT / "tests" / "serving" / "data" / "period_probes_blind.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
    if line.strip()
]
_RECENT = "wrong under the stated rules: 'recent work/papers' is [newest-4, null] (Period conventions; dev d18)"
EXCLUDED = {
    "Empirical CAPM tests 1970-1980": "ambiguous: a bare range after 'tests' is as often the tests' sample period",
    "recent papers on CVaR portfolio optimisation": _RECENT,
    "What is the latest research on limit order books?": _RECENT,
    "Show me recent work on backtest overfitting": _RECENT,
    "newest studies on the Sharpe ratio": _RECENT,
    "articles récents sur le ratio de Sharpe": _RECENT,
}


def _open_ended(year_min: int | None, year_max: int | None) -> tuple[int | None, int | None]:
    return year_min, (None if year_max == NEWEST else year_max)


def test_the_probe_set_is_large_and_its_exclusions_are_its_own():
    assert len(PROBES) >= 250 and set(EXCLUDED) <= {p["text"] for p in PROBES}
    assert sum(p["year_min"] is None and p["year_max"] is None for p in PROBES) >= 80


@pytest.mark.parametrize("probe", [p for p in PROBES if p["text"] not in EXCLUDED], ids=lambda p: p["text"][:60])
def test_every_blind_probe_gets_its_bounds(probe):
    period = parse_period(probe["text"], NEWEST)
    expected = _open_ended(probe["year_min"], probe["year_max"])
    assert _open_ended(period.year_min, period.year_max) == expected, (probe["kind"], period.rules)
