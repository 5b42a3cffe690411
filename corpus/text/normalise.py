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
# Spacing accents a PDF extractor puts before or after the letter they belong to ('ˆµ', 'σˆ',
# 'Schr¨odinger') read as the combining mark a typed quote has ('µ̂'); see _gather_marks.
_SPACING_ACCENTS = {
    "\u02c6": "\u0302",  # ˆ circumflex (hat)
    "\u02dc": "\u0303",  # ˜ tilde
    "\u00af": "\u0304",  # ¯ macron (bar)
    "\u02c9": "\u0304",  # ˉ modifier macron
    "\u203e": "\u0304",  # ‾ overline
    "\u02d9": "\u0307",  # ˙ dot above
    "\u00b4": "\u0301",  # ´ acute
    "\u02ca": "\u0301",  # ˊ modifier acute
    "\u02cb": "\u0300",  # ˋ modifier grave
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u02c7": "\u030c",  # ˇ caron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02da": "\u030a",  # ˚ ring above
    "\u02dd": "\u030b",  # ˝ double acute
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02db": "\u0328",  # ˛ ogonek
}
_SAME_MARK = {"\u0305": "\u0304"}  # a combining overline reads as a macron (both typeset a bar)
_TABLE = {
    **{c: "-" for c in _DASHES},
    **{c: "'" for c in _SINGLE_QUOTES},
    **{c: '"' for c in _DOUBLE_QUOTES},
    **_SPACING_ACCENTS,
}
# A space before , . ; : ) or after ( is the extractor's, not the author's ('W , the', '( x'): dropped.
# (Two patterns, each with a literal prefix the engine scans for: one alternation is much slower.)
_SPACE_BEFORE_RE = re.compile(r" (?=[,.;:)])")
_SPACE_AFTER_RE = re.compile(r"\( ")
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]+")

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


def normalise_with_map(text: str, headings: bool = True) -> tuple[str, list[int]]:
    """Normalised text and, for every normalised character i, the index in `text` it came from.

    Markdown markup is skipped first (corpus.text.markup: table pipes and separator rows, code fences
    and backticks, emphasis markers, heading hashes outside code; `headings=False` keeps every
    heading hash, as a quote of code lines needs). Whitespace runs become one space (none at
    either end), <sup>/<sub> tags are dropped (their content kept), dashes and minus signs
    become '-', curly and prime quotes become straight, then NFKC and case-folding; a hyphen at a
    line break between two letters is removed when the next letter is lower-case
    ('volat-\\nility' → 'volatility') and kept without the break otherwise ('Black-\\nScholes' →
    'black-scholes'). A space before , . ; : ) or after ( is dropped ('W , the' → 'w, the').
    Accents, combining ('µ̂') or spacing before or after their letter ('ˆµ', 'µˆ'), become
    combining marks after the run of letters they touch ('σ̂z' and 'ˆσz' → 'σẑ'): a hat is kept
    ('σ̂' is not 'σ'), only its place inside the run is not (_marks_after_letters).
    """
    bare, pieces = skip_markup(text, headings=headings)
    normalised, origin = _gather_marks(*_tighten(*_normalise(bare)))
    return normalised, to_original(origin, pieces)


def _tighten(normalised: str, origin: list[int]) -> tuple[str, list[int]]:
    """Drop a space before , . ; : ) or after ( (with its map entry)."""
    cuts = [m.start() for m in _SPACE_BEFORE_RE.finditer(normalised)]
    after = [m.start() + 1 for m in _SPACE_AFTER_RE.finditer(normalised)]
    if after:
        cuts = sorted(set(cuts).union(after))
    if not cuts:
        return normalised, origin
    parts: list[str] = []
    kept: list[int] = []
    pos = 0
    for cut in cuts:
        parts.append(normalised[pos:cut])
        kept.extend(origin[pos:cut])
        pos = cut + 1
    parts.append(normalised[pos:])
    kept.extend(origin[pos:])
    return "".join(parts), kept


