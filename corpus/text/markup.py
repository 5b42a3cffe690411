"""Markdown markup skipped before citation matching (docs/DESIGN.md §5), with a map back to the text.

An agent quotes the words, not the markup: a table row read as "Mean 0.5 0.3", inline code
without its backticks, a code line without the fence above it. So table pipes and separator
rows, code fences and backticks, emphasis markers and heading hashes are removed (pipes become
a space, so cells stay apart), everything else is kept verbatim. The rules look only at the
line a character is on, so the same function serves quotes and documents; one exception: inside
a fenced code block a line's leading `#` is text (an R output line `## x 0.5`, a comment), not a
heading. A quote rarely holds the fence, so it is also read with `headings=False`
(serving.citation_text tries both).
"""

from __future__ import annotations

import re
from bisect import bisect_left

# Two scans, each fast on plain text (a combined pattern defeats the engine's prefix search):
# line rules, then runs of inline markers; an inline run inside a line already handled is skipped.
_LINE_RE = re.compile(
    r"^[ \t]*(?:(?P<fence>(?:`{3,}|~{3,})[^\n]*)|(?P<table>\|[^\n]*)|(?P<heading>#{1,6})(?=[ \t]))", re.MULTILINE
)
_INLINE_RE = re.compile(r"[`*_]+")
_CELL_RE = re.compile(r"\||[`*_]+")
_SEPARATOR_ROW_RE = re.compile(r"\|[ \t:|-]*-[ \t:|-]*")  # |---|:--:|


Pieces = list[tuple[int, int]]  # (start in the bare text, start in the original text), ascending


def skip_markup(text: str, headings: bool = True) -> tuple[str, Pieces | None]:
    """`text` without its Markdown markup, and the pieces it was cut into: each kept run of
    characters as (its start in the result, its start in `text`). None when there was no markup
    (the text comes back unchanged). Runs, not a per-character map: a 200k-character document
    keeps a few thousand pieces, and `to_original` maps a sorted list of offsets in one pass.
    A heading's hashes go only outside a fenced code block, and only when `headings`."""
    # Every match sets exactly one named group, so `lastgroup` is never None here.
    lines = [(m.start(kind), m.end(), kind) for m in _LINE_RE.finditer(text) if (kind := m.lastgroup)]
    inline = [(m.start(), m.end(), "inline") for m in _INLINE_RE.finditer(text)]
    out = _Out()
    pos = 0
    fence = ""  # the open fence's marker (``` or ~~~ run), "" outside a code block
    for start, end, kind in sorted(lines + inline, key=lambda e: (e[0], -e[1])):  # lines first
        if start < pos:
            continue  # inside a fence, heading or table line already handled
        if kind == "fence":
            fence = _fence_after(fence, text[start:end])
        elif kind == "heading" and (fence or not headings):
            continue  # in code, `## x` is text
        if kind == "inline":
            span = _inline_markup(text, start, end)
            if span is None:
                continue
            start, end = span
        out.keep(text, pos, start)
        pos = end
        if kind == "table":
            _table_line(text, start, end, out)
    if pos == 0:
        return text, None
    out.keep(text, pos, len(text))
    return "".join(out.parts), out.pieces


def to_original(offsets: list[int], pieces: Pieces | None) -> list[int]:
    """Map ascending offsets in the bare text back to the original text."""
    if pieces is None:
        return offsets
    mapped: list[int] = []
    lo = 0
    for k, (bare, original) in enumerate(pieces):
        hi = bisect_left(offsets, pieces[k + 1][0], lo) if k + 1 < len(pieces) else len(offsets)
        shift = original - bare
        mapped.extend(offsets[lo:hi] if shift == 0 else map(shift.__add__, offsets[lo:hi]))
        lo = hi
    return mapped


class _Out:
    """The bare text as parts, and where each kept run came from."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pieces: Pieces = []
        self.length = 0

    def keep(self, text: str, start: int, end: int, replacement: str | None = None) -> None:
        if end > start:
            self.parts.append(text[start:end] if replacement is None else replacement)
            self.pieces.append((self.length, start))
            self.length += end - start


def _fence_after(fence: str, line: str) -> str:
    """The open fence after a fence line: it opens one outside code; inside, a bare run of the
    same character at least as long closes it (CommonMark), anything else is code."""
    marker = line[: len(line) - len(line.lstrip(line[0]))]
    if not fence:
        return marker
    closes = marker[0] == fence[0] and len(marker) >= len(fence) and not line[len(marker) :].strip()
    return "" if closes else fence


def _inline_markup(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span to drop in a run of ` * _ characters: backticks, or an emphasis marker."""
    run = text[start:end]
    if run.strip("`") == "":
        return start, end
    return (start, end) if "`" not in run and _is_emphasis(text, start, end) else None


def _is_emphasis(s: str, start: int, end: int) -> bool:
    """A run of 1-3 * or _ opening a word (after a non-word, before a non-space) or closing one
    (after a non-space, before a non-word): `**bold**`, `_it_`; not `a * b`, `log_ret`, `***`."""
    if end - start > 3:
        return False  # a rule (**** or ____) or a blank to fill in is text
    before = s[start - 1] if start > 0 else " "
    after = s[end] if end < len(s) else " "
    opening = not (before.isalnum() or before == "_") and not after.isspace()
    closing = not before.isspace() and not (after.isalnum() or after == "_")
    return opening or closing


def _table_line(s: str, start: int, end: int, out: _Out) -> None:
    """A table row: pipes become spaces, cell markup goes; a separator row goes entirely."""
    if _SEPARATOR_ROW_RE.fullmatch(s, start, end):
        return
    pos = start
    for m in _CELL_RE.finditer(s, start, end):
        pipe = m.group() == "|"
        if not pipe and _inline_markup(s, m.start(), m.end()) is None:
            continue
        out.keep(s, pos, m.start())
        if pipe:
            out.keep(s, m.start(), m.end(), " ")
        pos = m.end()
    out.keep(s, pos, end)
