"""Text normalisation for citation matching (docs/DESIGN.md §5), with a map back to canonical offsets.

The same function is applied to a quote and to a document, so a quote copied with curly quotes,
a typographic minus, a ligature or a line-broken word still matches. Plain ASCII between the
special cases is processed in bulk (lower-cased, identity map) so a 200k-character document
normalises in a few milliseconds; only the rare special segments go through Python code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from corpus.text.markup import skip_markup, to_original

# Whitespace-like characters that are dropped outright: soft hyphen, pdfium's line-break hyphen
# marker (U+FFFE; the line break itself is already gone), zero-width characters, BOM.
_DROPPED = frozenset("\u00ad\ufffe\u200b\u200c\u200d\u2060\ufeff")
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb"
_TABLE = {**{c: "-" for c in _DASHES}, **{c: "'" for c in _SINGLE_QUOTES}, **{c: '"' for c in _DOUBLE_QUOTES}}

# Everything that is not "printable ASCII or a single space" starts a special segment.
_SPECIAL_RE = re.compile(
    r"(?P<tag>(?i:</?su[bp]\s*>))"  # <sup>, </sub> …
    r"|(?P<hyph>(?<=[^\W\d_])-[ \t]*\r?\n[ \t]*(?=[^\W\d_]))"  # volat-\nility
    r"|(?P<space>\s{2,}|[^\S ])"  # runs, \n, \t, NBSP
    r"|(?P<other>[^\x20-\x7e\s]+)"  # non-ASCII, controls
)


def _fold(chunk: str) -> str:
    """One non-ASCII cluster → its normalised form (table, then NFKC, then case-fold)."""
    if chunk in _TABLE:
        return _TABLE[chunk]
    return unicodedata.normalize("NFKC", chunk).casefold()


def normalise_with_map(text: str) -> tuple[str, list[int]]:
    """Normalised text and, for every normalised character i, the index in `text` it came from.

    Markdown markup is skipped first (corpus.text.markup: table pipes and separator rows, code fences
    and backticks, emphasis markers, heading hashes). Whitespace runs become one space (none at
    either end), <sup>/<sub> tags are dropped (their content kept), dashes and minus signs
    become '-', curly and prime quotes become straight, then NFKC and case-folding; a hyphen at a
    line break between two letters is removed when the next letter is lower-case
    ('volat-\\nility' → 'volatility') and kept without the break otherwise ('Black-\\nScholes' →
    'black-scholes').
    """
    bare, pieces = skip_markup(text)
    normalised, origin = _normalise(bare)
    return normalised, to_original(origin, pieces)


def _normalise(text: str) -> tuple[str, list[int]]:
    out: list[str] = []
    origin: list[int] = []
    last_space = True  # suppresses a leading space and double spaces
    pos = 0
    for m in _SPECIAL_RE.finditer(text):
        start = m.start()
        if start > pos:  # bulk ASCII (single spaces included): lower() is casefold+NFKC here
            chunk = text[pos:start]
            if last_space and chunk[0] == " ":
                chunk, pos = chunk[1:], pos + 1
            if chunk:
                out.append(chunk.lower())
                origin.extend(range(pos, start))
                last_space = chunk[-1] == " "
        pos = m.end()
        kind = m.lastgroup
        if kind == "tag":
            continue
        if kind == "hyph":
            if not text[m.end()].islower():
                out.append("-")
                origin.append(start)
                last_space = False
            continue
        if kind == "space":
            if not last_space:
                out.append(" ")
                origin.append(start)
                last_space = True
            continue
        last_space = _emit_other(text, start, m.end(), out, origin, last_space)
    if pos < len(text):
        chunk = text[pos:]
        if last_space and chunk[0] == " ":
            chunk, pos = chunk[1:], pos + 1
        out.append(chunk.lower())
        origin.extend(range(pos, len(text)))
    normalised = "".join(out)
    if normalised.endswith(" "):
        normalised, origin = normalised[:-1], origin[:-1]
    return normalised, origin


def _emit_other(text: str, start: int, end: int, out: list[str], origin: list[int], last_space: bool) -> bool:
    """Normalise a run of non-ASCII or control characters; return whether it ended in a space."""
    i = start
    while i < end:
        j = i + 1
        while j < end and unicodedata.combining(text[j]):
            j += 1  # a base character with its combining marks is one cluster
        cluster = text[i:j]
        if cluster[0] in _DROPPED or unicodedata.category(cluster[0]) == "Cc":
            i = j
            continue
        base = origin[-1] if origin else -1
        if (
            unicodedata.combining(cluster[0])
            and base >= 0
            and text[base].isascii()
            and out[-1].endswith(text[base].lower())
        ):
            # Marks after an ASCII letter: recompose with it ('e' + U+0301 → 'é').
            out[-1] = out[-1][:-1]
            origin.pop()
            cluster, i = text[base] + cluster, base
        folded = _fold(cluster)
        for ch in folded:
            if ch.isspace():
                if last_space:
                    continue
                ch = " "
            out.append(ch)
            origin.append(i)
            last_space = ch == " "
        i = j
    return last_space


def canonical_end(text: str, origin: Sequence[int], last: int) -> int:
    """Canonical end offset (exclusive) of a match whose last normalised character is `last`:
    one past its origin, extended over trailing combining marks of the same cluster."""
    end = origin[last] + 1
    while end < len(text) and unicodedata.combining(text[end]):
        end += 1
    return end
