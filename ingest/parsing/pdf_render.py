"""Render a group of classified PDF lines as the text of one typed raw block."""

from __future__ import annotations

from corpus.models import BlockKind, RawBlock
from ingest.parsing.formula_layout import formula_text_unreliable, regions_of
from ingest.parsing.pdf_blocks import Group
from ingest.parsing.pdf_lines import HYPHEN_MARK, Line
from ingest.parsing.pdf_roles import BULLET
from ingest.parsing.pdf_text import join_lines

MONO_ADVANCE = 0.525  # width of a typewriter character, in font sizes (for indentation)


def _code_text(lines: list[Line]) -> str:
    left = min(ln.x0 for ln in lines)
    rows = []
    for ln in lines:
        indent = max(0, round((ln.x0 - left) / (MONO_ADVANCE * ln.size)))
        rows.append(" " * indent + ln.text.replace(HYPHEN_MARK, "-"))
    return "```\n" + "\n".join(rows) + "\n```"


def _list_text(lines: list[Line], keep_hyphen: set[str]) -> str:
    items: list[list[str]] = []
    for ln in lines:
        if BULLET.match(ln.text) or not items:
            items.append([ln.text])
        else:
            items[-1].append(ln.text)
    return "\n".join(join_lines(item, keep_hyphen) for item in items)


def render(group: Group, keep_hyphen: set[str]) -> RawBlock:
    lines = group.lines
    texts = [ln.text for ln in lines]
    if group.kind == "code":
        text, kind = _code_text(lines), BlockKind.code
    elif group.kind == "formula":
        text, kind = "$$\n" + "\n".join(t.replace(HYPHEN_MARK, "-") for t in texts) + "\n$$", BlockKind.formula
    elif group.kind == "toc":
        text, kind = "\n".join(t.replace(HYPHEN_MARK, "-") for t in texts), BlockKind.list
    elif group.kind == "list":
        text, kind = _list_text(lines, keep_hyphen), BlockKind.list
    else:
        kind = {"heading": BlockKind.heading, "caption": BlockKind.caption, "footnote": BlockKind.footnote}.get(
            group.kind, BlockKind.paragraph
        )
        text = join_lines(texts, keep_hyphen)
    return RawBlock(
        kind=kind,
        text=text,
        page_start=lines[0].page,
        page_end=lines[-1].page,
        level=group.level if kind is BlockKind.heading else None,
        regions=regions_of(lines),
        formula_text_unreliable=kind is BlockKind.formula and formula_text_unreliable(lines),
    )