def _has_marks(run: str) -> bool:
    return any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", run))


def _gather_marks(normalised: str, origin: list[int]) -> tuple[str, list[int]]:
    """Every word holding an accent, with each run of letters followed by its accents
    (_marks_after_letters). Only words with a combining mark are touched."""
    if normalised.isascii():
        return normalised, origin
    words: list[tuple[int, int]] = []
    for m in _NON_ASCII_RE.finditer(normalised):
        if (words and m.start() < words[-1][1]) or not _has_marks(m.group()):
            continue
        start = normalised.rfind(" ", 0, m.start()) + 1
        end = normalised.find(" ", m.end())
        words.append((start, len(normalised) if end < 0 else end))
    if not words:
        return normalised, origin
    parts: list[str] = []
    kept: list[int] = []
    pos = 0
    for start, end in words:
        parts.append(normalised[pos:start])
        kept.extend(origin[pos:start])
        word, where = _marks_after_letters(normalised[start:end], origin[start:end])
        parts.append(word)
        kept.extend(where)
        pos = end
    parts.append(normalised[pos:])
    kept.extend(origin[pos:])
    return "".join(parts), kept


def _marks_after_letters(word: str, origin: list[int]) -> tuple[str, list[int]]:
    """The word with the accents of each run of letters moved after the run's last letter, in
    order, composed onto it where Unicode has one character for both ('cafe' + U+0301 → 'café').

    Extractors put a spacing accent before or after its letter ('ˆσz', 'σˆz', 'Schr¨odinger'), a
    typed quote puts a combining mark after it ('σ̂z', 'Schrödinger'): all read 'σẑ',
    'schrodinger̈'. An accent belongs to the run of letters it touches (the one before it when it
    touches two runs: 'βˆ0' → 'β̂0'); one touching no letter stays where it is. The accents keep
    the map exact: each maps to the run's last letter, whose canonical range takes in the accents
    next to it (canonical_start, canonical_end)."""
    chars: list[tuple[str, int]] = []
    for ch, at in zip(word, origin):
        for part in ch if ch.isascii() else unicodedata.normalize("NFD", ch):
            chars.append((_SAME_MARK.get(part, part), at))
    out: list[str] = []
    where: list[int] = []
    marks: list[tuple[str, int]] = []  # accents of the open run, or waiting for a letter
    in_run = False  # the last character that is not an accent was a letter

    def close() -> None:
        for mark, at in marks:
            if not in_run:  # touching no letter: in place
                out.append(mark)
                where.append(at)
            elif len(composed := unicodedata.normalize("NFC", out[-1] + mark)) == 1:
                out[-1] = composed
            else:
                out.append(mark)
                where.append(where[-1])
        marks.clear()

    for ch, at in chars:
        if unicodedata.combining(ch):
            marks.append((ch, at))
            continue
        if not ch.isalpha():
            close()
        out.append(ch)
        where.append(at)
        in_run = ch.isalpha()
    close()
    return "".join(out), where


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


def canonical_start(text: str, origin: Sequence[int], first: int) -> int:
    """Canonical start offset of a match whose first normalised character is `first`: its origin,
    extended back over a spacing accent put before the word's first letter ('ˆµ')."""
    start = origin[first]
    while start > 0 and text[start - 1] in _SPACING_ACCENTS and (start == 1 or not text[start - 2].isalnum()):
        start -= 1
    return start


def canonical_end(text: str, origin: Sequence[int], last: int) -> int:
    """Canonical end offset (exclusive) of a match whose last normalised character is `last`:
    one past its origin, extended over trailing combining marks and spacing accents ('µ̂', 'µˆ')."""
    end = origin[last] + 1
    while end < len(text) and (unicodedata.combining(text[end]) or text[end] in _SPACING_ACCENTS):
        end += 1
    return end
