"""Source validation: every kind of bad file is rejected with a stated reason; good ones pass. A PDF
whose envelope is damaged (stale 'startxref', bytes after '%%EOF', no '%%EOF') is accepted with a
warning when pdfium opens it and reads text, and refused only when it does not."""

from __future__ import annotations

import io
import os
import random
import re
import shutil
from pathlib import Path

import pytest
from generated_pdf import write_text_pdf

from ingest.parsing.validate import RejectedSource, check_source, detect_format
from ingest.sources.library import LIBRARY_ROOT

REAL_PDF = LIBRARY_ROOT / "pdf" / "pav_using_markowitzr.pdf"
REAL_MD = LIBRARY_ROOT / "markdown" / "quantopian_lecture06_means.md"


def _rejected(path: Path) -> str:
    with pytest.raises(RejectedSource) as caught:
        detect_format(path)
    assert caught.value.reason and caught.value.path == path
    return caught.value.reason.lower()


def test_bundled_sources_are_accepted():
    assert detect_format(REAL_PDF) == "pdf"
    assert detect_format(REAL_MD) == "markdown"


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    assert "empty" in _rejected(path)


def test_random_bytes_named_pdf(tmp_path):
    path = tmp_path / "noise.pdf"
    path.write_bytes(random.Random(7).randbytes(4096))
    assert "not a pdf" in _rejected(path)


def test_truncated_pdf(tmp_path):
    data = REAL_PDF.read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(data[: len(data) // 2])
    assert "truncated" in _rejected(path)


def test_pdf_whose_xref_offset_is_wrong_is_accepted_with_a_warning(tmp_path):
    data = REAL_PDF.read_bytes()
    path = tmp_path / "shifted.pdf"
    path.write_bytes(data[:100] + data[400:])  # bytes lost in the middle: offsets now lie, pdfium rebuilds them
    checked = check_source(path)
    assert checked.format == "pdf" and len(checked.warnings) == 1 and "cross-reference" in checked.warnings[0]


def _envelope_damage(data: bytes, kind: str) -> bytes:
    """A valid PDF (as pdfium writes it) with one kind of damage to its envelope."""
    at = data.rfind(b"startxref")
    if kind == "stale_startxref":  # points past the end of the file
        return data[:at] + re.sub(rb"startxref\s+\d+", b"startxref\n%d" % (len(data) + 999), data[at:])
    if kind == "trailing_bytes":
        return data + b"<html>a mail gateway's footer</html>\n" * 50
    if kind == "no_eof":
        return data[: data.rfind(b"%%EOF")]
    raise ValueError(kind)


DAMAGE = {
    "stale_startxref": "'startxref' does not point to a cross-reference table",
    "trailing_bytes": "bytes after the last '%%eof'",
    "no_eof": "no '%%eof' marker",
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_envelope_that_pdfium_reads_is_a_warning(tmp_path, kind):
    source = write_text_pdf(tmp_path / "made.pdf", [[("A page of readable text.", 72)], [("And a second one.", 72)]])
    path = tmp_path / f"{kind}.pdf"
    path.write_bytes(_envelope_damage(source.read_bytes(), kind))
    checked = check_source(path)
    assert checked.format == "pdf"
    assert len(checked.warnings) == 1 and DAMAGE[kind] in checked.warnings[0].lower()
    assert "accepted: pdfium opens it and reads its text" in checked.warnings[0]
    assert check_source(source).warnings == ()  # the undamaged file warns of nothing


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_envelope_without_text_is_refused(tmp_path, kind):
    source = write_text_pdf(tmp_path / "made.pdf", [[], []])  # two blank pages: pdfium opens it, reads nothing
    path = tmp_path / f"{kind}.pdf"
    path.write_bytes(_envelope_damage(source.read_bytes(), kind))
    reason = _rejected(path)
    assert DAMAGE[kind] in reason and "pdfium reads no text from its 2 pages" in reason


def test_a_damaged_pdf_that_pdfium_cannot_open_is_refused(tmp_path):
    source = write_text_pdf(tmp_path / "made.pdf", [[("Some text.", 72)]])
    path = tmp_path / "cut.pdf"
    path.write_bytes(source.read_bytes()[:400])  # the trailer and its /Root are gone
    reason = _rejected(path)
    assert reason.startswith("truncated pdf: no '%%eof' marker") and "pdfium cannot open it" in reason


def test_the_real_gregmisc_vignette_is_accepted():
    """gdata's gregmisc.pdf (Debian r-cran-gdata): its 'startxref' is stale; pdfium reads its title."""
    path = Path("/tmp/gdata/usr/lib/R/site-library/gdata/doc/gregmisc.pdf")
    if not path.exists():
        pytest.skip(f"{path} absent (apt-get download r-cran-gdata; dpkg-deb -x it under /tmp/gdata)")
    checked = check_source(path)
    assert checked.format == "pdf" and "'startxref' does not point" in checked.warnings[0]


@pytest.mark.parametrize("user", ["secret", ""])
def test_encrypted_pdf(tmp_path, user):
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(REAL_PDF))
    writer.encrypt(user_password=user, owner_password="owner", algorithm="AES-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    path = tmp_path / "locked.pdf"
    path.write_bytes(buffer.getvalue())
    assert "encrypted or password-protected" in _rejected(path)


def test_pdf_with_zero_pages(tmp_path):
    pypdf = pytest.importorskip("pypdf")
    path = tmp_path / "blank.pdf"
    with open(path, "wb") as handle:
        pypdf.PdfWriter().write(handle)
    assert "zero pages" in _rejected(path)


@pytest.mark.parametrize("name", ["notes.txt", "paper.docx", "README"])
def test_unsupported_extension(tmp_path, name):
    path = tmp_path / name
    shutil.copy(REAL_MD, path)
    assert "unsupported" in _rejected(path)


def test_markdown_not_utf8(tmp_path):
    path = tmp_path / "latin1.md"
    path.write_bytes("# Caf\u00e9 cr\u00e8me\n".encode("latin-1"))
    assert "utf-8" in _rejected(path)


def test_markdown_without_text(tmp_path):
    path = tmp_path / "blank.md"
    path.write_text("  \n\n\t\n", encoding="utf-8")
    assert "no text" in _rejected(path)


def test_uppercase_extension_is_recognised(tmp_path):
    path = tmp_path / "PAPER.PDF"
    os.link(REAL_PDF, path) if hasattr(os, "link") else shutil.copy(REAL_PDF, path)
    assert detect_format(path) == "pdf"


def test_the_warning_is_recorded_with_the_registered_document(tmp_path):
    from corpus.state.layout import StateLayout
    from ingest.sources.register import load_source, register_file

    source = write_text_pdf(tmp_path / "made.pdf", [[("A page of readable text.", 72)]])
    path = tmp_path / "stale.pdf"
    path.write_bytes(_envelope_damage(source.read_bytes(), "stale_startxref"))
    layout = StateLayout(tmp_path / "state")
    layout.ensure()
    registration = register_file(layout, path)
    assert registration.new and registration.document_id and registration.warnings
    record, _ = load_source(layout, registration.document_id)
    assert record.warnings == list(registration.warnings) and "startxref" in record.warnings[0]
    assert not list(layout.quarantine.glob("*.reason.json"))
