"""Source validation: decide a file's format or reject it with a stated reason, before any parse."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

PDF_SUFFIXES = {".pdf"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
PDF_MAGIC = b"%PDF-"
TAIL_BYTES = 2048  # %%EOF and startxref live in the last bytes of a complete PDF
MAX_PAGES = 5000  # the library's longest PDF has 50; a page tree claiming more is refused
# before a parse spends minutes on it
_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF")
_XREF_AT = re.compile(rb"\s*(xref|\d+\s+\d+\s+obj)")
_ENCRYPT = re.compile(rb"/Encrypt\b")
_PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?!s)\b")
_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm\b")  # page objects may hide in it, compressed


class RejectedSource(Exception):
    """A source file that cannot enter the corpus; `reason` says why, for a person to read."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path.name}: {reason}")
        self.path = path
        self.reason = reason


def _check_pdf_bytes(path: Path, data: bytes) -> int:
    """Check the PDF envelope; return the offset of its last cross-reference section."""
    if PDF_MAGIC not in data[:1024]:
        raise RejectedSource(path, f"not a PDF: the file starts with {data[:8]!r}, not '%PDF-'")
    tail = data[-TAIL_BYTES:]
    if b"%%EOF" not in tail:
        raise RejectedSource(path, "truncated PDF: no '%%EOF' marker at the end of the file")
    matches = _STARTXREF.findall(tail)
    if not matches or not _XREF_AT.match(data, int(matches[-1])):
        raise RejectedSource(path, "truncated or damaged PDF: 'startxref' does not point to a cross-reference table")
    return int(matches[-1])


def _encrypted(data: bytes, xref_at: int) -> bool:
    """An /Encrypt entry in the trailer or the cross-reference stream (pdfium's own error code
    is not reliable for this: it keeps the last error of an earlier, unrelated document)."""
    return (
        _ENCRYPT.search(data[-TAIL_BYTES:]) is not None
        or _ENCRYPT.search(data, xref_at, xref_at + TAIL_BYTES) is not None
    )


def _check_pdf_document(path: Path, data: bytes, xref_at: int) -> None:
    if _encrypted(data, xref_at):
        raise RejectedSource(path, "encrypted or password-protected PDF: not accepted")
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
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
            raise RejectedSource(path, f"PDF with {pages} pages: more than the {MAX_PAGES} accepted")
    finally:
        doc.close()


def _check_markdown(path: Path, data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RejectedSource(path, f"Markdown file is not valid UTF-8 (byte {exc.start})") from exc
    if not text.strip():
        raise RejectedSource(path, "Markdown file has no text")


def detect_format(path: Path) -> Literal["pdf", "markdown"]:
    """Return the source's format, or raise RejectedSource naming what is wrong with it."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in PDF_SUFFIXES | MARKDOWN_SUFFIXES:
        accepted = ", ".join(sorted(PDF_SUFFIXES | MARKDOWN_SUFFIXES))
        raise RejectedSource(path, f"unsupported file type '{suffix or '(none)'}' (accepted: {accepted})")
    data = path.read_bytes()
    if not data:
        raise RejectedSource(path, "empty file (0 bytes)")
    if suffix in MARKDOWN_SUFFIXES:
        _check_markdown(path, data)
        return "markdown"
    _check_pdf_document(path, data, _check_pdf_bytes(path, data))
    return "pdf"
