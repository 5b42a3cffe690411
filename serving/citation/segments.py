"""Ellipsis quotes: where the parts of a quote with `…` or `...` sit in a document.

An ellipsis skips a few words inside one passage. Two true fragments of one document joined by
an ellipsis may say together what the document never says (a title, `…`, a sentence 12,000
characters later), so the parts join only in order and either within one passage or with at most
MAX_ELLIPSIS_GAP canonical characters between consecutive parts; otherwise the quote is stitched.
Dots the document itself holds (`σ1, σ2, ..., σn`) are no elision: parts that meet around the
document's own `...` or `…` match as one span (`literal`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from serving.citation.text import NormalisedDocument, normalised_hits

MAX_ELLIPSIS_GAP = 300  # canonical characters an ellipsis may skip between parts outside one passage
Range = tuple[int, int]  # canonical [start, end)
# The document's own dots between two parts, with the spaces and list punctuation around them
# ('σ2 , ..., σn', 'x2, . . . , xn'): the quote's ellipsis stands for them, it skips no words.
_OWN_DOTS_RE = re.compile(r"[\s,;:]*\[?(?:…|\.\s?\.\s?\.)\]?[\s,;:]*")


@dataclass
class SegmentMatch:
    """How the parts of an ellipsis quote sit in a document: `ranges` when they join (in order,
    within one passage or at most MAX_ELLIPSIS_GAP apart), else `failed` (the first part with no
    place in order) or `stitched` (an in-order placement whose parts lie too far apart)."""

    ranges: list[Range] | None = None
    raw: bool = False
    failed: int | None = None
    stitched: list[Range] | None = None
    literal: Range | None = None


def _literal(doc: NormalisedDocument, hits: list[list[Range]]) -> Range | None:
    """The first span where the parts follow one another with only the document's own ellipsis
    between each two (_OWN_DOTS_RE): the quote's dots are the document's."""
    starts = [{s: e for s, e in ranges} for ranges in hits]
    for start, end in hits[0]:
        for following in starts[1:]:
            m = _OWN_DOTS_RE.match(doc.text, end)
            if m is None or m.end() not in following:
                break
            end = following[m.end()]
        else:
            return start, end
    return None


def _tighten(hits: list[list[Range]], chain: list[Range], floor: int) -> list[Range]:
    """Pull earlier parts towards the later ones (the latest occurrence still before the next)."""
    for k in range(len(chain) - 2, -1, -1):
        later = [h for h in hits[k] if floor <= h[0] and h[1] <= chain[k + 1][0]]
        chain[k] = later[-1] if later else chain[k]
    return chain


def _greedy(hits: list[list[Range]], start: int = 0, end: int | None = None) -> list[Range] | int:
    """Earliest in-order placement inside [start, end); the index of the first part that has none."""
    chain, pos = [], start
    for k, ranges in enumerate(hits):
        i = bisect_left(ranges, (pos, -1))
        if i == len(ranges) or (end is not None and ranges[i][1] > end):
            return k
        chain.append(ranges[i])
        pos = ranges[i][1]
    return _tighten(hits, chain, start)


def _within_gap(hits: list[list[Range]]) -> list[Range] | None:
    """An in-order placement with every gap at most MAX_ELLIPSIS_GAP (the tightest one), or None."""
    reach = [hits[0]]
    for ranges in hits[1:]:
        ends = sorted(e for _, e in reach[-1])
        # h is reachable when some reachable end lies in [h.start - MAX_ELLIPSIS_GAP, h.start]
        reach.append([h for h in ranges if bisect_right(ends, h[0]) > bisect_left(ends, h[0] - MAX_ELLIPSIS_GAP)])
        if not reach[-1]:
            return None
    chain = [reach[-1][0]]
    for k in range(len(hits) - 2, -1, -1):
        chain.insert(
            0, max((h for h in reach[k] if chain[0][0] - MAX_ELLIPSIS_GAP <= h[1] <= chain[0][0]), key=lambda h: h[1])
        )
    return chain


def match_segments(doc: NormalisedDocument, segments: list[str], passages: list[list[Range]]) -> SegmentMatch:
    """Ordered normalised match of an ellipsis quote's parts. The parts join when consecutive ones
    are at most MAX_ELLIPSIS_GAP canonical characters apart, or when all lie in one passage
    (`passages`: the canonical ranges of each passage of the document): an ellipsis skips words
    inside a passage; two true fragments far apart, joined, may say what the document does not.
    Parts that meet around the document's own dots are one span (`literal`), whatever their length."""
    hits = [normalised_hits(doc, s) for s in segments]
    if all(hits) and (literal := _literal(doc, hits)) is not None:
        return SegmentMatch(literal=literal)
    chain = _greedy(hits)
    if isinstance(chain, int):
        return SegmentMatch(failed=chain)
    joined = _within_gap(hits)
    for ranges in passages if joined is None else []:
        for start, end in ranges:
            placed = _greedy(hits, start, end)
            if not isinstance(placed, int):
                joined = placed
                break
        if joined is not None:
            break
    if joined is None:
        return SegmentMatch(stitched=chain)
    raw = all(doc.text[s:e] == seg for (s, e), seg in zip(joined, segments))
    return SegmentMatch(ranges=joined, raw=raw)
