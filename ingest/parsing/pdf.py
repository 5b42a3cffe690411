"""The default PDF parser: pdfium text lines -> furniture removed -> typed blocks, with tables
re-read by pdfplumber only on the regions that look tabular."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium

from corpus.models import RawBlock
from ingest.parsing.glyph_repair import count_repairs, infer_repairs, repair_table
from ingest.parsing.glyphs import CID_MARK
from ingest.parsing.ligatures import LigatureRepair, restore_ligatures
from ingest.parsing.pdf_blocks import group_lines
from ingest.parsing.pdf_furniture import drop_plot_text, drop_running_lines, prose_fonts
from ingest.parsing.pdf_lines import Line, page_lines
from ingest.parsing.pdf_render import render
from ingest.parsing.pdf_roles import body_size, document_stats
from ingest.parsing.pdf_tables import extract_tables
from ingest.parsing.pdf_text import hyphenated_words, join_broken_blocks
from ingest.parsing.vocabulary import library_vocabulary, words_of

PARSER_NAME = "pdfium"
# A parse gives up past this time (checked between pages), so one pathological file cannot stall a
# batch: the library parses many pages a second, so a second a page is a wide margin
# (docs/measurements.md, *Ingestion*).
BASE_SECONDS, SECONDS_PER_PAGE = 30.0, 1.0


_UNREADABLE = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")  # what canonical text drops or cannot show


class ParseTimeout(ValueError):
    """The parse ran past its time bound; the document is set aside with this reason."""


@dataclass
class PdfParse:
    blocks: list[RawBlock]
    pages: int
    repairs: dict[str, int] = field(default_factory=dict)  # 'Ą→fi': occurrences restored
    joined_words: int = 0  # words rejoined across a blank line (page or column break)
    dropped_glyphs: int = 0  # table cells' glyphs without a Unicode map ('(cid:N)'), dropped
    read_chars: int = 0  # readable characters pdfium gave (no space, no control), before furniture went
    ligatures: dict[str, int] = field(default_factory=dict)  # 'rst→first': words whose lost ligature was restored


def read_lines(path: Path) -> tuple[list[list[Line]], list[float]]:
    """Every page's lines (pdfium reading order) and page heights; ParseTimeout past the bound."""
    doc = pdfium.PdfDocument(str(path))
    try:
        pages, heights = [], []
        deadline = time.monotonic() + BASE_SECONDS + SECONDS_PER_PAGE * len(doc)
        for index in range(len(doc)):
            if time.monotonic() > deadline:
                raise ParseTimeout(
                    f"parse stopped at page {index + 1} of {len(doc)}: over "
                    f"{BASE_SECONDS + SECONDS_PER_PAGE * len(doc):.0f} s"
                )
            page = doc[index]
            pages.append(page_lines(page, index + 1))
            heights.append(page.get_size()[1])
            page.close()
        return pages, heights
    finally:
        doc.close()


def repair_glyphs(pages: list[list[Line]]) -> tuple[dict[int, str], dict[str, int]]:
    """Restore, in place, the characters a font maps to wrong code points (glyph_repair);
    returns the translation table (for the tables re-read by pdfplumber) and what was changed."""
    text = "\n".join(ln.text for lines in pages for ln in lines)
    table = repair_table(infer_repairs(text))
    repairs = count_repairs(text, table)
    if repairs:
        for lines in pages:
            for ln in lines:
                ln.text = ln.text.translate(table)
    return table, repairs


def parse_pdf(path: Path, tables: bool = True, repair: bool = True) -> PdfParse:
    """`repair=False` keeps pdfium's characters and block breaks as they are (for measuring)."""
    pages, heights = read_lines(path)
    read_chars = sum(len(_UNREADABLE.sub("", ln.text)) for lines in pages for ln in lines)
    glyphs, repairs = repair_glyphs(pages) if repair else ({}, {})
    ligatures = restore_ligatures(pages) if repair else LigatureRepair()
    repairs.update(ligatures.characters)  # control characters read as ligatures ('\x1c→fi')
    pages = drop_running_lines(pages, heights)
    fonts, body = prose_fonts(pages), body_size(pages)
    pages = [drop_plot_text(lines, fonts, body) for lines in pages]
    stats = document_stats(pages)
    table_blocks: dict[int, RawBlock] = {}
    if tables:
        pages, table_blocks = extract_tables(path, pages, stats)
    keep_hyphen = hyphenated_words([ln.text for lines in pages for ln in lines])
    blocks: list[RawBlock] = []
    dropped = 0
    for group in group_lines(pages, heights, stats):
        if group.kind == "table":
            block = table_blocks[id(group.lines[0])]
            if CID_MARK.search(block.text):  # dropped, as canonical text drops pdfium's unmapped glyphs
                dropped += len(CID_MARK.findall(block.text))
                block = block.model_copy(update={"text": CID_MARK.sub("", block.text)})
            if glyphs:  # pdfplumber reads the same wrong code points
                for key, n in count_repairs(block.text, glyphs).items():
                    repairs[key] = repairs.get(key, 0) + n
                block = block.model_copy(update={"text": block.text.translate(glyphs)})
            blocks.append(block)
            continue
        block = render(group, keep_hyphen)
        if block.text.strip():
            blocks.append(block)
    joined = 0
    if repair:
        known = library_vocabulary() | words_of("\n".join(b.text for b in blocks))
        blocks, joined = join_broken_blocks(blocks, known, keep_hyphen)
    return PdfParse(blocks, len(heights), repairs, joined, dropped, read_chars, ligatures.words)
