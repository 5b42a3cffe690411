"""The lexical analyser of BM25 (and of anything that must agree with it, e.g. leak scores).

Case-folded. Identifiers stay whole — GARCH(1,1), AR(1), CVaR, 10-K, S&P, t-statistic,
Black-Scholes, O'Hara — because a quant question names them exactly. A compound identifier also
yields its alphabetic parts of three letters or more, so a question about "GARCH" or "Scholes"
still meets a passage that only writes "GARCH(1,1)" or "Black-Scholes". Numbers are written one
way: thousands separators dropped (`1,234.5` → `1234.5`), a percentage is its number (`12%` → `12`).

An `Analyzer` adds, optionally, English stop-word removal and Snowball stemming of plain words
(identifiers and numbers are never stemmed). The analyser an index was built with is recorded in
its manifest, so queries are always analysed the way the index was.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import regex

# Bump when tokenize() changes: every BM25 manifest records it, so an old index reads as stale.
TOKENIZER_VERSION = "tok-v2"

StopWords = Literal["none", "en", "en_plus"]

_ALNUM = r"[^\W_]"
# A core is alphanumeric runs joined by - . / & ' _ (or a comma between digits: 1,000);
# an identifier may carry a parenthesised argument list written without spaces: AR(1), ARMA(p,q).
_TOKEN_RE = regex.compile(
    rf"{_ALNUM}+(?:(?:[-./&'_]|(?<=\d),(?=\d{{3}}(?!\d))){_ALNUM}+)*"
    rf"(?:\({_ALNUM}+(?:[.,]{_ALNUM}+)*\))?"
)
_PART_RE = regex.compile(r"\p{L}{3,}")
_THOUSANDS_RE = regex.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUMBER_RE = regex.compile(r"\d+(?:\.\d+)?")
# Dashes, minus and curly apostrophes that NFKC leaves alone but a writer uses interchangeably.
_FOLD = str.maketrans(
    {**{chr(c): "-" for c in range(0x2010, 0x2016)}, "\u2212": "-", "\u2019": "'", "\u2018": "'", "\u02bc": "'"}
)
_POSSESSIVE = "'s"


def tokenize(text: str) -> list[str]:
    """Tokens of `text` in order: case-folded identifiers, then the parts of compound ones."""
    folded = unicodedata.normalize("NFKC", text).translate(_FOLD).casefold()
    tokens: list[str] = []
    for token in _TOKEN_RE.findall(folded):
        if token.isalnum():  # a plain word or number (most tokens): nothing below applies to it
            tokens.append(token)
            continue
        if token.endswith(_POSSESSIVE) and len(token) > len(_POSSESSIVE):
            token = token[: -len(_POSSESSIVE)]  # Engle's → engle: a name, not a new word
        if "," in token and _NUMBER_RE.fullmatch(number := _THOUSANDS_RE.sub("", token)):
            token = number  # 1,234.5 → 1234.5: one spelling of a number
        tokens.append(token)
        if not token.isalnum():
            tokens.extend(part for part in _PART_RE.findall(token) if part != token)
    return tokens


@dataclass(frozen=True)
class Analyzer:
    """tokenize(), then stop words dropped and plain alphabetic words stemmed, as configured."""

    stopwords: StopWords = "none"
    stemmer: str | None = None  # a Snowball language ("english") or None

    @property
    def name(self) -> str:
        """Recorded in index manifests: an index and its queries must share one analyser."""
        return f"{TOKENIZER_VERSION}/stop={self.stopwords}/stem={self.stemmer or 'none'}"

    @cached_property
    def _stop(self) -> frozenset[str]:
        if self.stopwords == "none":
            return frozenset()
        from bm25s import stopwords

        return frozenset(stopwords.STOPWORDS_EN if self.stopwords == "en" else stopwords.STOPWORDS_EN_PLUS)

    @cached_property
    def _stem(self):
        if self.stemmer is None:
            return None
        import Stemmer

        return Stemmer.Stemmer(self.stemmer).stemWord

    def __call__(self, text: str) -> list[str]:
        stop, stem = self._stop, self._stem
        tokens = [t for t in tokenize(text) if t not in stop]
        if stem is None:
            return tokens
        return [stem(t) if t.isalpha() else t for t in tokens]
