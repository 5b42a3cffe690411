"""Repair of glyphs a PDF's font maps to the wrong code point, on evidence only.

Some TeX fonts carry an encoding that pdfium reads as Latin Extended letters: 'Ąnancial' for
financial, 'reĆect', 'Şall of themŤ' for quotation marks, 'Ű' for a dash, 'BankŠs'. A suspect
character is restored only when the document itself shows what it stands for:

* a ligature (fi, fl, ff, ffi, ffl) or an apostrophe when that reading turns the words holding the
  character into words the document or the library vocabulary holds (most of them, and clearly
  more than any other reading);
* a pair of quotation marks when one character only opens words and another only closes them,
  alternating through the document;
* an en dash when the character stands alone between spaces or between two digits.

Adobe Symbol's private-use pieces of big delimiters (U+F8E5-U+F8FE) have standard code points
and are always mapped. Whatever is applied is returned, per document, with its counts.
"""

from __future__ import annotations

import re
from collections import Counter

from ingest.parsing.vocabulary import library_vocabulary, words_of

LIGATURES = ("fi", "fl", "ff", "ffi", "ffl")
APOSTROPHE, OPEN_QUOTE, CLOSE_QUOTE, EN_DASH = "\u2019", "\u201c", "\u201d", "\u2013"
_SUFFIXES = ("s", "t", "d", "ll", "re", "ve", "")  # what follows an apostrophe
MIN_EVIDENCE = 3  # attested words (or positions) before a reading is believed
MIN_SHARE = 0.6  # ... and the share of the character's occurrences they make
POSITION_SHARE = 0.8  # quotes and dashes: share of occurrences in the telling position
# Adobe Symbol's private-use pieces of big delimiters -> the Unicode bracket pieces.
SYMBOL_PIECES = {
    0xF8E5: "\u23b7",
    0xF8E6: "\u23d0",
    0xF8E7: "\u23af",
    0xF8EB: "\u239b",
    0xF8EC: "\u239c",
    0xF8ED: "\u239d",
    0xF8EE: "\u23a1",
    0xF8EF: "\u23a2",
    0xF8F0: "\u23a3",
    0xF8F1: "\u23a7",
    0xF8F2: "\u23a8",
    0xF8F3: "\u23a9",
    0xF8F4: "\u23aa",
    0xF8F5: "\u23ae",
    0xF8F6: "\u239e",
    0xF8F7: "\u239f",
    0xF8F8: "\u23a0",
    0xF8F9: "\u23a4",
    0xF8FA: "\u23a5",
    0xF8FB: "\u23a6",
    0xF8FC: "\u23ab",
    0xF8FD: "\u23ac",
    0xF8FE: "\u23ad",
}
_TOKEN = re.compile(r"\S+")


def suspect(ch: str) -> bool:
    """Latin Extended-A/B letters: in an English text they are names at most, so a wrong map."""
    return 0x100 <= ord(ch) <= 0x24F


def _word_around(token: str) -> str:
    """The token without surrounding punctuation (keeps what is inside)."""
    return token.strip(".,;:!?()[]{}\"'`*")


def _ligature_votes(ch: str, tokens: list[str], known: set[str]) -> tuple[str | None, int, int]:
    """(best reading, attested words with it, words holding ch) for an in-word character."""
    holders = [
        w for t in tokens if ch in t and (w := _word_around(t)) != ch and any(c.isalpha() and c != ch for c in w)
    ]
    votes: Counter = Counter()
    for word in holders:
        for reading in LIGATURES:
            candidate = word.replace(ch, reading)
            if candidate.isascii() and candidate.isalpha() and candidate.lower() in known:
                votes[reading] += 1
        stem, _, suffix = word.partition(ch)
        if suffix.lower() in _SUFFIXES and stem.isalpha() and stem.lower() in known:
            votes[APOSTROPHE] += 1
    if not votes:
        return None, 0, len(holders)
    (best, n), *rest = votes.most_common(2) + [(None, 0)]
    runner_up = rest[0][1]
    return (best if n >= 2 * runner_up else None), n, len(holders)


def _positions(ch: str, text: str) -> Counter:
    where: Counter = Counter()
    for m in re.finditer(re.escape(ch), text):
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if before.isspace() and after.isspace():
            where["alone"] += 1
        elif before.isdigit() and after.isdigit():
            where["between"] += 1  # a range, 394-408 (a letter between letters proves nothing)
        if (before.isspace() or before in "([") and after.isalnum():
            where["opens"] += 1
        if (before.isalnum() or before in ".,;:!?)") and (after.isspace() or after in ".,;:!?)"):
            where["closes"] += 1
    return where


def _quote_pair(chars: list[str], text: str, counts: Counter) -> dict[str, str]:
    """One opening and one closing character, alternating in the text."""
    opens = [c for c in chars if _positions(c, text)["opens"] >= POSITION_SHARE * counts[c]]
    closes = [c for c in chars if _positions(c, text)["closes"] >= POSITION_SHARE * counts[c]]
    for o in opens:
        for c in closes:
            if o == c or min(counts[o], counts[c]) < MIN_EVIDENCE:
                continue
            sequence = [x for x in text if x in (o, c)]
            alternating = sum(1 for a, b in zip(sequence, sequence[1:]) if a != b)
            if alternating >= POSITION_SHARE * (len(sequence) - 1):
                return {o: OPEN_QUOTE, c: CLOSE_QUOTE}
    return {}


def infer_repairs(text: str, known: set[str] | None = None) -> dict[str, str]:
    """{wrong character: what it stands for} for the suspect characters of one document's text."""
    counts = Counter(ch for ch in text if suspect(ch))
    if not counts:
        return {}
    tokens = _TOKEN.findall(text)
    vocabulary = (known or set()) | words_of(text) | library_vocabulary()
    mapping: dict[str, str] = _quote_pair(list(counts), text, counts)
    for ch, n in counts.items():
        if ch in mapping or n < MIN_EVIDENCE:
            continue
        reading, attested, holders = _ligature_votes(ch, tokens, vocabulary)
        if reading and attested >= MIN_EVIDENCE and attested >= MIN_SHARE * holders:
            mapping[ch] = reading
            continue
        where = _positions(ch, text)
        if where["alone"] + where["between"] >= POSITION_SHARE * n:
            mapping[ch] = EN_DASH
    return mapping


def repair_table(mapping: dict[str, str]) -> dict[int, str]:
    """A str.translate table: the inferred repairs and the fixed delimiter pieces."""
    return {**SYMBOL_PIECES, **{ord(k): v for k, v in mapping.items()}}


def count_repairs(text: str, table: dict[int, str]) -> dict[str, int]:
    """{'Ą→fi': occurrences, ...} of what `table` changes in `text`."""
    counts = Counter(ch for ch in text if ord(ch) in table)
    return {f"{ch}\u2192{table[ord(ch)]}": n for ch, n in sorted(counts.items())}
