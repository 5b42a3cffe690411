"""Tesseract's TSV output -> words with boxes in PDF points -> typed raw blocks with page regions.

Tesseract segments a page into blocks, paragraphs, lines and words; each of its paragraphs becomes
one block whose region is the union of its words' boxes (the PDF parser's page/region structure).
A short one-line paragraph read with confidence, its letters well above the body's height, is a
heading (a display formula's tall symbols are read with low confidence). A word broken
by a hyphen at a line end is joined when the joined word is attested (the library vocabulary or
the scan's own words), as the PDF parser joins words broken across blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import groupby
from statistics import median

from corpus.models import BlockKind, RawBlock
from ingest.parsing.pdf_text import join_broken_blocks
from ingest.parsing.vocabulary import library_vocabulary, words_of

WORD_LEVEL = 5  # TSV rows: 1 page, 2 block, 3 paragraph, 4 line, 5 word
HEADING_HEIGHT = 1.15  # a heading's letters stand at least this much above the body's median
HEADING_MAX_WORDS = 12
HEADING_CONFIDENCE = 80.0  # Tesseract's mean word confidence, 0 to 100
_TAIL = re.compile(r"([^\W\d_]+)-$")
_HEAD = re.compile(r"^([a-z]+)")


@dataclass(frozen=True)
class Word:
    page: int
    paragraph: tuple[int, int]  # Tesseract's (block, paragraph) on the page
    line: int
    x0: float
    top: float
    x1: float
    bottom: float
    confidence: float
    text: str


def parse_tsv(tsv: str, page: int, scale: float) -> list[Word]:
    """The words of one page's TSV, in Tesseract's reading order; boxes from pixels at `scale` to points."""
    words = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != str(WORD_LEVEL) or not cells[11].strip():
            continue
        left, top, width, height = (float(c) / scale for c in cells[6:10])
        block, par, line = int(cells[2]), int(cells[3]), int(cells[4])
        words.append(
            Word(page, (block, par), line, left, top, left + width, top + height, float(cells[10]), cells[11].strip())
        )
    return words


def _join(lines: list[str], known: frozenset[str] | set[str]) -> str:
    """Lines joined by a space; a line-end hyphen that splits an attested word is removed."""
    out = ""
    for line in lines:
        tail, head = _TAIL.search(out), _HEAD.match(line)
        if tail and head and (tail.group(1) + head.group(1)).lower() in known:
            out = out[:-1] + line
        elif tail and head:
            out += line  # a compound written across the line end keeps its hyphen
        else:
            out = f"{out} {line}" if out else line
    return out


def blocks_of(words: list[Word]) -> list[RawBlock]:
    """One block per Tesseract paragraph, in reading order, with its page region."""
    body = median(w.bottom - w.top for w in words)
    paragraphs = [list(group) for _, group in groupby(words, key=lambda w: (w.page, w.paragraph))]
    texts = [[" ".join(w.text for w in line) for _, line in groupby(p, key=lambda w: w.line)] for p in paragraphs]
    known = library_vocabulary() | words_of(" ".join(w.text for w in words))
    blocks = []
    for paragraph, lines in zip(paragraphs, texts, strict=True):
        text = _join(lines, known)
        height = median(w.bottom - w.top for w in paragraph)
        heading = (
            len(lines) == 1
            and len(paragraph) <= HEADING_MAX_WORDS
            and height >= HEADING_HEIGHT * body
            and sum(w.confidence for w in paragraph) >= HEADING_CONFIDENCE * len(paragraph)
            and not text.endswith(".")
        )
        page = paragraph[0].page
        region = (
            page,
            round(min(w.x0 for w in paragraph), 2),
            round(min(w.top for w in paragraph), 2),
            round(max(w.x1 for w in paragraph), 2),
            round(max(w.bottom for w in paragraph), 2),
        )
        blocks.append(
            RawBlock(
                kind=BlockKind.heading if heading else BlockKind.paragraph,
                text=text,
                page_start=page,
                page_end=page,
                level=1 if heading else None,
                regions=[region],
            )
        )
    joined, _ = join_broken_blocks(blocks, known, set())
    return joined
