"""Canonical text: parsed blocks in reading order joined by a blank line (a coordinate system)."""

from __future__ import annotations

from corpus.models import Block, RawBlock

BLOCK_SEPARATOR = "\n\n"


def assemble_canonical(raw_blocks: list[RawBlock]) -> tuple[str, list[Block]]:
    """Join block texts with BLOCK_SEPARATOR; return the text and the typed spans.

    Empty blocks are dropped; each block's text is stripped of surrounding blank lines so the
    separator is the only thing between two blocks.
    """
    parts: list[str] = []
    blocks: list[Block] = []
    cursor = 0
    for raw in raw_blocks:
        # One newline convention: a stray \r would shift offsets for any reader that translates it.
        text = raw.text.replace("\r\n", "\n").replace("\r", "\n").strip("\n").rstrip()
        if not text.strip():
            continue
        if parts:
            cursor += len(BLOCK_SEPARATOR)
        blocks.append(Block(kind=raw.kind, start=cursor, end=cursor + len(text),
                            page_start=raw.page_start, page_end=raw.page_end, level=raw.level))
        parts.append(text)
        cursor += len(text)
    return BLOCK_SEPARATOR.join(parts), blocks
