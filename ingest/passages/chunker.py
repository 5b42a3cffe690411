"""Passages from a document's blocks (docs/DESIGN.md §2, §4). Pure function; no dagster here.

A passage is a run of consecutive blocks under one section path. A heading opens a new passage
and sits at its top (a heading directly followed by a deeper one joins it: no empty sections).
Cuts fall on block boundaries, or inside a block longer than MAX_CHARS at a position chosen by
`corpus.text.safe_cut.find_cut` and confirmed against the forbidden mask of the whole canonical text,
so no passage starts or ends inside a word, a formula, a table row or a code fence. A long pipe
table is split between rows with its header repeated; those pieces (all but the first) are not
substrings of the canonical text, so they get "block" granularity anchored on the parent table.

A caption travels with the table or figure it captions: a caption block directly before or after a
table, or beside a figure (a caption whose regions include the figure), is packed with it as one
block would be (`_captioned`), so the passage that holds the table holds what its columns mean.
The pair is cut apart only when it cannot share a passage (together over MAX_CHARS); a caption
after a table long enough to be split into row pieces then opens the passage that follows the
table's last piece (a piece repeats the header and is no substring of the canonical text, so no
other text can join it), and a caption before it joins the table's first piece.

Sizes: TARGET_CHARS fills a passage; a block longer than MAX_CHARS is split into pieces of about
TARGET_CHARS; a passage under MIN_CHARS merges with a neighbour of its section when the union
stays within MAX_CHARS. A heading stays on top of its passage even when that adds its own length
to MAX_CHARS; an uncuttable span (a code fence, one table row) is never cut.
The sizes keep the median passage within one window of the embedding model: larger targets
dilute a long passage's vector, smaller ones cut sections into pieces too small to read on their
own (benchmarks/chunk_sizes.py; docs/measurements.md, *Ingestion*).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Literal

from corpus.ids import chunk_id_for
from corpus.models import Block, BlockKind, Passage
from corpus.text.safe_cut import find_cut, forbidden_mask
from corpus.versions import CHUNKER_VERSION
from ingest.passages.passage_roles import with_roles

TARGET_CHARS = 1200
MAX_CHARS = 2000
MIN_CHARS = 300

_HEADING_MARKS_RE = re.compile(r"^#+\s*|\s+#+$")
_TABLE_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
# A caption's label says which kind of float it belongs to; an unlabelled caption may take either.
_TABLE_LABEL_RE = re.compile(r"^\W*(Table|Tab\.)\s", re.I)
_FIGURE_LABEL_RE = re.compile(r"^\W*(Figure|Fig\.|Chart|Plot)\s", re.I)


@dataclass
class _Unit:
    """A canonical span [start, end) taken from one block; `text` is set only for a table piece
    that repeats its table's header (its text is then not a substring of the canonical text)."""

    start: int
    end: int
    block: Block
    text: str | None = None
    bound: bool = False  # stays in the passage of the unit before it (a caption and its table or figure)


@dataclass
class _Group:
    section: list[str]
    units: list[_Unit] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return all(u.text is None for u in self.units)

    @property
    def headings_only(self) -> bool:
        return all(u.block.kind is BlockKind.heading for u in self.units)

    @property
    def size(self) -> int:
        return self.units[-1].end - self.units[0].start if self.exact else len(self.units[0].text or "")


def chunk_document(document_id: str, canonical: str, blocks: list[Block], garbled: bool = False) -> list[Passage]:
    """Passages of one document in reading order (ordinal 0, 1, …)."""
    mask = forbidden_mask(canonical)
    groups = _merge_small(_group(canonical, blocks, mask))
    return with_roles([_passage(document_id, canonical, g, i, garbled) for i, g in enumerate(groups)])


def heading_title(text: str) -> str:
    """A heading block's text without Markdown markers, whitespace collapsed."""
    return " ".join(_HEADING_MARKS_RE.sub("", text.strip()).split())


