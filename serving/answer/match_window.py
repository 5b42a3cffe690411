"""The part of a passage that matches a search: a window of whole sentences (docs/DESIGN.md §4).

A search's default answer shows, per hit, the sentences that hold most of the search's terms
rather than the whole passage, so an agent decides what to read from a few hundred characters.
The passage is split into units at safe cut positions (corpus.text.safe_cut): sentence ends and
line ends, never inside a word, a formula, a table row or fenced code; a unit longer than the
window is split further at its last safe position within the window. The window is the run of
consecutive units, at most `window` characters, whose distinct terms weigh most; a term of any
searched input (the question, a rephrasing, the hypothetical passage) weighs its library IDF
(weighing the caller's inputs below the question showed fewer gold quotes on dev).
The run is then widened by the whole units around it (the following first) up to the window;
with no term in the passage (a meaning-only hit), the window is the passage's start.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from corpus.text.safe_cut import forbidden_mask

_BOUNDARY_RE = re.compile(r"[.!?;:][\"')\]»”’]*[ \t]+|\n+")


@dataclass(frozen=True)
class Window:
    start: int  # passage-relative, a safe position
    end: int  # passage-relative, a safe position
    weight: float  # the summed weight of the distinct terms it holds (0: the passage's start)


def _units(text: str, window: int, mask: bytearray) -> list[tuple[int, int]]:
    """Consecutive [start, end) spans covering `text`, each ending at a safe position."""
    cuts = [m.end() for m in _BOUNDARY_RE.finditer(text) if m.end() < len(text) and not mask[m.end()]]
    bounds = [0, *cuts, len(text)]
    units = []
    for start, end in zip(bounds, bounds[1:]):
        while end - start > window:  # a long sentence or a paragraph without one: cut it safely
            # the last safe position within the window, else (a structure longer than the window,
            # which stays whole) the first one after it
            cut = next((q for q in range(start + window, start, -1) if not mask[q]), None)
            if cut is None:
                cut = next((q for q in range(start + window, end) if not mask[q]), end)
            if cut >= end:
                break
            units.append((start, cut))
            start = cut
        units.append((start, end))
    return [(s, e) for s, e in units if e > s]


def term_weights(
    texts: Iterable[str], terms: Callable[[str], list[str]], idf: Callable[[str], float]
) -> dict[str, float]:
    """Each term of the searched texts with its weight, its IDF in the library."""
    return {term: idf(term) for text in texts for term in terms(text)}


def match_window(text: str, weights: dict[str, float], terms: Callable[[str], list[str]], window: int) -> Window:
    """The run of whole units of `text`, at most `window` characters (one unit may exceed it only
    when it cannot be cut safely), whose distinct terms weigh most; the earliest on a tie."""
    if len(text) <= window:
        return Window(0, len(text), 0.0)
    mask = forbidden_mask(text)
    units = _units(text, window, mask)
    unit_terms = [{t for t in terms(text[s:e]) if t in weights} for s, e in units]
    best = Window(units[0][0], units[0][1], 0.0)
    for i in range(len(units)):
        held: set[str] = set()
        for j in range(i, len(units)):
            if j > i and units[j][1] - units[i][0] > window:
                break
            held |= unit_terms[j]
            score = math.fsum(weights[t] for t in held)  # exact: a set's order moves no last bit
            if score > best.weight:
                best = Window(units[i][0], units[j][1], score)
    first = next(i for i, u in enumerate(units) if u[0] == best.start)
    last = next(i for i, u in enumerate(units) if u[1] == best.end)
    if best.weight == 0.0:  # nothing lexical in common: show the start (its first visible unit)
        first = last = next((i for i, (s, e) in enumerate(units) if text[s:e].strip()), 0)
    first, last = _widen(units, first, last, window)
    return _trim(text, mask, Window(units[first][0], units[last][1], best.weight))


def _widen(units: list[tuple[int, int]], first: int, last: int, window: int) -> tuple[int, int]:
    """The run grown by whole units, the following one first, while it stays within `window`:
    the sentences around a match are its context."""
    while True:
        if last + 1 < len(units) and units[last + 1][1] - units[first][0] <= window:
            last += 1
        elif first > 0 and units[last][1] - units[first - 1][0] <= window:
            first -= 1
        else:
            return first, last


def _trim(text: str, mask: bytearray, found: Window) -> Window:
    """The window without the whitespace at its edges, where both ends stay safe positions."""
    start, end = found.start, found.end
    while start < end and text[start].isspace() and not mask[start + 1]:
        start += 1
    while end > start and text[end - 1].isspace() and not mask[end - 1]:
        end -= 1
    return Window(start, end, found.weight)
