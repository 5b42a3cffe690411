"""Integrity rules over stored passages, shared by inline and corpus-wide asset checks."""

from __future__ import annotations

from corpus.models import Passage
from corpus.reading.reader import read_passages
from corpus.state.layout import StateLayout, read_text_exact
from corpus.text.safe_cut import forbidden_mask


def load_passages(layout: StateLayout, document_id: str) -> list[Passage]:
    return read_passages(layout.passages(document_id))


def forbidden_cuts(layout: StateLayout, document_ids: list[str]) -> list[dict]:
    """Passage boundaries that fall where docs/DESIGN.md §4 forbids a cut in the canonical text."""
    problems = []
    for document_id in document_ids:
        canonical = read_text_exact(layout.canonical_text(document_id))
        mask = forbidden_mask(canonical)
        for passage in load_passages(layout, document_id):
            if passage.granularity != "exact":
                continue
            for start, end in passage.ranges:
                for position in (start, end):
                    if 0 < position < len(canonical) and mask[position]:
                        problems.append(
                            {
                                "chunk_id": passage.chunk_id,
                                "position": position,
                                "context": canonical[max(0, position - 30) : position + 30],
                            }
                        )
    return problems


def anchor_mismatches(layout: StateLayout, document_ids: list[str]) -> list[str]:
    """Chunk ids whose exact anchor does not reproduce the passage text."""
    bad = []
    for document_id in document_ids:
        canonical = read_text_exact(layout.canonical_text(document_id))
        for passage in load_passages(layout, document_id):
            if passage.granularity == "exact":
                exact = len(passage.ranges) == 1 and canonical[slice(*passage.ranges[0])] == passage.text
                if not exact:
                    bad.append(passage.chunk_id)
            elif any(not (0 <= s < e <= len(canonical)) for s, e in passage.ranges):
                bad.append(passage.chunk_id)
    return bad