def _group(canonical: str, blocks: list[Block], mask: bytearray) -> list[_Group]:
    groups: list[_Group] = []
    path: list[tuple[int, str]] = []
    bound = _captioned(canonical, blocks)
    for index, block in enumerate(blocks):
        if block.kind is BlockKind.heading:
            level = block.level or 1
            path = [(lv, t) for lv, t in path if lv < level]
            path.append((level, heading_title(canonical[block.start : block.end])))
            unit, section = _Unit(block.start, block.end, block), [t for _, t in path]
            last = groups[-1] if groups else None
            if (
                last
                and last.exact
                and (
                    not _safe_between(mask, last, unit)
                    or (last.headings_only and (last.units[-1].block.level or 1) < level)
                )
            ):
                last.units.append(unit)
                last.section = section if last.headings_only else last.section
            else:
                groups.append(_Group(section, [unit]))
            continue
        section = [t for _, t in path]
        for k, unit in enumerate(_units(canonical, block, mask)):
            last = groups[-1] if groups else None
            if k == 0 and index in bound and _attach(groups, unit, blocks[index - 1], section, mask):
                continue
            if last is None:
                groups.append(_Group(section, [unit]))
            elif not _safe_between(mask, last, unit) and last.exact and unit.text is None:
                last.units.append(unit)  # a protected span crosses this boundary: never cut it
            elif not last.exact or unit.text is not None:
                groups.append(_Group(section, [unit]))
            elif unit.end - last.units[0].start > TARGET_CHARS and not last.headings_only:
                groups.append(_Group(section, [unit]))
            else:
                last.units.append(unit)
    return groups


def _safe_between(mask: bytearray, group: _Group, unit: _Unit) -> bool:
    return not mask[group.units[-1].end] and not mask[unit.start]


def _float_kind(block: Block) -> str | None:
    """The kind of float a caption may belong to, "table" or "figure" (a caption whose regions
    include its figure), or None for any other block."""
    if block.kind is BlockKind.table:
        return "table"
    return "figure" if block.kind is BlockKind.caption and block.figure else None


def _fits(canonical: str, caption: Block, kind: str) -> bool:
    text = canonical[caption.start : caption.end]
    label = "table" if _TABLE_LABEL_RE.match(text) else "figure" if _FIGURE_LABEL_RE.match(text) else None
    return label in (None, kind)


def _captioned(canonical: str, blocks: list[Block]) -> set[int]:
    """Indexes of the blocks that stay in the passage of the block before them: a caption (not
    itself a figure) directly after the table or figure it captions, or a table or figure directly
    after its caption. A caption between two floats of its label's kind takes the one no other
    caption takes, then the side the document's unambiguous captions take (below or above their
    float), then the float before it."""
    sides: dict[int, list[int]] = {}
    for i, block in enumerate(blocks):
        if block.kind is BlockKind.caption and not block.figure:
            sides[i] = [
                j
                for j in (i - 1, i + 1)
                if 0 <= j < len(blocks)
                and (kind := _float_kind(blocks[j])) is not None
                and _fits(canonical, block, kind)
            ]
    sure = {i: js[0] for i, js in sides.items() if len(js) == 1}
    taken = set(sure.values())
    below = sum(j < i for i, j in sure.items()) >= sum(j > i for i, j in sure.items())
    chosen = dict(sure)
    for i, js in sides.items():
        if len(js) == 2:
            free = [j for j in js if j not in taken]
            chosen[i] = free[0] if len(free) == 1 else (i - 1 if below else i + 1)
    return {max(i, j) for i, j in chosen.items()}


def _attach(groups: list[_Group], unit: _Unit, partner: Block, section: list[str], mask: bytearray) -> bool:
    """Pack `unit` (the first of a block bound to `partner`, the block before it) with the chain
    of bound units that ends the last passage, as one block is packed: into that passage when it
    fits TARGET_CHARS or holds only headings before the chain, else the chain moves to open a new
    passage with it. False, and nothing moved, when they cannot share a passage: the chain and the
    unit together over MAX_CHARS, or the partner is not the last passage's last exact unit."""
    last = groups[-1] if groups else None
    if last is None or not last.exact or unit.text is not None or last.units[-1].block is not partner:
        return False
    first = len(last.units) - 1
    while first > 0 and last.units[first].bound:
        first -= 1
    chain = last.units[first:]
    if unit.end - chain[0].start > MAX_CHARS:
        return False
    unit.bound = True
    before = last.units[:first]
    if (
        unit.end - last.units[0].start <= TARGET_CHARS
        or all(u.block.kind is BlockKind.heading for u in before)
        or mask[before[-1].end]
        or mask[chain[0].start]
    ):
        last.units.append(unit)
    else:
        del last.units[first:]
        groups.append(_Group(section, [*chain, unit]))
    return True


def _units(canonical: str, block: Block, mask: bytearray) -> list[_Unit]:
    """The block whole, or cut into pieces of about TARGET_CHARS when longer than MAX_CHARS."""
    if block.end - block.start <= MAX_CHARS:
        return [_Unit(block.start, block.end, block)]
    if block.kind is BlockKind.table:
        pieces = _table_pieces(canonical, block)
        if pieces:
            return pieces
    units: list[_Unit] = []
    start, end = block.start, block.end
    while end - start > MAX_CHARS:
        cut = _safe_cut_in(canonical, start, end, mask)
        if cut is None:
            break
        piece_end, next_start = _trim(canonical, start, cut, mask), _skip_space(canonical, cut, end, mask)
        units.append(_Unit(start, piece_end, block))
        start = next_start
    units.append(_Unit(start, end, block))
    return units


