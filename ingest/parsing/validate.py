"""Source validation: decide a file's format or reject it with a stated reason, before any parse.

A PDF whose envelope is damaged (a stale 'startxref', no '%%EOF', bytes after it) is still
accepted when pdfium opens it and reads text from it: such damage is recorded as a warning with
the document, and refused only when pdfium cannot open the file or reads no text from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

PDF_SUFFIXES = {".pdf"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
PDF_MAGIC = b"%PDF-"
TAIL_BYTES = 2048  # where a complete PDF keeps its trailer
MAX_PAGES = 5000  # the library's longest PDF has 50; a page tree claiming more is refused
# before a parse spends minutes on it
# A Markdown source above this size is refused unread: far above the library's largest. Parsing
# and chunking one at the bound, one line or paragraphs, peaks under MARKDOWN_PEAK_MB resident
# (tests/ingest/test_source_bounds.py holds it; an unbounded one-line file exhausted a batch's
# memory: docs/measurements.md, *Ingestion*).
MAX_MARKDOWN_BYTES = 4_000_000
MARKDOWN_PEAK_MB = 150
_STARTXREF = re.compile(rb"startxref\s+(\d+)")
_XREF_AT = re.compile(rb"\s*(xref|\d+\s+\d+\s+obj)")
_ENCRYPT = re.compile(rb"/Encrypt\b")
_PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?!s)\b")
_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm\b")  # page objects may hide in it, compressed
NO_EOF = "no '%%EOF' marker at the end of the file"
STALE_XREF = "'startxref' does not point to a cross-reference table"


class RejectedSource(Exception):
    """A source file that cannot enter the corpus; `reason` says why, for a person to read."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path.name}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class SourceCheck:
    """An accepted source: its format, and what is wrong with it that did not stop pdfium."""

    format: Literal["pdf", "markdown"]
    warnings: tuple[str, ...] = ()


def _pdf_envelope(path: Path, data: bytes) -> tuple[int | None, list[str]]:
    """The offset of the last cross-reference section (None when 'startxref' points nowhere), and
    what is wrong with the envelope: pdfium rebuilds a cross-reference table by scanning the
    objects, so none of it refuses the file by itself."""
    if PDF_MAGIC not in data[:1024]:
        raise RejectedSource(path, f"not a PDF: the file starts with {data[:8]!r}, not '%PDF-'")
    problems = []
    eof = data.rfind(b"%%EOF")
    if eof < 0:
        problems.append(NO_EOF)
    elif trailing := len(data[eof + 5 :].strip(b"\x00\t\n\f\r ")):
        problems.append(f"{trailing} bytes after the last '%%EOF'")
    at = data.rfind(b"startxref")
    found = _STARTXREF.match(data, at) if at >= 0 else None
    xref_at = int(found.group(1)) if found else None
    if xref_at is None or not _XREF_AT.match(data, xref_at):
        problems.append(STALE_XREF)
        xref_at = None
    return xref_at, problems


def _encrypted(data: bytes, xref_at: int | None) -> bool:
    """An /Encrypt entry in the trailer or the cross-reference stream (pdfium's own error code
    is not reliable for this: it keeps the last error of an earlier, unrelated document)."""
    return _ENCRYPT.search(data[-TAIL_BYTES:]) is not None or (
        xref_at is not None and _ENCRYPT.search(data, xref_at, xref_at + TAIL_BYTES) is not None
    )


def _damaged(problems: list[str]) -> str:
    kind = "truncated PDF" if NO_EOF in problems else "damaged PDF"
    return f"{kind}: {'; '.join(problems)}"


def _readable(code: int) -> bool:
    return code > 0x20 and not 0x7F <= code <= 0x9F and not chr(code).isspace()


def _has_text(doc: pdfium.PdfDocument) -> bool:
    """pdfium reads at least one readable character (no space, no control) from some page; stops
    at the first such page."""
    for index in range(len(doc)):
        page = doc[index]
        textpage = page.get_textpage()
        try:
            raw = textpage.raw
            if any(_readable(pdfium_c.FPDFText_GetUnicode(raw, k)) for k in range(pdfium_c.FPDFText_CountChars(raw))):
                return True
        finally:
            textpage.close()
            page.close()
    return False


def _check_pdf_document(path: Path, data: bytes, xref_at: int | None, problems: list[str]) -> tuple[str, ...]:
    """Open the PDF with pdfium; returns the envelope's problems as warnings when it reads text."""
    if _encrypted(data, xref_at):
        raise RejectedSource(path, "encrypted or password-protected PDF: not accepted")
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if problems:
            raise RejectedSource(path, f"{_damaged(problems)}; pdfium cannot open it ({exc})") from exc
        if _PAGE_OBJECT.search(data) is None and _OBJECT_STREAM.search(data) is None:
            raise RejectedSource(path, "PDF with zero pages") from exc
        raise RejectedSource(path, f"unreadable PDF: pdfium failed to open it ({exc})") from exc
    try:
        if pdfium_c.FPDF_GetSecurityHandlerRevision(doc.raw) != -1:
            raise RejectedSource(path, "encrypted or password-protected PDF: not accepted")
        pages = len(doc)
        if pages == 0:
            raise RejectedSource(path, "PDF with zero pages")
        if pages > MAX_PAGES:
            raise RejectedSource(path, f"too many pages ({pages} > {MAX_PAGES})")
        if problems and not _has_text(doc):
            raise RejectedSource(path, f"{_damaged(problems)}; pdfium reads no text from its {pages} pages")
    finally:
        doc.close()
    return (f"{_damaged(problems)} (accepted: pdfium opens it and reads its text)",) if problems else ()


def _check_markdown(path: Path, data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RejectedSource(path, f"Markdown file is not valid UTF-8 (byte {exc.start})") from exc
    if not text.strip():
        raise RejectedSource(path, "Markdown file has no text")


def check_source(path: Path) -> SourceCheck:
    """The source's format and warnings, or RejectedSource naming what is wrong with it."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in PDF_SUFFIXES | MARKDOWN_SUFFIXES:
        accepted = ", ".join(sorted(PDF_SUFFIXES | MARKDOWN_SUFFIXES))
        raise RejectedSource(path, f"unsupported file type '{suffix or '(none)'}' (accepted: {accepted})")
    if suffix in MARKDOWN_SUFFIXES and (size := path.stat().st_size) > MAX_MARKDOWN_BYTES:
        raise RejectedSource(path, f"Markdown file too large ({size:,} bytes > {MAX_MARKDOWN_BYTES:,})")
    data = path.read_bytes()
    if not data:
        raise RejectedSource(path, "empty file (0 bytes)")
    if suffix in MARKDOWN_SUFFIXES:
        _check_markdown(path, data)
        return SourceCheck("markdown")
    xref_at, problems = _pdf_envelope(path, data)
    return SourceCheck("pdf", _check_pdf_document(path, data, xref_at, problems))


def detect_format(path: Path) -> Literal["pdf", "markdown"]:
    """Return the source's format, or raise RejectedSource naming what is wrong with it."""
    return check_source(path).format
