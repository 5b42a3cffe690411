"""Bibliographic metadata (title, authors, year, venue) with the provenance of every field.

Sources, each tried only where it exists, and the precedence applied per field (first wins):

| field   | precedence                                                                       |
|---------|----------------------------------------------------------------------------------|
| title   | manifest → pdf_metadata (junk rejected) → markdown_heading (first H1) → first_page |
| authors | manifest → pdf_metadata → first_page (an author line under the title, "By …")    |
| year    | manifest → first_page (newest plausible year on page 1) → pdf_metadata (creation) |
| venue   | manifest (`venue` column, when present) → first_page (journal / arXiv line)        |

The manifest is curated, so it wins; a PDF's own Title/Author fields come next because authors
typed them (we drop the junk: 'untitled', 'Microsoft Word - …', file-like names); the creation
date is only a build date, so a year printed on the first page beats it. A title is never derived
from a file name: any candidate equal to the file stem is rejected.
"""

from __future__ import annotations

import csv
import datetime
import logging
import re
from pathlib import Path

from corpus.models import Block, BlockKind, DocumentMetadata, MetadataField
from ingest.passages.chunker import heading_title

log = logging.getLogger(__name__)

FIRST_PAGE_BLOCKS = 15  # how far into page 1 we look for a title, authors, a year, a venue
MAX_TITLE_CHARS = 250
_JUNK_TITLE_RE = re.compile(
    r"^(untitled\b.*|title|no title|document\d*|slide \d+|presentation\d*|microsoft (word|powerpoint|excel)\b.*"
    r"|.*\.(pdf|docx?|tex|dvi|ps|rtf|odt|pptx?|indd|txt|md))$",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"(?<=[a-z]{2})\.\s+(?=[A-Z])")
