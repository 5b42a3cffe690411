"""The period parser against labelled data written without it: the project's dev and frozen test
questions (a dated question's `period` field; every other question has none)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from evaluation.datasets import load_library_questions
from serving.periods import parse_period

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
