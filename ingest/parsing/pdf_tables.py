"""Typeset tables: found cheaply from pdfium lines (runs of numeric rows), then re-read cell by
cell with pdfplumber on that region only (pdfplumber is exact but slow per page, so it never
sees a page without a candidate; docs/measurements.md, *Ingestion*). Console output set in a
monospace font stays a code block."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pdfplumber

from corpus.models import BlockKind, RawBlock
from ingest.parsing.pdf_lines import TABLE_FONT, Line
from ingest.parsing.pdf_roles import DOT_LEADER, DocStats

MIN_NUMERIC_ROWS = 3
_NUMBER = re.compile(r"^[-−+]?\(?[$€£]?\d[\d,]*(\.\d+)?%?\)?\*{0,3}$|^[-−–]$|^NA$")
log = logging.getLogger(__name__)
_SETTINGS = {"vertical_strategy": "text", "horizontal_strategy": "text"}


def _numeric_row(line: Line) -> bool:
    tokens = line.text.split()
    numbers = sum(bool(_NUMBER.match(t)) for t in tokens)
    return line.mono_share < 0.5 and numbers >= 2 and numbers >= 0.4 * len(tokens)


def candidate_runs(lines: list[Line], stats: DocStats) -> list[tuple[int, int]]:
    """[start, end) index ranges of lines that look like one table (header lines included)."""
    runs: list[tuple[int, int]] = []
    if sum(bool(DOT_LEADER.search(ln.text)) for ln in lines) >= 3:
        return runs  # a table of contents: its page numbers are not a numeric table
    i = 0
    while i < len(lines):
        if not _numeric_row(lines[i]):
            i += 1
            continue
        j, numeric = i, 0
        while j < len(lines) and (
            _numeric_row(lines[j])
            or (
                j + 1 < len(lines)
                and _numeric_row(lines[j + 1])
                and lines[j].mono_share < 0.5
                and len(lines[j].text) < 80
            )
        ):
            numeric += _numeric_row(lines[j])
            j += 1
        if numeric >= MIN_NUMERIC_ROWS:
            start = i
            while (
                start > 0
                and i - start < 2
                and len(lines[start - 1].text) < 80
                and 0 < lines[start].top - lines[start - 1].bottom < 1.2 * stats.pitch
                and lines[start - 1].mono_share < 0.5
                and lines[start - 1].page == lines[i].page
            ):
                start -= 1
            runs.append((start, j))
        i = j
    return runs


def to_pipe_table(rows: list[list[str | None]]) -> str | None:
    cells = [[" ".join((c or "").split()).replace("|", "\\|") for c in row] for row in rows]
    cells = [r for r in cells if any(r)]
    width = max((len(r) for r in cells), default=0)
    if len(cells) < 2 or width < 2:
        return None
    lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in cells]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def extract_tables(
    path: Path, pages: list[list[Line]], stats: DocStats
) -> tuple[list[list[Line]], dict[int, RawBlock]]:
    """Replace each table region by one placeholder line; return the table blocks by its id.
    A file pdfminer cannot read (a damaged object pdfium repaired around) keeps its table regions
    as the text lines pdfium read: the document loses its pipe tables, not its text."""
    todo = {n: candidate_runs(lines, stats) for n, lines in enumerate(pages)}
    if not any(todo.values()):
        return pages, {}
    try:
        return _extract(path, pages, stats, todo)
    except Exception as exc:  # noqa: BLE001 — pdfminer's errors have no common base
        log.warning("%s: tables not re-read (%s: %s); their lines stay as text", path.name, type(exc).__name__, exc)
        return pages, {}


def _extract(
    path: Path, pages: list[list[Line]], stats: DocStats, todo: dict[int, list[tuple[int, int]]]
) -> tuple[list[list[Line]], dict[int, RawBlock]]:
    found: dict[int, RawBlock] = {}
    out: list[list[Line]] = []
    with pdfplumber.open(str(path)) as pdf:
        for n, lines in enumerate(pages):
            runs = todo[n]
            if not runs:
                out.append(lines)
                continue
            page = pdf.pages[n]
            kept: list[Line] = []
            cursor = 0
            for start, end in runs:
                region = lines[start:end]
                box = (
                    max(0, min(ln.x0 for ln in region) - 2),
                    max(0, min(ln.top for ln in region) - 2),
                    min(page.width, max(ln.x1 for ln in region) + 2),
                    min(page.height, max(ln.bottom for ln in region) + 2),
                )
                table = to_pipe_table(page.crop(box).extract_table(_SETTINGS) or [])
                kept.extend(lines[cursor:start])
                cursor = start
                if table is None:
                    continue
                holder = Line(n + 1, table, box[0], box[2], box[1], box[3], stats.body_size, TABLE_FONT)
                x0, top, x1, bottom = (round(v, 1) for v in box)
                found[id(holder)] = RawBlock(
                    kind=BlockKind.table,
                    text=table,
                    page_start=n + 1,
                    page_end=n + 1,
                    regions=[(n + 1, x0, top, x1, bottom)],
                )
                kept.append(holder)
                cursor = end
            kept.extend(lines[cursor:])
            out.append(kept)
    return out, found
