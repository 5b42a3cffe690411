"""Parsing: a validated source file -> typed raw blocks in reading order (pure functions, no dagster).

PDF parsers: `pdfium` (default, chosen by benchmarks/parsers.py: ~60 pages/s with headings, display
formulas, code and pipe tables) and `mineru` (the MinerU flash tier, optional). Select with
`parse_source(..., parser=...)` or the QUANT_RAG_PDF_PARSER setting. Markdown has one parser.
A configured formula recogniser (ingest.parsing.formula_recogniser) then rewrites the display
formulas of a PDF as LaTeX; its name enters the parser version, so setting it re-parses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from corpus.models import OcrRecord, RawBlock, TextQuality
from corpus.text.canonical import clean_text
from corpus.versions import PARSER_VERSION
from ingest.parsing.formula_recogniser import configured as configured_recogniser
from ingest.parsing.formula_recogniser import recognise_formulas
from ingest.parsing.garbled import garbled_score, is_garbled
from ingest.parsing.glyphs import repair_surrogates
from ingest.parsing.markdown import parse_markdown
from ingest.parsing.quality import measure_quality

PDF_PARSER_SETTING = "QUANT_RAG_PDF_PARSER"
DEFAULT_PDF_PARSER = "pdfium"
PDF_PARSERS = ("pdfium", "mineru")
MARKDOWN_PARSER = "markdown-it"


@dataclass
class ParseOutput:
    raw_blocks: list[RawBlock]
    parser: str
    parser_version: str
    pages: int | None
    garbled_text: bool
    garbled_score: float
    quality: TextQuality | None = None
    read_chars: int | None = None  # readable characters the PDF parser read (None: not counted)
    scan_reason: str | None = None  # why a PDF without a text layer was not read by OCR
    ocr: OcrRecord | None = None  # what OCR read of a PDF without a text layer

    def no_text_reason(self) -> str:
        """Why a parse that yields no text yields none, for the person who reads the set-aside list."""
        pages = f" on its {self.pages} page(s)" if self.pages else ""
        if self.scan_reason:
            return self.scan_reason
        if self.read_chars:
            return (
                f"no text kept: the {self.read_chars} characters pdfium read{pages} were all taken for "
                "page furniture (running headers, page numbers, plot labels)"
            )
        if self.parser == MARKDOWN_PARSER:
            return "no text could be extracted (the Markdown holds only comments, rules or markup)"
        return f"no text could be extracted (scanned or empty document: no readable character{pages})"


def parser_version(parser: str) -> str:
    """The version recorded with a parse: the one project-wide parser version plus the parser
    (and, for PDFs, the formula recogniser when one is configured)."""
    recogniser = configured_recogniser() if parser != MARKDOWN_PARSER else None
    return f"{PARSER_VERSION}+{parser}" + (f"+formulas={recogniser}" if recogniser else "")


def pdf_parser_name(parser: str | None = None) -> str:
    name = parser or os.environ.get(PDF_PARSER_SETTING) or DEFAULT_PDF_PARSER
    if name not in PDF_PARSERS:
        raise ValueError(f"unknown PDF parser {name!r} (choose one of: {', '.join(PDF_PARSERS)})")
    return name


def _parse_pdf(path: Path, name: str, repair: bool) -> tuple[list[RawBlock], int, dict, int | None]:
    """Blocks, pages, what the parser repaired or dropped (measure_quality's keywords), and the
    characters it read (None: not counted)."""
    if name == "mineru":
        from ingest.parsing.mineru import parse_pdf_mineru

        return *parse_pdf_mineru(path), {}, None
    from ingest.parsing.pdf import parse_pdf
    from ingest.parsing.pdf_figures import add_figure_regions

    result = parse_pdf(path, repair=repair)
    return (
        add_figure_regions(path, result.blocks),
        result.pages,
        {
            "repairs": result.repairs,
            "joined_words": result.joined_words,
            "dropped_glyphs": result.dropped_glyphs,
            "ligatures": result.ligatures,
        },
        result.read_chars,
    )


def parse_source(path: Path, fmt: str, parser: str | None = None, repair: bool = True) -> ParseOutput:
    """Parse a source already accepted by `validate.detect_format` (fmt is its answer).
    `repair=False` leaves wrongly mapped glyphs and page-broken words as pdfium gives them (for
    measuring what the repairs change; never for the served text)."""
    path = Path(path)
    done: dict = {}
    read_chars = None
    scan = None
    if fmt == "markdown":
        name, pages = MARKDOWN_PARSER, None
        # The canonical rule before markdown-it, which would turn a NUL into U+FFFD on its own.
        blocks = parse_markdown(clean_text(path.read_text(encoding="utf-8")))
    elif fmt == "pdf":
        name = pdf_parser_name(parser)
        blocks, pages, done, read_chars = _parse_pdf(path, name, repair)
        if read_chars == 0:  # no text layer on any page: a scan, read by OCR where Tesseract is
            from ingest.parsing.ocr import read_scan

            scan = read_scan(path, pages)
            blocks = scan.blocks
        blocks = recognise_formulas(path, blocks)
    else:
        raise ValueError(f"unknown source format {fmt!r} (expected 'pdf' or 'markdown')")
    # pdfium's own surrogates are joined where it reads them (pdf_lines); this holds for every
    # parser (pdfplumber's table cells, MinerU): canonical text is always valid UTF-8
    blocks = [
        b if (text := repair_surrogates(b.text)) is b.text else b.model_copy(update={"text": text}) for b in blocks
    ]
    score = garbled_score("\n".join(b.text for b in blocks))
    quality = measure_quality(blocks, **done)
    garbled = is_garbled(score) or quality.low_quality
    reason, ocr = (scan.reason, scan.record) if scan is not None else (None, None)
    return ParseOutput(blocks, name, parser_version(name), pages, garbled, score, quality, read_chars, reason, ocr)
