"""The period grammar from generators: every kind of phrasing, in every position of a longer
question, gets its bounds; numbers that count, label or size something never become a year.

Expected bounds are computed here from the written rules (evaluation/questions/README.md "Period
conventions"), not read back from the parser.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from serving.periods.apply import AROUND_YEARS, RECENT_YEARS, parse_period
from serving.sessions.store import SessionStore
from serving.toolkit.filters import Filters, resolve_filters

NEWEST = 2026
YEARS = (1998, 2006, 2012, 2019)
DECADES = (1990, 2000, 2010)
SPANS = ((1999, 2004), (2008, 2012), (2015, 2021))


def _max(shift):
    return lambda y: (None, y + shift)


def _min(shift):
    return lambda y: (y + shift, None)


def _around(y):
    return y - AROUND_YEARS, y + AROUND_YEARS


def _only(y):
    return y, y


# (phrasing with {y}, bounds of y) in English, then in French
ENGLISH_YEAR = (
    [
        (p, _max(-1))
        for p in (
            "before {y}",
            "published before {y}",
            "prior to {y}",
            "published prior to {y}",
            "earlier than {y}",
            "older than {y}",
            "from before {y}",
            "dating from before {y}",
            "written before {y}",
            "published before the start of {y}",
            "up to {y} exclusive",
        )
    ]
    + [
        (p, _max(0))
        for p in (
            "until {y}",
            "up to {y}",
            "up until {y}",
            "through {y}",
            "no later than {y}",
            "not after {y}",
            "in or before {y}",
            "on or before {y}",
            "published {y} or earlier",
            "from {y} or earlier",
            "in {y} or before",
            "up to and including {y}",
            "published {y} and earlier",
            "before {y} inclusive",
            "until the end of {y}",
            "published no later than {y}",
            "no newer than {y}",
            "published till {y}",
        )
    ]
    + [
        (p, _min(1))
        for p in (
            "after {y}",
            "published after {y}",
            "later than {y}",
            "more recent than {y}",
            "newer than {y}",
            "from after {y}",
            "released after {y}",
            "after the end of {y}",
        )
    ]
    + [
        (p, _min(0))
        for p in (
            "since {y}",
            "from {y} onwards",
            "from {y} onward",
            "from {y} on",
            "as of {y}",
            "starting in {y}",
            "no earlier than {y}",
            "not before {y}",
            "in or after {y}",
            "on or after {y}",
            "published {y} or later",
            "from {y} or later",
            "in {y} or later",
            "published {y} and later",
            "from {y} to date",
            "since {y} inclusive",
            "after {y} inclusive",
            "no older than {y}",
            "published since {y}",
            "beginning in {y}",
            "published {y} onwards",
            "from {y} to the present",
        )
    ]
    + [
        (p, _around)
        for p in (
            "around {y}",
            "circa {y}",
            "published around {y}",
            "from around {y}",
            "documented around {y}",
            "published about {y}",
            "from roughly {y}",
            "c. {y}",
            "in or around {y}",
        )
    ]
    + [
        (p, _only)
        for p in (
            "published in {y}",
            "written in {y}",
            "released in {y}",
            "dated {y}",
            "published during {y}",
            "published in the year {y}",
            "published in mid-{y}",
        )
    ]
)
FRENCH_YEAR = [
    ("publiés avant {y}", _max(-1)),
    ("antérieurs à {y}", _max(-1)),
    ("publiés jusqu'en {y}", _max(0)),
    ("publiés jusqu’à {y}", _max(0)),
    ("publiés en {y} ou avant", _max(0)),
    ("publiés après {y}", _min(1)),
    ("publiés depuis {y}", _min(0)),
    ("publiés à partir de {y}", _min(0)),
    ("publiés en {y} ou après", _min(0)),
    ("publiés en {y}", _only),
    ("publiés vers {y}", _around),
    ("publiés autour de {y}", _around),
]
ENGLISH_SPAN = [
    (p, lambda a, b: (a, b))
    for p in (
        "between {a} and {b}",
        "published between {a} and {b}",
        "from {a} to {b}",
        "from {a} through {b}",
        "from {a} until {b}",
        "published {a}–{b}",
        "published {a}-{b}",
        "in the years {a} to {b}",
        "during {a}–{b}",
        "between {a} and {b} inclusive",
        "published in {a}–{b}",
    )
] + [("between {a} and {b} exclusive", lambda a, b: (a + 1, b - 1))]
FRENCH_SPAN = [("publiés entre {a} et {b}", lambda a, b: (a, b)), ("publiés de {a} à {b}", lambda a, b: (a, b))]


def _decade(lo, hi):
    return lambda d: (d + lo, d + hi)


ENGLISH_DECADE = [
    ("in the {d}s", _decade(0, 9)),
    ("from the {d}s", _decade(0, 9)),
    ("published in the {d}s", _decade(0, 9)),
    ("during the early {d}s", _decade(0, 3)),
    ("in the early-{d}s", _decade(0, 3)),
    ("in the mid-{d}s", _decade(4, 6)),
    ("in the mid {d}s", _decade(4, 6)),
    ("in the late {d}s", _decade(7, 9)),
    ("in the first half of the {d}s", _decade(0, 4)),
    ("in the second half of the {d}s", _decade(5, 9)),
    ("since the {d}s", lambda d: (d, None)),
    ("since the mid-{d}s", lambda d: (d + 4, None)),
    ("before the {d}s", lambda d: (None, d - 1)),
    ("after the {d}s", lambda d: (d + 10, None)),
    ("until the late {d}s", lambda d: (None, d + 9)),
]
FRENCH_DECADE = [
    ("publiés dans les années {d}", _decade(0, 9)),
    ("publiés au début des années {d}", _decade(0, 3)),
    ("publiés à la fin des années {d}", _decade(7, 9)),
]


def _last(n):
    return lambda: (NEWEST - n + 1, None)


RELATIVE = [
    *[(f"in the last {n} years", _last(n)) for n in (2, 3, 5, 10)],
    *[(f"over the past {w} years", _last(n)) for w, n in (("two", 2), ("three", 3), ("ten", 10))],
    ("in the past decade", _last(10)),
    ("over the last two decades", _last(20)),
    ("in the last year", _last(1)),
    ("in recent years", _last(RECENT_YEARS)),
    ("published recently", _last(RECENT_YEARS)),
    ("published within the last 4 years", _last(4)),
    ("in the previous 6 years", _last(6)),
]
FRENCH_RELATIVE = [
    ("publiés ces 5 dernières années", _last(5)),
    ("publiés au cours des dix dernières années", _last(10)),
    ("publiés ces dernières années", _last(RECENT_YEARS)),
    ("publiés dans la dernière décennie", _last(10)),
]
# A period qualifying a publication noun (the phrasing carries its noun).
ADJECTIVE_YEAR = [
    ("a {y} study", _only),
    ("a {y} comparison", _only),
    ("the {y} slides", _only),
    ("a {y} empirical study", _only),
    ("pre-{y} papers", _max(-1)),
    ("post-{y} research", _min(1)),
    ("pre {y} literature", _max(-1)),
    ("{y} guidance", _only),
]
ADJECTIVE_DECADE = [
    ("early {d}s work", _decade(0, 3)),
    ("mid-{d}s literature", _decade(4, 6)),
    ("late-{d}s papers", _decade(7, 9)),
    ("{d}s research", _decade(0, 9)),
]
ADJECTIVE_OTHER = [
    ("recent work", _last(RECENT_YEARS)),
    ("the latest research", _last(RECENT_YEARS)),
    ("the most recent papers", _last(RECENT_YEARS)),
    ("recently published studies", _last(RECENT_YEARS)),
    ("2008–2012 papers", lambda: (2008, 2012)),
]


def _phrasings():
    """(phrasing, language, adjective?, (year_min, year_max)), each phrasing once."""
    out = []
    for table, lang in ((ENGLISH_YEAR, "en"), (FRENCH_YEAR, "fr"), (ADJECTIVE_YEAR, "adj")):
        out += [(p.format(y=y), lang, rule(y)) for p, rule in table for y in YEARS]
    for table, lang in ((ENGLISH_SPAN, "en"), (FRENCH_SPAN, "fr")):
        out += [(p.format(a=a, b=b), lang, rule(a, b)) for p, rule in table for a, b in SPANS]
    for table, lang in ((ENGLISH_DECADE, "en"), (FRENCH_DECADE, "fr"), (ADJECTIVE_DECADE, "adj")):
        out += [(p.format(d=d), lang, rule(d)) for p, rule in table for d in DECADES]
    out += [(p, "en", rule()) for p, rule in RELATIVE] + [(p, "fr", rule()) for p, rule in FRENCH_RELATIVE]
    out += [(p, "adj", rule()) for p, rule in ADJECTIVE_OTHER]
    return out


PHRASINGS = _phrasings()
POSITIONS = {
    "en": {
        "start": "{P}, what do papers say about momentum crashes?",
        "middle": "What do papers {p} say about momentum crashes?",
        "end": "Which estimators of jump risk appear in papers {p}?",
        "parenthesised": "What do papers say about momentum crashes ({p})?",
        "after a comma": "How is VaR backtested, {p}?",
        "between commas": "How, {p}, have papers estimated covariance shrinkage?",
        "after a topic": "Research on momentum crashes in US equity markets {p}, please",
        "keyword query": "momentum crash risk {p}",
    },
    "fr": {
        "start": "{P}, que disent les articles sur le momentum ?",
        "middle": "Que disent les articles {p} sur le momentum ?",
        "end": "Quels estimateurs trouve-t-on dans les travaux {p} ?",
        "parenthesised": "Que disent les articles sur le momentum ({p}) ?",
        "after a comma": "Comment le VaR est-il testé, {p} ?",
        "after a topic": "recherches sur le momentum des actions {p}",
        "keyword query": "momentum des actions européennes {p}",
    },
    "adj": {
        "start": "In {p}, what is said about momentum crashes?",
        "middle": "What did {p} say about momentum crashes?",
        "end": "What is said about momentum crashes in {p}?",
        "parenthesised": "What is said about momentum crashes (see {p})?",
        "after a comma": "What is said about momentum crashes, according to {p}?",
    },
}
CASES = [
    (template.format(p=p, P=p[0].upper() + p[1:]), p, bounds, where)
    for p, lang, bounds in PHRASINGS
    for where, template in POSITIONS[lang].items()
]


def test_the_generator_covers_every_kind_with_enough_phrasings():
    assert len({p for p, _, _ in PHRASINGS}) >= 200
    assert len(CASES) >= 5 * 200


@pytest.mark.parametrize("question, phrasing, bounds, where", CASES, ids=[f"{c[3]}: {c[1]}" for c in CASES])
def test_every_phrasing_gets_its_bounds_in_every_position(question, phrasing, bounds, where):
    period = parse_period(question, NEWEST)
    assert (period.year_min, period.year_max) == bounds, (question, period.rules)
    years = re.findall(r"(?:19|20)\d\d", phrasing)
    assert not any(y in period.query for y in years), period.query  # the clause left the searched text
    assert phrasing.split()[-1].strip("()") not in ("papers", "work") or phrasing.split()[-1] in period.query
    for value, words in ((period.year_min, period.words_min), (period.year_max, period.words_max)):
        assert (value is None) == (words is None) and (words is None or words in question)


NUMBERS = (1900, 1950, 1999, 2000, 2010, 2048, 2099)
NOT_YEARS = [
    "How are the top {n} stocks weighted in the index?",
    "With {n} observations, how precise is the Sharpe ratio?",
    "Estimate a GARCH(1,1) on {n} daily returns.",
    "From {n} observations, how precise is the estimate?",
    "In {n} simulations, how often does the test reject?",
    "What did over {n} papers say about momentum?",
    "What does section {n} of the paper derive?",
    "How is equation ({n}) solved?",
    "Explain eq. {n} in papers.",
    "What does table {n} of the survey report?",
    "Which papers use up to {n} observations per asset?",
    "papers that estimate the model after {n} iterations",
    "studies with more than {n} stocks since inception",
    "Is a portfolio of around {n} stocks diversified enough in papers?",
    "What does N = {n} imply for the test?",
    "papers whose sample size is n={n} firms",
    "A {n}x{n} covariance matrix: how is it shrunk?",
    "What do papers say about a {n}-dimensional factor model?",
    "Why does a {n}-stock universe need shrinkage?",
    "How is $ {n} of notional hedged?",
    "How is ${n} of notional hedged in papers?",
    "What does a {n}% move imply for VaR in studies?",
    "How costly are {n} bp of slippage in the literature?",
    "papers run {n} bootstrap replications before reporting",
    "Since {n} draws are discarded, is the sampler burnt in?",
    "Between {n} and 3000 assets, which estimator is best in papers?",
    "papers using the first {n} trading days",
    "How does the Russell {n} index rebalance in studies?",
    "What does page {n} of the report say?",
    "Which studies trade {n} contracts per day?",
    "After {n} trades, how does impact decay in the literature?",
    "research on {n} portfolios sorted on size",
]
CONTENT_YEARS = [
    "What happened to liquidity in the 2008 crisis?",
    "How did volatility behave before 2010?",
    "S&P 500 returns from 1990 to 2000 in papers on momentum",
    "How does Heston (1993) price options?",
    "papers after the 2008 crisis on liquidity",
    "the 2000s housing bubble and its aftermath",
    "Around 2010 markets became calmer; why?",
    "What did a 2008 crisis study find?",
    "the crash (in 1987) and portfolio insurance",
    "returns (1990–2000) of momentum portfolios",
    "Which papers model the crisis after 2008?",
    "studies of market data from 1990 to 2000",
    "What do papers say about volatility in 2008?",
    "studies using a sample from 1990 to 2000",
    "papers studying returns since 1990",
    "Which papers discuss the crisis of 2008?",
    "Volatility of equity returns after 2008",
    "Explain the Heston model (1993) and its extensions after 2000",
]
NON_YEAR_SENTENCES = [t.format(n=n) for t in NOT_YEARS for n in NUMBERS] + CONTENT_YEARS


def test_enough_sentences_whose_numbers_are_not_years():
    assert len(set(NON_YEAR_SENTENCES)) >= 100


@pytest.mark.parametrize("question", NON_YEAR_SENTENCES)
def test_a_number_that_is_not_a_publication_year_never_becomes_a_period(question):
    period = parse_period(question, NEWEST)
    assert (period.year_min, period.year_max, period.clause) == (None, None, None), period.rules
    assert period.query == question


@pytest.mark.parametrize(
    "question, bounds",
    [
        ("What did papers before 2000 or after 2010 say?", (None, None)),  # a union: no single range
        ("Since 2010 papers have shown what about momentum?", (2010, None)),  # a direction, then its noun
        ("Before 2010 papers said what about jumps?", (None, 2009)),
        ("What does research before 2010 show about 2000 simulated paths?", (None, 2009)),
        ("Which articles in 2010 discussed jumps?", (2010, 2010)),  # a verb is not a qualifier
        ("In a paper from 2015, how is the spread estimated?", (2015, 2015)),  # one paper: its year
        ("research from 2015 on momentum", (2015, None)),  # "on" starts the topic
    ],
)
def test_edges_of_the_grammar(question, bounds):
    period = parse_period(question, NEWEST)
    assert (period.year_min, period.year_max) == bounds, period.rules


def _resolve(question: str):
    ctx = SimpleNamespace(
        engine=SimpleNamespace(catalogue=SimpleNamespace(newest_year=lambda: NEWEST)), sessions=SessionStore()
    )
    return resolve_filters(ctx, Filters.model_validate({}), question)


def test_the_answer_names_the_words_of_each_bound():
    scope, period, text, _ = _resolve("What do papers published after 2010 and no later than 2015 say about jumps?")
    assert (scope.year_min, scope.year_max) == (2011, 2015)
    assert (period.words_min, period.words_max) == ("after 2010", "no later than 2015")
    assert text == "What do papers say about jumps?" and "strict" in period.note and "inclusive" in period.note
    ctx = SimpleNamespace(
        engine=SimpleNamespace(catalogue=SimpleNamespace(newest_year=lambda: NEWEST)), sessions=SessionStore()
    )
    _, caller, _, _ = resolve_filters(ctx, Filters.model_validate({"year_min": 2012}), "papers before 2015 on jumps")
    assert (caller.words_min, caller.words_max, caller.source_min) == (None, "before 2015", "caller")


_PIECES = st.sampled_from(
    [
        "before",
        "after",
        "since",
        "until",
        "up to",
        "in or before",
        "or earlier",
        "or later",
        "between",
        "and",
        "from",
        "to",
        "around",
        "circa",
        "the",
        "early",
        "mid-",
        "late",
        "last",
        "past",
        "years",
        "decade",
        "recent",
        "papers",
        "published",
        "work",
        "on",
        "avant",
        "après",
        "depuis",
        "jusqu'en",
        "entre",
        "et",
        "en",
        "les années",
        "(",
        ")",
        ",",
        "?",
        "1999",
        "2010",
        "2010s",
        "'90s",
        "2000",
        "1899",
        "2100",
        "12",
        "observations",
        "GARCH(1,1)",
        "section",
        "$",
        "%",
        "–",
        "-",
        "pre-2008",
        "a 2017 study",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=14), st.text(max_size=40))
def test_any_text_parses_without_error_into_years_it_holds(pieces, noise):
    question = " ".join(pieces) + noise
    period = parse_period(question, NEWEST)
    for value in (period.year_min, period.year_max):
        assert value is None or 1900 - AROUND_YEARS <= value <= 2099 + 10
    for words in (period.words_min, period.words_max):
        assert words is None or " ".join(words.split()) in " ".join(question.split())
