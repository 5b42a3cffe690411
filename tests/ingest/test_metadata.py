"""Bibliographic metadata on the bundled library: provenance, precedence, no title from a file name."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from library_parse import parsed

from corpus.models import BlockKind, RawBlock
from corpus.text.canonical import assemble_canonical
from ingest.parsing import parse_source
from ingest.passages.metadata_extract import clean_title, extract_metadata, load_manifest, split_authors

LIBRARY = Path(__file__).resolve().parents[2] / "library"
MANIFEST = load_manifest(LIBRARY / "manifest.csv")
DOC = "doc-00000000000000bb"


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text).lower().split())


def _extract(file_key: str, row: dict | None, raw: list[RawBlock] | None = None):
    path = LIBRARY / file_key
    fmt = "pdf" if path.suffix == ".pdf" else "markdown"
    if raw is None:
        raw = parse_source(path, "markdown").raw_blocks if fmt == "markdown" else []
    canonical, blocks = assemble_canonical(raw)
    return extract_metadata(DOC, path, fmt, canonical, blocks, row)


def test_manifest_is_keyed_by_file_and_lists_real_files():
    assert len(MANIFEST) >= 70
    assert all((LIBRARY / key).exists() and row["file"] == key for key, row in MANIFEST.items())


@pytest.mark.parametrize("file_key", sorted(MANIFEST), ids=lambda k: Path(k).stem[:28])
def test_manifest_wins_and_every_field_says_where_it_came_from(file_key):
    row = MANIFEST[file_key]
    meta = _extract(file_key, row)
    assert meta.title.provenance == "manifest" and meta.title.value
    assert _norm(meta.title.value) != _norm(Path(file_key).stem), "a title never comes from a file name"
    assert meta.year.value == int(row["year"]) and meta.year.provenance == "manifest"
    assert meta.licence == row["licence"]
    assert meta.authors.provenance == "manifest" and meta.authors.value
    for name in meta.authors.value:
        assert name == name.strip() and not re.search(r";|,|\band\b|\.$|^by\b", name), name
        assert name.split()[-1] in row["authors"], "every name is taken from the curated string"


@pytest.mark.parametrize("path", sorted((LIBRARY / "markdown").glob("*.md")), ids=lambda p: p.stem[:28])
def test_lecture_without_manifest_row_takes_its_first_h1_and_by_line(path):
    meta = _extract(f"markdown/{path.name}", None)
    h1 = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), re.M).group(1).strip()
    assert (meta.title.value, meta.title.provenance) == (h1, "markdown_heading")
    assert _norm(meta.title.value) != _norm(path.stem)
    assert meta.year.provenance == "none" and meta.licence is None
    opening = path.read_text(encoding="utf-8")[:2000]
    if meta.authors.value:  # names from the "By …" line under the title, as written there
        assert meta.authors.provenance == "first_page"
        assert all(name in opening for name in meta.authors.value), meta.authors.value
        assert not any(re.search(r"\band\b|,|^by\b", name, re.I) for name in meta.authors.value)


@pytest.mark.parametrize("path", sorted((LIBRARY / "pdf").glob("*.pdf")), ids=lambda p: p.stem[:28])
def test_pdf_without_manifest_row_uses_embedded_metadata(path):
    document = pdfium.PdfDocument(str(path))
    embedded = document.get_metadata_dict()
    document.close()
    meta = _extract(f"pdf/{path.name}", None)
    if clean_title(embedded.get("Title"), path.stem):
        assert meta.title.provenance == "pdf_metadata"
        assert meta.title.value == " ".join(embedded["Title"].split())
    else:
        assert meta.title.value is None and meta.title.provenance == "none"
    assert meta.year.provenance == "pdf_metadata"
    assert str(meta.year.value) == embedded["CreationDate"][2:6]
    if meta.authors.value:
        assert meta.authors.provenance == "pdf_metadata"
        assert all(name.split()[-1] in embedded["Author"] for name in meta.authors.value)


@pytest.mark.parametrize(
    "raw, names",
    [
        (
            'Evgenia "Jenny" Nitishinskaya, Maxwell Margenot, and Delaney Mackenzie.',
            ['Evgenia "Jenny" Nitishinskaya', "Maxwell Margenot", "Delaney Mackenzie"],
        ),
        (
            'Evgenia "Jenny" Nitishinskaya and Delaney Granizo-Mackenzie. Algorithms by David Edwards.',
            ['Evgenia "Jenny" Nitishinskaya', "Delaney Granizo-Mackenzie"],
        ),
        (
            "Delaney Granizo-Mackenzie and Andrei Kirilenko developed as part of the curriculum at MIT Sloan.",
            ["Delaney Granizo-Mackenzie", "Andrei Kirilenko"],
        ),
        ("PerformanceAnalytics authors (Peter Carl; Brian G. Peterson et al.)", ["Peter Carl", "Brian G. Peterson"]),
        (
            "Marc Weibel and Henriette-Elise Breymann and David Lüthi",
            ["Marc Weibel", "Henriette-Elise Breymann", "David Lüthi"],
        ),
        ("Prof. Daniel P. Palomar -.4cm", ["Daniel P. Palomar"]),
        ("Dr. Michele Goe", ["Michele Goe"]),
        ("Steven E. Pav", ["Steven E. Pav"]),
        ("", []),
    ],
)
def test_split_authors(raw, names):
    assert split_authors(raw) == names


@pytest.mark.parametrize(
    "junk",
    [
        "untitled",
        "Untitled-3",
        "Microsoft Word - draft_v3.docx",
        "paper_final.pdf",
        "main.tex",
        "pav_notes_on_the_sharpe_ratio",
        "Pav notes on the Sharpe ratio",
        "✶ ❇❛s✐❝ ❞❡✜♥✐t✐♦♥s",
        "   ",
        None,
    ],
)
def test_junk_titles_are_rejected(junk):
    assert clean_title(junk, "pav_notes_on_the_sharpe_ratio") is None


def test_first_page_fields_and_precedence(tmp_path):
    fake_pdf = tmp_path / "not_really_a.pdf"
    fake_pdf.write_bytes(b"no pdf here")  # unreadable: no embedded metadata, only the first page
    raw = [
        RawBlock(
            kind=BlockKind.heading, text="Realised Volatility Estimators in Practice", level=1, page_start=1, page_end=1
        ),
        RawBlock(kind=BlockKind.paragraph, text="Jane Q. Doe, John Smith and Ana de Souza", page_start=1, page_end=1),
        RawBlock(
            kind=BlockKind.paragraph,
            text="Journal of Statistical Software · December 2, 2021",
            page_start=1,
            page_end=1,
        ),
        RawBlock(
            kind=BlockKind.paragraph,
            text="As shown by Engle (1982) and Bollerslev (2023), returns cluster.",
            page_start=1,
            page_end=1,
        ),
        RawBlock(kind=BlockKind.heading, text="1 Introduction", level=1, page_start=2, page_end=2),
    ]
    canonical, blocks = assemble_canonical(raw)
    meta = extract_metadata(DOC, fake_pdf, "pdf", canonical, blocks, None)
    assert (meta.title.value, meta.title.provenance) == ("Realised Volatility Estimators in Practice", "first_page")
    assert (meta.authors.value, meta.authors.provenance) == (
        ["Jane Q. Doe", "John Smith", "Ana de Souza"],
        "first_page",
    )
    assert (meta.year.value, meta.year.provenance) == (2021, "first_page"), "a bare cited year is not a date"
    assert (meta.venue.value, meta.venue.provenance) == ("Journal of Statistical Software", "first_page")
    row = {
        "file": "pdf/x.pdf",
        "title": "Curated Title",
        "authors": "A. Author; B. Author",
        "year": "2020",
        "licence": "MIT",
    }
    curated = extract_metadata(DOC, fake_pdf, "pdf", canonical, blocks, row)
    assert (curated.title.value, curated.title.provenance) == ("Curated Title", "manifest")
    assert (curated.authors.value, curated.year.value, curated.licence) == (["A. Author", "B. Author"], 2020, "MIT")
    assert curated.venue.provenance == "first_page", "a field the manifest lacks still comes from the page"


@pytest.mark.slow
def test_pdf_first_pages_agree_with_the_curated_manifest():
    titles = years = found_titles = found_years = 0
    for key, row in MANIFEST.items():
        if not key.startswith("pdf/"):
            continue
        meta = _extract(key, None, parsed(LIBRARY / key, "pdf").raw_blocks)
        assert _norm(meta.title.value or "") != _norm(Path(key).stem)
        if meta.title.provenance == "first_page":
            found_titles += 1
            a, b = _norm(meta.title.value), _norm(row["title"])
            titles += a in b or b in a
        if meta.year.provenance == "first_page":
            found_years += 1
            years += meta.year.value == int(row["year"])
    assert found_titles >= 5 and titles >= 0.8 * found_titles
    assert found_years >= 5 and years >= 0.7 * found_years
