"""Where a text may be cut: docs/DESIGN.md §4, the one implementation shared by chunker and server.

A cut at position p keeps text[:p]. It is forbidden inside a word (previous char a word char or
a backslash, next a word char), strictly inside a Markdown table row, and strictly inside a
protected span: `$$…$$`, unescaped `$…$`, `\\[…\\]`, `\\(…\\)`, `\\begin{env}…\\end{env}` and fenced
code. Spans are found in one forward pass; an opener that never closes is ignored for that
construct (and reported as unbalanced) so one stray `$` cannot freeze the rest of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BEGIN_RE = re.compile(r"\\begin\{([A-Za-z*]+)\}")
_SENTENCE_END_RE = re.compile(r"[.!?][\"')\]»”’]*\s+")
# Only these characters can open a construct; the scan jumps between them (served passages are
# scanned on every search, and a character-by-character loop was too slow for that).
_TRIGGER_RE = re.compile(r"[`\\$]")
# \w is str.isalnum() or "_" (the re module's definition), so these agree with _is_word.
_INSIDE_WORD_RE = re.compile(r"(?<=[\w\\])\w")
_TABLE_ROW_RE = re.compile(r"(?m)^[^\S\n]*\|[^\n]*")
MAX_TOLERANCE = 400


@dataclass(frozen=True)
class Scan:
    spans: list[tuple[int, int, str]]  # protected [start, end) with the construct's name
    unbalanced: frozenset[str]  # constructs whose opener never closed


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _scan(text: str, disabled: frozenset[str]) -> tuple[list[tuple[int, int, str]], str | None]:
    """One pass; returns spans and the name of a construct left open at the end (if any)."""
    spans: list[tuple[int, int, str]] = []
    n = len(text)
    i = 0
    while i < n:
        trigger = _TRIGGER_RE.search(text, i)
        if trigger is None:
            break
        i = trigger.start()
        ch = text[i]
        at_line_start = i == 0 or text[i - 1] == "\n"
        if at_line_start and "fence" not in disabled and text.startswith("```", i):
            close = text.find("\n```", i + 3)
            if close < 0:
                return spans, "fence"
            end = text.find("\n", close + 4)
            end = n if end < 0 else end
            spans.append((i, end, "fence"))
            i = end
            continue
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "[(" and f"\\{nxt}" not in disabled:
                closer = "\\]" if nxt == "[" else "\\)"
                close = text.find(closer, i + 2)
                if close < 0:
                    return spans, f"\\{nxt}"
                spans.append((i, close + 2, f"\\{nxt}"))
                i = close + 2
                continue
            m = _BEGIN_RE.match(text, i)
            if m and "begin" not in disabled:
                end = _matching_end(text, m.group(1), m.end())
                if end < 0:
                    return spans, "begin"
                spans.append((i, end, "begin"))
                i = end
                continue
            i += 2  # an escaped character (\$ included) is literal
            continue
        if ch == "$":
            if text.startswith("$$", i):
                if "$$" not in disabled:
                    close = text.find("$$", i + 2)
                    if close < 0:
                        return spans, "$$"
                    spans.append((i, close + 2, "$$"))
                    i = close + 2
                    continue
                i += 2
                continue
            if "$" not in disabled:
                close = _inline_close(text, i + 1)
                if close >= 0:
                    spans.append((i, close + 1, "$"))
                    i = close + 1
                    continue
                if close == -2:
                    return spans, "$"
        i += 1
    return spans, None


def _inline_close(text: str, j: int) -> int:
    """Index of the single `$` closing an inline formula opened before j; -1 if a blank line
    comes first (the opener was a literal dollar), -2 if the text ends first."""
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "$":
            return j
        if c == "\n" and text.startswith("\n\n", j):
            return -1
        j += 1
    return -2


def _matching_end(text: str, env: str, j: int) -> int:
    begin, end = f"\\begin{{{env}}}", f"\\end{{{env}}}"
    depth = 1
    while depth:
        nb, ne = text.find(begin, j), text.find(end, j)
        if ne < 0:
            return -1
        if 0 <= nb < ne:
            depth, j = depth + 1, nb + len(begin)
        else:
            depth, j = depth - 1, ne + len(end)
    return j


def scan(text: str) -> Scan:
    """Protected spans of `text`, retrying without any construct that is left open."""
    disabled: set[str] = set()
    while True:
        spans, open_construct = _scan(text, frozenset(disabled))
        if open_construct is None:
            return Scan(spans, frozenset(disabled))
        disabled.add(open_construct)


def forbidden_mask(text: str) -> bytearray:
    """mask[p] == 1 when a cut at p (0 <= p <= len) is forbidden."""
    n = len(text)
    mask = bytearray(n + 1)
    for start, end, _ in scan(text).spans:
        if end > start + 1:
            mask[start + 1 : end] = b"\x01" * (end - start - 1)
    for m in _INSIDE_WORD_RE.finditer(text):  # a word character after a word character or a backslash
        mask[m.start()] = 1
    for m in _TABLE_ROW_RE.finditer(text):  # strictly inside a table row
        start, end = m.start() + 1, m.end()
        if end > start:
            mask[start:end] = b"\x01" * (end - start)
    return mask


def is_safe_cut(text: str, p: int, mask: bytearray | None = None) -> bool:
    """True when keeping text[:p] breaks no word, table row or protected span."""
    if p <= 0 or p >= len(text):
        return True
    return not (mask if mask is not None else forbidden_mask(text))[p]


def forbidden_positions(text: str, positions: list[int]) -> list[int]:
    """The subset of `positions` where a cut would be forbidden (for checks)."""
    mask = forbidden_mask(text)
    return [p for p in positions if 0 < p < len(text) and mask[p]]


def find_cut(text: str, cap: int, tolerance: int = MAX_TOLERANCE) -> int:
    """Cut position for serving at most `cap` characters; len(text) when it fits. Never 0.

    Walk back from the cap to the last safe position; within min(tolerance, cap // 10) before it,
    prefer a paragraph break, then a sentence end.
    """
    if len(text) <= cap:
        return len(text)
    cap = max(cap, 1)
    mask = forbidden_mask(text)
    best = next((p for p in range(cap, 0, -1) if not mask[p]), None)
    if best is None:
        best = next((p for p in range(cap, 0, -1) if not (_is_word(text[p]) and _is_word(text[p - 1]))), cap)
        return best
    window = min(tolerance, cap // 10)
    floor = max(1, best - window)
    para = text.rfind("\n\n", floor, best)
    if para > 0 and not mask[para]:
        return para
    for m in reversed(list(_SENTENCE_END_RE.finditer(text, floor, best))):
        if m.end() <= best and not mask[m.end()]:
            return m.end()
    return best