_CREDIT_TAIL_RE = re.compile(r"\s+(with\b|developed\b|algorithms by\b).*$", re.IGNORECASE | re.DOTALL)
_AUTHOR_SPLIT_RE = re.compile(r"\s*(?:;|,|&|\band\b)\s*")
_HONORIFIC_RE = re.compile(r"\b(dr|prof|professor|mr|mrs|ms)\.?\s+(?=[A-Z])", re.IGNORECASE)
_LATEX_LENGTH_RE = re.compile(r"\s*-?\d*\.?\d+(cm|mm|pt|em|ex|in)\b")
_MARKS = "*†‡∗§¶⋆"
_NAME_TOKEN_RE = re.compile(
    r"^([A-ZÀ-Þ][\w'’\-]*\.?|[\"“][A-Z][\w\-]*[\"”]|[A-Z]\.(-?[A-Z]\.)*"
    r"|van|von|de|der|den|da|di|du|le|la|del)$"
)
_NOT_A_NAME = re.compile(
    r"\b(university|universit[äé]|department|institute|school|college|journal|package|"
    r"version|abstract|introduction|contents|vignette|laboratory|center|centre|inc|ltd|"
    r"email|http|www)\b",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_DATED_YEAR_RE = re.compile(
    r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?"
    r"|©\s*|copyright\s+|version\s+\S+\s+|volume\s+\d+\W+|vol\.\s*\d+\W+|published\s+|received\s+)"
    r"(19[5-9]\d|20\d\d)(?!\d)|(?<!\d)(19[5-9]\d|20\d\d)-[01]\d-[0-3]\d",
    re.IGNORECASE,
)
_VENUE_RE = re.compile(
    r"(Journal of(?:\s+(?:[A-Z][\w\-]*|and|&))+|The R Journal|Proceedings of [^\n,.;]+|"
    r"arXiv:\s?\d{4}\.\d{4,5}(?:v\d+)?)"
)
_NOT_A_TITLE_RE = re.compile(r"^(abstract|contents|introduction|\d+(\.\d+)*\s)|\.\s?\.\s?\.", re.IGNORECASE)


def load_manifest(path: Path) -> dict[str, dict]:
    """Rows of library/manifest.csv keyed by the `file` column (e.g. 'pdf/x.pdf')."""
    with Path(path).open(encoding="utf-8", newline="") as handle:
        return {row["file"]: row for row in csv.DictReader(handle) if row.get("file")}


def split_authors(text: str | None) -> list[str]:
    """Names from an author string: separators ',', ';', '&', ' and '; credits after the first
    sentence or after 'with …' dropped; honorifics, footnote marks and LaTeX lengths removed."""
    if not text or not text.strip():
        return []
    inner = re.fullmatch(r"[^()]*\((.+)\)\s*", text.strip())
    if inner and _AUTHOR_SPLIT_RE.search(inner.group(1)):
        text = inner.group(1)
    text = _SENTENCE_END_RE.split(_HONORIFIC_RE.sub("", text.strip()), maxsplit=1)[0]
    text = _CREDIT_TAIL_RE.sub("", re.sub(r"\bet al\.?", "", text))
    names = []
    for part in _AUTHOR_SPLIT_RE.split(_LATEX_LENGTH_RE.sub("", text)):
        name = " ".join(part.strip(" .\t\n" + _MARKS).split())
        if any(c.isalpha() for c in name):
            names.append(name)
    return names


def looks_like_name(name: str) -> bool:
    """Two to five capitalised tokens (initials and particles allowed), no institution words."""
    tokens = name.split()
    return 2 <= len(tokens) <= 5 and not _NOT_A_NAME.search(name) and all(_NAME_TOKEN_RE.match(t) for t in tokens)


def clean_title(text: str | None, source_stem: str) -> str | None:
    """A usable title, or None for junk: empty, 'untitled', 'Microsoft Word - …', file-like, the stem."""
    if not text:
        return None
    title = " ".join(text.split()).strip(_MARKS + " ")
    letters = sum(c.isalpha() for c in title)
    if not title or len(title) > MAX_TITLE_CHARS or letters < 3 or letters < 0.5 * len(title.replace(" ", "")):
        return None  # empty, overlong, or glyph soup from a broken font map
    if _JUNK_TITLE_RE.match(title) or (" " not in title and re.search(r"[_.]|\d{4}", title)):
        return None
    if _normalise(title) == _normalise(source_stem):
        return None
    return title


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text).lower().split())


def _pdf_metadata(path: Path) -> dict[str, str]:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except Exception as exc:  # an unreadable file just has no embedded metadata
        log.warning("no PDF metadata for %s: %s", path.name, exc)
        return {}
    try:
        return {k: v for k, v in document.get_metadata_dict().items() if isinstance(v, str) and v.strip()}
    finally:
        document.close()


def _first_page(canonical: str, blocks: list[Block]) -> list[tuple[Block, str]]:
    first = min((b.page_start for b in blocks if b.page_start is not None), default=None)
    on_page = [b for b in blocks if b.page_start == first or first is None]
    return [(b, canonical[b.start : b.end]) for b in on_page[:FIRST_PAGE_BLOCKS]]


def _title_from_page(page: list[tuple[Block, str]], stem: str) -> tuple[str | None, int]:
    """First heading that makes a clean title (else a short opening line); and its index."""
    for i, (block, text) in enumerate(page):
        title = clean_title(heading_title(text), stem) if block.kind is BlockKind.heading else None
        if title and not _NOT_A_TITLE_RE.search(title):
            return title, i
    for i, (block, text) in enumerate(page[:3]):
        line = text.strip().split("\n")[0]
        short = 2 <= len(line.split()) <= 12 and line[:1].isupper() and not line.endswith((".", ":", ","))
        title = clean_title(line, stem) if block.kind is BlockKind.paragraph and short else None
        if title and not _NOT_A_TITLE_RE.search(title) and not _YEAR_RE.search(title) and not looks_like_name(title):
            return title, i
    return None, -1


