"""One parse of each bundled library file per test process (one home for it).

Several tests read the parser's output over the whole library (the garbled flag, first-page
metadata, chunking every PDF, the gold quotes of the question sets); none of them changes it, so
each file is parsed once and every caller gets its own copy of the blocks."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

from ingest.parsing import ParseOutput, parse_source, pdf_parser_name


@cache
def _parse(path: Path, fmt: str, parser: str | None) -> ParseOutput:
    return parse_source(path, fmt, parser)


def parsed(path: Path, fmt: str, parser: str | None = None) -> ParseOutput:
    """`parse_source(path, fmt, parser)`, parsed once per process (the PDF parser resolved first, so
    a QUANT_RAG_PDF_PARSER setting still chooses it); a private deep copy for the caller."""
    name = pdf_parser_name(parser) if fmt == "pdf" else None
    return copy.deepcopy(_parse(Path(path).resolve(), fmt, name))
