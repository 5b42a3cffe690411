"""The lexical tokeniser of BM25 (and of anything that must agree with it, e.g. leak scores).

Case-folded, no stemming, no stop words. Identifiers stay whole — GARCH(1,1), AR(1), CVaR, 10-K,
S&P, t-statistic, Black-Scholes, O'Hara — because a quant question names them exactly. A
compound identifier also yields its alphabetic parts of three letters or more, so a question
about "GARCH" or "Scholes" still meets a passage that only writes "GARCH(1,1)" or
"Black-Scholes".
"""

from __future__ import annotations

import unicodedata

import regex

# Bump when tokenize() changes: every BM25 manifest records it, so an old index reads as stale.
TOKENIZER_VERSION = "tok-v1"

_ALNUM = r"[^\W_]"
# A core is alphanumeric runs joined by - . / & ' _ (or a comma between digits: 1,000);
# an identifier may carry a parenthesised argument list written without spaces: AR(1), ARMA(p,q).
_TOKEN_RE = regex.compile(
    rf"{_ALNUM}+(?:(?:[-./&'_]|(?<=\d),(?=\d)){_ALNUM}+)*"
    rf"(?:\({_ALNUM}+(?:[.,]{_ALNUM}+)*\))?"
)
_PART_RE = regex.compile(r"\p{L}{3,}")
# Dashes, minus and curly apostrophes that NFKC leaves alone but a writer uses interchangeably.
_FOLD = str.maketrans({**{chr(c): "-" for c in range(0x2010, 0x2016)}, "\u2212": "-",
                       "\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_POSSESSIVE = "'s"


def tokenize(text: str) -> list[str]:
    """Tokens of `text` in order: case-folded identifiers, then the parts of compound ones."""
    folded = unicodedata.normalize("NFKC", text).translate(_FOLD).casefold()
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(folded):
        token = match.group()
        if token.endswith(_POSSESSIVE) and len(token) > len(_POSSESSIVE):
            token = token[: -len(_POSSESSIVE)]  # Engle's → engle: a name, not a new word
        tokens.append(token)
        if not token.isalnum():
            tokens.extend(part for part in _PART_RE.findall(token) if part != token)
    return tokens