def _authors_from_page(page: list[tuple[Block, str]], after: int) -> list[str]:
    for _, text in page[after + 1 : after + 6]:
        for line in text.split("\n"):
            line = re.sub(r"^\s*by\s+", "", line.strip(), flags=re.IGNORECASE)
            names = [re.sub(r"[\d,]+$", "", n).strip() for n in split_authors(line)]
            if names and len(names) <= 12 and all(looks_like_name(n) for n in names):
                return names
    return []


def _year_from_page(page: list[tuple[Block, str]], ceiling: int) -> int | None:
    """The newest year written as a date on page 1 ('December 2, 2024', '© 2016', '2024-12-18',
    'Volume 69, 2016'); a bare year there is usually a citation, so it does not count."""
    years = [
        int(m.group(1) or m.group(2))
        for block, text in page
        if block.kind is not BlockKind.code
        for m in _DATED_YEAR_RE.finditer(text)
    ]
    years = [y for y in years if y <= ceiling]
    return max(years) if years else None


def _year_from_pdf_date(value: str | None) -> int | None:
    match = re.match(r"^(?:D:)?(\d{4})", value or "")
    year = int(match.group(1)) if match else None
    return year if year and 1900 <= year <= datetime.date.today().year + 1 else None


def _pick(*candidates: tuple[object, str]) -> MetadataField:
    """The first non-empty candidate value with its provenance."""
    for value, provenance in candidates:
        if value not in (None, "", []):
            return MetadataField(value=value, provenance=provenance)
    return MetadataField()


def extract_metadata(
    document_id: str, source_path: Path, fmt: str, canonical: str, blocks: list[Block], manifest_row: dict | None
) -> DocumentMetadata:
    """Title, authors, year and venue of one document, each with where it came from."""
    row = manifest_row or {}
    stem = Path(source_path).stem
    pdf = _pdf_metadata(Path(source_path)) if fmt == "pdf" else {}
    page = _first_page(canonical, blocks)
    h1 = (
        next(
            (
                heading_title(canonical[b.start : b.end])
                for b in blocks
                if b.kind is BlockKind.heading and (b.level or 1) == 1
            ),
            None,
        )
        if fmt == "markdown"
        else None
    )
    page_title, title_index = _title_from_page(page, stem)
    if fmt == "markdown" and h1:
        title_index = next((i for i, (b, _) in enumerate(page) if b.kind is BlockKind.heading), -1)
    pdf_year = _year_from_pdf_date(pdf.get("CreationDate"))
    ceiling = pdf_year or datetime.date.today().year
    manifest_year = int(row["year"]) if str(row.get("year", "")).strip().isdigit() else None
    page_venue = next((re.sub(r"\s+(and|&)$", "", m.group(1)) for _, t in page if (m := _VENUE_RE.search(t))), None)
    page_year = _year_from_page(page, ceiling) if fmt == "pdf" else None  # lectures: dates are data
    return DocumentMetadata(
        document_id=document_id,
        title=_pick(
            (clean_title(row.get("title"), stem), "manifest"),
            (clean_title(pdf.get("Title"), stem), "pdf_metadata"),
            (clean_title(h1, stem), "markdown_heading"),
            (page_title if fmt == "pdf" else None, "first_page"),
        ),
        authors=_pick(
            (split_authors(row.get("authors")), "manifest"),
            ([n for n in split_authors(pdf.get("Author")) if looks_like_name(n)], "pdf_metadata"),
            (_authors_from_page(page, title_index), "first_page"),
        ),
        year=_pick((manifest_year, "manifest"), (page_year, "first_page"), (pdf_year, "pdf_metadata")),
        venue=_pick(
            ((row.get("venue") or "").strip() or None, "manifest"), (page_venue if fmt == "pdf" else None, "first_page")
        ),
        licence=(row.get("licence") or "").strip() or None,
    )
