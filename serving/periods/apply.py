"""A publication period written in a question becomes a year filter (docs/DESIGN.md §6).

The grammar (serving/periods/grammar.py, words in serving/periods/words.py) reads one period expression;
serving/periods/context.py decides where an expression dates the library's documents and where it
is content ("the 2008 crisis", "returns from 1990 to 2000", "2000 observations" never do). The
clause is removed from the text that gets embedded; the publication noun itself is kept ("papers
published after 2015" → "papers"). Every bound says which words set it and whether it is strict.

Bounds (all years inclusive once applied; evaluation/questions/README.md "Period conventions"):
* strict: before / prior to / earlier than / older than / pre-Y / avant → year_max = Y-1;
  after / later than / newer than / more recent than / post-Y / après → year_min = Y+1;
* inclusive: until / up to / through / no later than / in or before / jusqu'en → year_max = Y;
  since / from / as of / no earlier than / in or after / from Y on / depuis → year_min = Y;
  "Y or earlier" → year_max = Y; "Y or later" → year_min = Y; "inclusive"/"exclusive" after a
  bound overrides its word;
* between Y1 and Y2, from Y1 to Y2, Y1–Y2, entre Y1 et Y2 → [Y1, Y2]; "published in Y",
  "a Y study", "a paper from Y", "en Y" → [Y, Y];
* approximate: around / circa / about Y → [Y-2, Y+2] (AROUND_YEARS);
  decades: the 2000s → [2000, 2009]; early → [D, D+3], mid → [D+4, D+6], late → [D+7, D+9];
* relative to the corpus's newest year N: the last / past K years → year_min = N-K+1; past decade
  → K = 10; "couple of" → 2, "few" → 3, "several" → 5; recent work, in recent years → N-4
  (RECENT_YEARS, the last five).
Several clauses intersect; clauses that contradict each other, or a union ("before 2000 or after
2010"), apply nothing.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from serving.periods.context import Clause, adjectives, attached, segments
from serving.periods.topic import after_topic, closing_keywords, of_publications
from serving.periods.words import AROUND_YEARS, RECENT_YEARS

__all__ = ["AROUND_YEARS", "RECENT_YEARS", "AppliedPeriod", "Period", "apply_period", "parse_period"]


class Period(BaseModel):
    year_min: int | None = None
    year_max: int | None = None
    clause: str | None = None  # the text removed from the question ("; "-joined when several)
    words_min: str | None = None  # the words that set year_min ("before 2012", "between 2010 and 2015")
    words_max: str | None = None  # the words that set year_max
    rules: list[str] = []  # one line per clause: its words, the bounds they became, and why
    query: str  # the question without the clause


def _tidy(question: str, spans: list[tuple[int, int]]) -> str:
    text = question
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    text = re.sub(r"\(\s*\)", "", " ".join(text.split()))
    text = re.sub(r"\s+([,.;:?!)])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    text = re.sub(r"[,;:]\s*([?.!)])", r"\1", text)
    text = text.strip(" ,;:")
    if question.rstrip().endswith("?") and text and text[-1] not in ".?!":
        text += "?"
    return text if re.search(r"\w", text) else question.strip()


def clauses(question: str, newest: int | None) -> list[Clause]:
    """Every period clause of the question, in order; a later reading never overlaps an earlier."""
    found: list[Clause] = []
    for reader in (attached, adjectives, segments, after_topic, of_publications, closing_keywords):
        for clause in reader(question, newest):
            if not any(c.start < clause.end and clause.start < c.end for c in found):
                found.append(clause)
    return sorted(found, key=lambda c: c.start)


def parse_period(question: str, newest_year: int | None) -> Period:
    """Year bounds said by the question, the words that set each, and the question without them."""
    found = clauses(question, newest_year)
    said = [s for c in found for s in c.said]
    year_min = max((s.year_min for s in said if s.year_min is not None), default=None)
    year_max = min((s.year_max for s in said if s.year_max is not None), default=None)
    lo = next(s for s in said if s.year_min == year_min) if year_min is not None else None  # the first to say it
    hi = next(s for s in said if s.year_max == year_max) if year_max is not None else None
    if not found or (year_min is not None and year_max is not None and year_min > year_max):
        return Period(query=question.strip())
    spans = [(c.start, c.end) for c in found]
    words = [" ".join(question[s:e].strip(" ,;:").split()) for s, e in spans]
    rules = [f"“{w}” → {'; '.join(s.rule for s in c.said)}" for w, c in zip(words, found)]
    return Period(
        year_min=year_min,
        year_max=year_max,
        clause="; ".join(words),
        words_min=lo.words if lo else None,
        words_max=hi.words if hi else None,
        rules=rules,
        query=_tidy(question, spans),
    )


class AppliedPeriod(BaseModel):
    year_min: int | None
    year_max: int | None
    query: str  # the text to embed
    parsed: Period  # what the question said
    source_min: str | None  # "caller" | "question" | None
    source_max: str | None
    note: str | None  # a sentence for the response, None when no bound applies


def apply_period(question: str, year_min: int | None, year_max: int | None, newest_year: int | None) -> AppliedPeriod:
    """Effective bounds: the caller's explicit bounds win, the question's fill the other side."""
    if year_min is not None and year_max is not None and year_min > year_max:
        raise ValueError(f"year_min {year_min} is after year_max {year_max}")
    parsed = parse_period(question, newest_year)
    lo = year_min if year_min is not None else parsed.year_min
    hi = year_max if year_max is not None else parsed.year_max
    if lo is not None and hi is not None and lo > hi:  # a question bound contradicts the caller's
        lo, hi = year_min, year_max
    source_min = None if lo is None else ("caller" if year_min is not None else "question")
    source_max = None if hi is None else ("caller" if year_max is not None else "question")
    parts = [
        f"{name}={value} ({source})"
        for name, value, source in (("year_min", lo, source_min), ("year_max", hi, source_max))
        if value is not None
    ]
    note = None
    if parts:
        note = "period applied: " + ", ".join(parts)
        if parsed.clause:
            note += f"; read from the question: {'; '.join(parsed.rules)}"
            ignored = [
                n
                for n, said, used in (("year_min", parsed.year_min, lo), ("year_max", parsed.year_max, hi))
                if said is not None and said != used
            ]
            if ignored:
                note += f" ({', '.join(ignored)} from the question overridden by the caller)"
    return AppliedPeriod(
        year_min=lo,
        year_max=hi,
        query=parsed.query if parsed.clause else question.strip(),
        parsed=parsed,
        source_min=source_min,
        source_max=source_max,
        note=note,
    )
