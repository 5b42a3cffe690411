"""Source validation: every kind of bad file is rejected with a stated reason; good ones pass."""

from __future__ import annotations

import io
import os
import random
import shutil
from pathlib import Path

import pytest

from ingest.library import LIBRARY_ROOT
from ingest.parsing.validate import RejectedSource, detect_format

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


def test_pdf_whose_xref_offset_is_wrong(tmp_path):
    data = REAL_PDF.read_bytes()
    path = tmp_path / "shifted.pdf"
    path.write_bytes(data[:100] + data[400:])  # bytes lost in the middle: offsets now lie
    assert "cross-reference" in _rejected(path)


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
