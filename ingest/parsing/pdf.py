"""The default PDF parser: pdfium text lines -> furniture removed -> typed blocks, with tables
re-read by pdfplumber only on the regions that look tabular."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium

from ingest.parsing.pdf_blocks import group_lines
from ingest.parsing.pdf_render import render
from ingest.parsing.pdf_furniture import drop_plot_text, drop_running_lines, prose_fonts
from ingest.parsing.pdf_lines import Line, page_lines
from ingest.parsing.pdf_roles import body_size, document_stats
from ingest.parsing.pdf_tables import extract_tables
from ingest.parsing.pdf_text import hyphenated_words
from corpus.models import RawBlock

PARSER_NAME = "pdfium"


@dataclass
class PdfParse:
    blocks: list[RawBlock]
    pages: int


def read_lines(path: Path) -> tuple[list[list[Line]], list[float]]:
    """Every page's lines (pdfium reading order) and page heights."""
    doc = pdfium.PdfDocument(str(path))
    try:
        pages, heights = [], []
        for index in range(len(doc)):
            page = doc[index]
            pages.append(page_lines(page, index + 1))
            heights.append(page.get_size()[1])
            page.close()
        return pages, heights
    finally:
        doc.close()


def parse_pdf(path: Path, tables: bool = True) -> PdfParse:
    pages, heights = read_lines(path)
    pages = drop_running_lines(pages, heights)
    fonts, body = prose_fonts(pages), body_size(pages)
    pages = [drop_plot_text(lines, fonts, body) for lines in pages]
    stats = document_stats(pages)
    table_blocks: dict[int, RawBlock] = {}
    if tables:
        pages, table_blocks = extract_tables(path, pages, stats)
    keep_hyphen = hyphenated_words([ln.text for lines in pages for ln in lines])
    blocks: list[RawBlock] = []
    for group in group_lines(pages, heights, stats):
        if group.kind == "table":
            blocks.append(table_blocks[id(group.lines[0])])
            continue
        block = render(group, keep_hyphen)
        if block.text.strip():
            blocks.append(block)
    return PdfParse(blocks, len(heights))