def _safe_cut_in(canonical: str, start: int, end: int, mask: bytearray) -> int | None:
    """A cut for a piece of about len/ceil(len/TARGET) chars; the whole text's mask decides."""
    cap = math.ceil((end - start) / math.ceil((end - start) / TARGET_CHARS))
    window = canonical[start : min(end, start + 2 * cap)]
    cut = start + find_cut(window, cap)
    while cut > start and mask[cut]:
        cut -= 1
    if cut > start:
        return cut
    return next((p for p in range(start + cap, end) if not mask[p]), None)


def _trim(canonical: str, start: int, cut: int, mask: bytearray) -> int:
    end = cut
    while end > start + 1 and canonical[end - 1].isspace():
        end -= 1
    return end if not mask[end] else cut


def _skip_space(canonical: str, cut: int, end: int, mask: bytearray) -> int:
    start = cut
    while start < end - 1 and canonical[start].isspace():
        start += 1
    return start if not mask[start] else cut


def _table_pieces(canonical: str, block: Block) -> list[_Unit] | None:
    """Row groups of a pipe table; pieces after the first repeat the header (through the
    separator line). None when the table has no header separator to repeat."""
    lines, pos = [], block.start
    for line in canonical[block.start : block.end].split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    sep = next(
        (
            i
            for i in range(1, len(lines))
            if _TABLE_SEPARATOR_RE.match(canonical[slice(*lines[i])])
            and canonical[slice(*lines[i - 1])].lstrip().startswith("|")
        ),
        None,
    )
    if sep is None or sep == len(lines) - 1:
        return None
    header = canonical[block.start : lines[sep][1]]
    rows = lines[sep + 1 :]
    budget = math.ceil((rows[-1][1] - rows[0][0]) / math.ceil((block.end - block.start) / TARGET_CHARS))
    pieces: list[list[tuple[int, int]]] = [[]]
    for row in rows:
        if pieces[-1] and row[1] - pieces[-1][0][0] > budget:
            pieces.append([])
        pieces[-1].append(row)
    units = [_Unit(block.start, pieces[0][-1][1], block)]
    for piece in pieces[1:]:
        start, end = piece[0][0], piece[-1][1]
        units.append(_Unit(start, end, block, text=header + "\n" + canonical[start:end]))
    return units


def _merge_small(groups: list[_Group]) -> list[_Group]:
    """Fold a passage under MIN_CHARS into its neighbour when the union fits MAX_CHARS: within one
    section, or a section's short opening onto the first passage of its subsection (which then
    carries the deeper path, as a heading directly followed by a deeper one does)."""
    merged: list[_Group] = []
    for group in groups:
        prev = merged[-1] if merged else None
        section = _merged_section(prev, group) if prev else None
        if prev is not None and section is not None and min(prev.size, group.size) < MIN_CHARS:
            prev.units.extend(group.units)
            prev.section = section
        else:
            merged.append(group)
    return merged


def _merged_section(a: _Group, b: _Group) -> list[str] | None:
    """Section path of a + b when they may merge, else None."""
    if not (a.exact and b.exact and b.units[-1].end - a.units[0].start <= MAX_CHARS):
        return None
    if b.units[0].block.kind is not BlockKind.heading:
        return a.section if a.section == b.section else None
    deeper = len(b.section) > len(a.section) and b.section[: len(a.section)] == a.section
    return b.section if deeper and a.size < MIN_CHARS else None


def _passage(document_id: str, canonical: str, group: _Group, ordinal: int, garbled: bool) -> Passage:
    units = group.units
    starts = [u.block.page_start for u in units if u.block.page_start is not None]
    ends = [u.block.page_end or u.block.page_start for u in units if u.block.page_start is not None]
    kinds = list(dict.fromkeys(u.block.kind for u in units))
    start, end = units[0].start, units[-1].end
    granularity: Literal["exact", "block"]
    if group.exact:
        text, ranges, granularity = canonical[start:end], [(start, end)], "exact"
    else:
        parent = units[0].block
        text, ranges, granularity = units[0].text or "", [(parent.start, parent.end)], "block"
    return Passage(
        chunk_id=chunk_id_for(document_id, start, end, CHUNKER_VERSION),
        document_id=document_id,
        ordinal=ordinal,
        section=list(group.section),
        text=text,
        ranges=ranges,
        granularity=granularity,
        page_start=min(starts) if starts else None,
        page_end=max(ends) if ends else None,
        block_kinds=kinds,
        garbled_text=garbled,
    )
