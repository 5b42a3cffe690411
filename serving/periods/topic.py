"""Periods that reach past their neighbours: after a publication word and its topic ("research on
market microstructure before 1985", "travaux sur la VaR depuis 1995"), before "of" and a
publication word ("the past decade of work"), and closing a keyword query ("volatility targeting
strategies until 2016"). A period right after a data or event noun still dates the data ("papers on
S&P 500 returns from 1990 to 2000"), and a lone year or bare range never reaches this far.
"""

from __future__ import annotations

import re

from serving.periods.context import Clause, T, chain, counts
from serving.periods.grammar import read
from serving.periods.words import DATA_NOUN, NOUN, PARTICIPLE, QUESTION_START

_FLAGS = re.IGNORECASE
_WORD = r"[\w&'’./+-]+(?:\(\d+(?:,\s*\d+)*\))?"  # a topic word, a model order included: GARCH(1,1)
_TOPIC = re.compile(rf"\b(?:{NOUN}|{PARTICIPLE})\b(?:\s+{_WORD}){{1,8}}?\s+(?P<at>){T}", _FLAGS)
_OF_PUBLICATIONS = re.compile(rf"(?<!\w){T}\s+of\s+(?:the\s+)?(?:[\w-]+\s+)?(?:{NOUN})\b", _FLAGS)
_KEYWORDS = re.compile(rf"^(?!\s*(?:{QUESTION_START})\b)[^?!;:]*?\s(?P<at>){T}\s*[?.!]?\s*$", _FLAGS)
_AFTER_DATA = re.compile(rf"\b(?:{DATA_NOUN})\s*$", _FLAGS)
_NEAR_ONLY = ("in", "bare", "bare-range")  # kinds that date a publication only next to its word


def _reaching(pattern: re.Pattern, question: str, newest: int | None) -> list[Clause]:
    found = []
    for m in pattern.finditer(question):
        said = read(m, newest)
        if (
            said is None
            or said.kind in _NEAR_ONLY
            or counts(question, m)
            or _AFTER_DATA.search(question, 0, m.start("t"))
        ):
            continue
        clause = chain(question, m.start("t"), m.end("t"), said, newest)
        if clause is not None:
            found.append(clause)
    return found


def after_topic(question: str, newest: int | None) -> list[Clause]:
    return _reaching(_TOPIC, question, newest)


def of_publications(question: str, newest: int | None) -> list[Clause]:
    return _reaching(_OF_PUBLICATIONS, question, newest)


def closing_keywords(question: str, newest: int | None) -> list[Clause]:
    return _reaching(_KEYWORDS, question, newest)
