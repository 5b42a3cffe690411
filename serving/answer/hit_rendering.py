"""The compact text of a search hit (docs/DESIGN.md §4): what an agent needs to decide and to cite.

A hit's default text is its cite line, its own heading, the ids the next calls take (get_passage,
verify_citation), any warning flag, and the sentences that match the search (serving.answer.match_window),
with their place in the passage so that `get_passage` reads the rest; hits after the first
MATCHED_HITS show their cite line and ids only. The structured content keeps the whole served
passage; `detail="full"` renders it too (serving.answer.contract.render_passage).
"""

from __future__ import annotations

import re

from corpus.text.hostile import escape_invisible
from serving.answer.outputs import PassageOut

ELIDED = "…"
# Flags that describe the text rather than warn about it (the shown text says as much); the
# structured content and `detail=full` keep them.
DESCRIPTIVE_FLAGS = frozenset({"has_math", "has_table", "truncated"})
_SEPARATOR_RE = re.compile(r"^\|[\s:|-]+\|$")


def innermost(p: PassageOut) -> str | None:
    """The passage's own heading (the whole path is in the structured content); none when it is
    the document's title, which the cite line gives."""
    if not p.section or p.section[-1] == p.cite.title:
        return None
    return p.section[-1]


def render_listed(index: int, p: PassageOut) -> str:
    """A later hit in one or two lines: cite, section, ids (its sentences are one call away)."""
    where = f" · section: {escape_invisible(heading)}" if (heading := innermost(p)) else ""
    return f"[{index}] {p.cite.text}{where}\nchunk_id={p.chunk_id} document_id={p.document_id}"


def render_match(index: int, p: PassageOut) -> str:
    """One hit in a few lines: cite, section, ids, flags, then the matching sentences with their
    place in the passage (the anchor's canonical ranges stay in the structured content)."""
    lines = [f"[{index}] {p.cite.text}"]
    if heading := innermost(p):
        lines.append("section: " + escape_invisible(heading))
    if p.role != "body":
        lines.append(f"role: {p.role}")
    lines.append(f"chunk_id={p.chunk_id} document_id={p.document_id}")
    raised = [name for name, on in p.flags.model_dump().items() if on and name not in DESCRIPTIVE_FLAGS]
    if raised:
        lines.append("flags: " + ", ".join(raised))
    match = p.match
    if match is None or (match.start == 0 and match.end >= match.length):
        lines.append(escape_invisible(p.text))
        return "\n".join(lines)
    relative = match.start - p.offset, match.end - p.offset
    shown = p.text[relative[0] : relative[1]]
    lead = ELIDED + " " if match.start > 0 else ""
    tail = " " + ELIDED if match.end < match.length else ""
    header = table_header(p.text, relative[0])
    if header:  # rows without their header say nothing of what their columns are
        lines.append(f"table header: {escape_invisible(header)}")
    lines.append(f"[{match.start}–{match.end} of {match.length}] {lead}{escape_invisible(shown)}{tail}")
    return "\n".join(lines)


def table_header(text: str, start: int) -> str | None:
    """The header row (with its separator) of the pipe table whose rows the text at `start` begins
    with, when it lies before `start`; None when `start` is not inside a table's body."""
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:].lstrip().startswith("|"):
        return None
    first = line_start
    while first > 0:
        previous = text.rfind("\n", 0, first - 1) + 1
        if not text[previous : first - 1].lstrip().startswith("|"):
            break
        first = previous
    rows = text[first:].split("\n", 2)
    header_end = (
        first + len(rows[0]) + (len(rows[1]) + 1 if len(rows) > 1 and _SEPARATOR_RE.match(rows[1].strip()) else 0)
    )
    if header_end >= start:
        return None
    return text[first:header_end]
