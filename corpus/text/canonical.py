"""Canonical text: parsed blocks in reading order joined by a blank line (a coordinate system)."""

from __future__ import annotations

import re

from corpus.models import Block, RawBlock

BLOCK_SEPARATOR = "\n\n"
# C0 and C1 control characters other than tab and newline (a carriage return is a line break first).
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """The one rule for characters in canonical text, whatever the parser: one newline convention
    (a stray \\r would shift offsets for any reader that translates it), and no control character
    but tab and newline. Controls are dropped, not replaced: in the bundled PDFs they are glyphs of
    fonts without a Unicode map (TeX's big delimiters, a bullet), which no reader can quote, and a
    NUL would end the text for a C reader."""
    return CONTROL_CHARS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def assemble_canonical(raw_blocks: list[RawBlock]) -> tuple[str, list[Block]]:
    """Join block texts with BLOCK_SEPARATOR; return the text and the typed spans.

    Empty blocks are dropped; each block's text is stripped of surrounding blank lines so the
    separator is the only thing between two blocks.
    """
    parts: list[str] = []
    blocks: list[Block] = []
    cursor = 0
    for raw in raw_blocks:
        text = clean_text(raw.text).strip("\n").rstrip()
        if not text.strip():
            continue
        if parts:
            cursor += len(BLOCK_SEPARATOR)
        blocks.append(
            Block(
                kind=raw.kind,
                start=cursor,
                end=cursor + len(text),
                page_start=raw.page_start,
                page_end=raw.page_end,
                level=raw.level,
                regions=raw.regions,
                formula_text_unreliable=raw.formula_text_unreliable,
                recognised_by=raw.recognised_by,
                figure=raw.figure,
            )
        )
        parts.append(text)
        cursor += len(text)
    return BLOCK_SEPARATOR.join(parts), blocks
