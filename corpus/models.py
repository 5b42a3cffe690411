"""Data contracts of the corpus state (pydantic): what the writer stores and the reader trusts."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class BlockKind(str, Enum):
    heading = "heading"
    paragraph = "paragraph"
    formula = "formula"  # display formula, kept with its $$ … $$ or \[ … \] delimiters
    table = "table"  # a Markdown pipe table
    list = "list"
    caption = "caption"
    code = "code"  # fenced with ``` in the canonical text
    footnote = "footnote"


# Where a block is drawn: (page, x0, top, x1, bottom) in PDF points, page 1-based, origin at the
# page's top-left corner (y grows downwards, as pdfium's text boxes are read); one per page the
# block touches. Markdown blocks have none.
Region = tuple[int, float, float, float, float]


class RawBlock(BaseModel):
    """A block as a parser emits it, before it is placed in the canonical text."""

    model_config = ConfigDict(frozen=True)
    kind: BlockKind
    text: str
    page_start: int | None = None  # 1-based; None for formats without pages (Markdown)
    page_end: int | None = None
    level: int | None = None  # heading level, 1 = top
    regions: list[Region] = Field(default_factory=list)
    formula_text_unreliable: bool = False  # a display formula whose text layer lost its layout
    recognised_by: str | None = None  # the formula recogniser that wrote its LaTeX
    figure: bool = False  # a figure caption whose last region is the figure


class Block(BaseModel):
    """A typed span [start, end) of a document's canonical text."""

    model_config = ConfigDict(frozen=True)
    kind: BlockKind
    start: int
    end: int
    page_start: int | None = None
    page_end: int | None = None
    level: int | None = None
    regions: list[Region] = Field(default_factory=list)
    formula_text_unreliable: bool = False
    recognised_by: str | None = None
    figure: bool = False


class SourceRecord(BaseModel):
    """Registry entry of one source file (written before anything is derived from it)."""

    document_id: str
    format: Literal["pdf", "markdown", "beir"]  # beir: a benchmark corpus's record(s) (ingest.parsing.beir)
    source_sha256: str
    bytes: int
    original_name: str
    library_file: str | None = None  # path as in manifest.csv `file` column, when bundled
    registered_at: str
    # what validation found wrong with the file yet accepted (ingest.parsing.validate: a damaged
    # PDF envelope that pdfium opens and reads)
    warnings: list[str] = Field(default_factory=list)
    # what the manifest.csv of the folder it came from declares of it (ingest.sources.folder_manifest):
    # title, authors, year, venue, licence; None for a file without one
    declared: dict[str, str] | None = None


class OcrRecord(BaseModel):
    """Pages whose text an OCR engine read from their image (ingest.parsing.ocr): a scanned PDF,
    with no text layer on any page."""

    engine: str  # the OCR engine and its version, e.g. 'tesseract 5.3.0'
    pages: list[int]  # the 1-based pages whose text came from OCR
    mean_confidence: float  # the engine's mean word confidence, 0 to 100


class TextQuality(BaseModel):
    """A parse's measured text quality (ingest.parsing.quality)."""

    words: int = Field(description="Prose words measured (paragraphs, headings, lists, captions, footnotes).")
    attested_share: float = Field(description="Share of those words the library vocabulary holds.")
    unknown_glyphs: int = Field(
        description=(
            "Glyphs without a Unicode map: dropped from the canonical text (control codes, '(cid:N)') "
            "or left in it (private use, unassigned, U+FFFD); the served text holds only the latter."
        )
    )
    repairs: dict[str, int] = Field(default_factory=dict, description="'wrong→restored': occurrences, per document.")
    joined_words: int = Field(0, description="Words rejoined across a page or column break.")
    ligatures: dict[str, int] = Field(
        default_factory=dict,
        description=(
            "Words whose lost ligature (ff, fi, fl, ffi, ffl: a font without a Unicode map for it) was "
            "restored, 'as read before→restored': occurrences, per document."
        ),
    )
    low_quality: bool = Field(description="attested_share under the floor: the text is not what the author wrote.")

    def quote_table(self) -> dict[int, str]:
        """str.translate table of the glyph repairs ('Ą→fi'): a quote copied through the file's
        own broken map ('Ąnancial') reads, after it, as the canonical text does."""
        return {ord(key[0]): key[2:] for key in self.repairs if len(key) >= 3 and key[1] == "\u2192"}

    def ligature_table(self) -> dict[str, str]:
        """{word as read before, case-folded: restored word} of the ligature restorations ('coecient':
        'coefficient'): a quote copied from an older copy or through the broken map reads through it.
        A word restored two different ways ('o' as 'off' and as 'fio') is left out."""
        table: dict[str, str] = {}
        clashes: set[str] = set()
        for key in self.ligatures:
            was, arrow, now = key.partition("\u2192")
            if arrow and was and now:
                if table.setdefault(was.casefold(), now).casefold() != now.casefold():
                    clashes.add(was.casefold())
        return {was: now for was, now in table.items() if was not in clashes}


class ParsedDocument(BaseModel):
    """Parse output of one document; the canonical text itself is stored beside it."""

    document_id: str
    parser: str
    parser_version: str
    canonical_sha256: str
    canonical_chars: int
    pages: int | None = None
    garbled_text: bool = False
    garbled_score: float = 0.0
    text_quality: TextQuality | None = None  # None: parsed before quality was measured
    ocr: OcrRecord | None = None  # set when the text was read by OCR from page images (a scan)
    blocks: list[Block]


# Furniture roles (ingest.passages.passage_roles): ranked only when a question asks for them.
PassageRole = Literal["body", "contents", "title_block", "references", "index"]


class Passage(BaseModel):
    """A passage (chunk): consecutive blocks under one section path."""

    chunk_id: str
    document_id: str
    ordinal: int  # reading order within the document
    section: list[str] = Field(default_factory=list)
    text: str
    ranges: list[tuple[int, int]]  # canonical [start, end) intervals
    granularity: Literal["exact", "block"]  # exact: canonical[start:end] == text
    page_start: int | None = None
    page_end: int | None = None
    block_kinds: list[BlockKind] = Field(default_factory=list)
    garbled_text: bool = False
    role: PassageRole = "body"  # what the passage is for (ingest.passages.passage_roles)


# benchmark: a benchmark corpus's own field, kept as written (ingest.parsing.beir).
Provenance = Literal["pdf_metadata", "first_page", "manifest", "override", "markdown_heading", "benchmark", "none"]


class MetadataField(BaseModel):
    value: str | int | list[str] | None = None
    provenance: Provenance = "none"


class DocumentMetadata(BaseModel):
    """Bibliographic fields, each with where it came from. A title never comes from a filename."""

    document_id: str
    title: MetadataField = Field(default_factory=MetadataField)
    authors: MetadataField = Field(default_factory=MetadataField)
    year: MetadataField = Field(default_factory=MetadataField)
    venue: MetadataField = Field(default_factory=MetadataField)
    licence: str | None = None

    @property
    def author_names(self) -> list[str]:
        """The authors as a list, whatever shape the field was stored in (one name, a list, none)."""
        value = self.authors.value
        return list(value) if isinstance(value, list) else ([value] if isinstance(value, str) and value else [])

    @property
    def publication_year(self) -> int | None:
        value = self.year.value
        return value if isinstance(value, int) else None

    @property
    def title_text(self) -> str | None:
        value = self.title.value
        return value if isinstance(value, str) else None
