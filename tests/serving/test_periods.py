"""Period parsing: publication periods become year bounds; content years never do."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from serving.periods.apply import apply_period, parse_period
from serving.sessions.store import SessionStore
from serving.toolkit.filters import Filters, resolve_filters

NEWEST = 2024

# question, year_min, year_max, clause removed, query left to embed
PERIODS = [
    (
        "What do papers published after 2015 say about volatility?",
        2016,
        None,
        "published after 2015",
        "What do papers say about volatility?",
    ),
    (
        "Summarise the literature before 2010 on GARCH models.",
        None,
        2009,
        "before 2010",
        "Summarise the literature on GARCH models.",
    ),
    ("studies until 2010 about covariance shrinkage", None, 2010, "until 2010", "studies about covariance shrinkage"),
    ("literature up to 2012 on robust covariance", None, 2012, "up to 2012", "literature on robust covariance"),
    ("works prior to 2000 on option pricing", None, 1999, "prior to 2000", "works on option pricing"),
    (
        "research since 2015: what is new in portfolio optimisation?",
        2015,
        None,
        "since 2015",
        "research: what is new in portfolio optimisation?",
    ),
    ("research from 2015 onwards on market impact", 2015, None, "from 2015 onwards", "research on market impact"),
    (
        "Using only papers published between 2010 and 2015, what is the Sharpe ratio bias?",
        2010,
        2015,
        "published between 2010 and 2015",
        "Using only papers, what is the Sharpe ratio bias?",
    ),
    ("papers from 2010 to 2015 on cointegration", 2010, 2015, "from 2010 to 2015", "papers on cointegration"),
    ("articles 2015–2010 on cointegration", 2010, 2015, "2015–2010", "articles on cointegration"),
    (
        "According to sources published in 2022 or earlier, how is VaR backtested?",
        None,
        2022,
        "published in 2022 or earlier",
        "According to sources, how is VaR backtested?",
    ),
    (
        "papers published in 2015 or later about higher moments",
        2015,
        None,
        "published in 2015 or later",
        "papers about higher moments",
    ),
    (
        "What does pre-2008 literature say about liquidity?",
        None,
        2007,
        "pre-2008",
        "What does literature say about liquidity?",
    ),
    ("post-2010 empirical studies on momentum", 2011, None, "post-2010", "empirical studies on momentum"),
    (
        "Which papers published in 2019 discuss stochastic volatility?",
        2019,
        2019,
        "published in 2019",
        "Which papers discuss stochastic volatility?",
    ),
    (
        "papers published in the last 5 years on risk parity",
        2020,
        None,
        "published in the last 5 years",
        "papers on risk parity",
    ),
    (
        "research of the past ten years on limit order books",
        2015,
        None,
        "of the past ten years",
        "research on limit order books",
    ),
    (
        "Published in the past decade, what estimators exist?",
        2015,
        None,
        "Published in the past decade",
        "what estimators exist?",
    ),
    (
        "papers published after 2010 and before 2015 on factor models",
        2011,
        2014,
        "published after 2010 and before 2015",
        "papers on factor models",
    ),
    (
        "Papers that were published no later than 2005 on the CAPM",
        None,
        2005,
        "that were published no later than 2005",
        "Papers on the CAPM",
    ),
    (
        "What do preprints later than 2018 say about crypto?",
        2019,
        None,
        "later than 2018",
        "What do preprints say about crypto?",
    ),
    # "in Y" right after a publication noun dates it
    ("studies in 2008 on liquidity", 2008, 2008, "in 2008", "studies on liquidity"),
    ("studies as of 2012 about volatility targeting", 2012, None, "as of 2012", "studies about volatility targeting"),
    # a year or a decade used as an adjective of a publication word
    ("What did a 2011 study find about jump tests?", 2011, 2011, "2011", "What did a study find about jump tests?"),
    (
        "In 2010 guidance, how should a bank backtest VaR?",
        2010,
        2010,
        "2010",
        "In guidance, how should a bank backtest VaR?",
    ),
    ("2019 slides on risk parity portfolios", 2019, 2019, "2019", "slides on risk parity portfolios"),
    (
        "What do early 2010s papers say about risk parity?",
        2010,
        2013,
        "early 2010s",
        "What do papers say about risk parity?",
    ),
    ("mid-2000s literature on momentum crashes", 2004, 2006, "mid-2000s", "literature on momentum crashes"),
    ("late-2010s work on the factor zoo", 2017, 2019, "late-2010s", "work on the factor zoo"),
    ("1990s research on volatility clustering", 1990, 1999, "1990s", "research on volatility clustering"),
    # approximate and decade clauses attached to a publication word
    ("papers from around 2010 on realized volatility", 2008, 2012, "from around 2010", "papers on realized volatility"),
    ("work published circa 2005 on shrinkage", 2003, 2007, "published circa 2005", "work on shrinkage"),
    (
        "What does research from the 2000s say about shrinkage?",
        2000,
        2009,
        "from the 2000s",
        "What does research say about shrinkage?",
    ),
    (
        "studies in the early 2010s on high-frequency noise",
        2010,
        2013,
        "in the early 2010s",
        "studies on high-frequency noise",
    ),
    # relative to the newest document (2024 here)
    (
        "What does recent work say about volatility targeting?",
        2020,
        None,
        "recent",
        "What does work say about volatility targeting?",
    ),
    ("the latest research on limit order books", 2020, None, "latest", "the research on limit order books"),
    ("papers in recent years on crypto volatility", 2020, None, "in recent years", "papers on crypto volatility"),
    # a sentence that opens with a period, when the question names a publication word
    (
        "Since 2015, what have papers said about risk parity?",
        2015,
        None,
        "Since 2015",
        "what have papers said about risk parity?",
    ),
    (
        "Before 2010, how did the literature estimate CVaR?",
        None,
        2009,
        "Before 2010",
        "how did the literature estimate CVaR?",
    ),
    (
        "In the last 3 years, which studies covered factor timing?",
        2022,
        None,
        "In the last 3 years",
        "which studies covered factor timing?",
    ),
    (
        "Since 2015, how have factor models been estimated?",
        2015,
        None,
        "Since 2015",
        "how have factor models been estimated?",
    ),
    ("In the 2000s, who reframed investor views?", 2000, 2009, "In the 2000s", "who reframed investor views?"),
]

# questions with a year that is content, not a publication date (or no year at all)
NO_PERIOD = [
    "What happened in the 2008 crisis?",
    "GARCH models from 1986 and their extensions",
    "How does Heston (1993) price options?",
    "S&P 500 returns from 1990 to 2000",
    "papers on S&P 500 returns from 1990 to 2000",
    "papers after the 2008 crisis on liquidity",
    "papers after 2008 crisis on liquidity",
    "pre-2008 crisis literature on leverage",
    "what is the 2010s consensus in papers",
    "Bollerslev (1986) introduced GARCH; what came after 2000?",
    "papers about volatility",
    "research published in 3000 BC",
    "papers after 2020 and before 2010",  # contradictory: nothing applied
    "How did volatility behave before 2010?",
    "recent volatility spikes in equity markets",
    "What did a 2008 crisis study find?",
    "Around 2010 markets became calmer; why?",
    "the 2000s housing bubble and its aftermath",
    "a 2x leveraged fund studied over 250 days",
]


@pytest.mark.parametrize("question, year_min, year_max, clause, query", PERIODS)
def test_periods_are_read_and_removed(question, year_min, year_max, clause, query):
    period = parse_period(question, NEWEST)
    assert (period.year_min, period.year_max) == (year_min, year_max)
    assert period.clause == clause
    assert period.query == query


@pytest.mark.parametrize("question", NO_PERIOD)
def test_content_years_are_not_periods(question):
    period = parse_period(question, NEWEST)
    assert (period.year_min, period.year_max, period.clause) == (None, None, None)
    assert period.query == question


def test_relative_periods_need_the_newest_year():
    assert parse_period("papers published in the last 5 years on risk parity", None).clause is None
    assert parse_period("papers published in the last 5 years on risk parity", 2030).year_min == 2026


def test_caller_bounds_win_and_the_question_fills_the_other_side():
    question = "papers published after 2015 on momentum"
    both = apply_period(question, 2010, 2020, NEWEST)
    assert (both.year_min, both.year_max, both.source_min, both.source_max) == (2010, 2020, "caller", "caller")
    assert both.query == "papers on momentum" and "overridden" in both.note
    filled = apply_period("literature before 2012 on momentum", 2005, None, NEWEST)
    assert (filled.year_min, filled.year_max, filled.source_min, filled.source_max) == (
        2005,
        2011,
        "caller",
        "question",
    )
    conflicting = apply_period(question, None, 2012, NEWEST)  # the question's 2016+ contradicts the caller
    assert (conflicting.year_min, conflicting.year_max) == (None, 2012)
    from_question = apply_period(question, None, None, NEWEST)
    assert (from_question.year_min, from_question.source_min) == (2016, "question")
    assert "published after 2015" in from_question.note and "strict" in from_question.note
    nothing = apply_period("papers on momentum", None, None, NEWEST)
    assert (nothing.year_min, nothing.year_max, nothing.note) == (None, None, None)
    with pytest.raises(ValueError):
        apply_period(question, 2020, 2010, NEWEST)


def test_table_is_large_enough():
    assert len(PERIODS) + len(NO_PERIOD) >= 30


def _resolve(question: str, newest_year: int | None):
    # resolve_filters needs only the corpus's newest year from its engine here; a real engine over
    # an undated corpus is the BEIR scratch state, too heavy for this check.
    ctx = SimpleNamespace(
        engine=SimpleNamespace(catalogue=SimpleNamespace(newest_year=lambda: newest_year)), sessions=SessionStore()
    )
    return resolve_filters(ctx, Filters.model_validate({}), question)


def test_a_corpus_without_years_searches_the_question_whole_and_says_why():
    question = "In 2019, why did the gross margin decrease?"
    scope, period, text, _ = _resolve(question, None)
    assert scope.year_min is None and scope.year_max is None and text == question
    assert period.clause and "not applied" in period.note and period.clause in period.note
    scope, period, text, _ = _resolve(question, 2024)  # a dated corpus: the period applies
    assert (scope.year_min, scope.year_max) == (2019, 2019) and "2019" not in text
    assert period.note.startswith("period applied")
