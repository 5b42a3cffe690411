"""Group classified PDF lines, in reading order, into the groups that become typed raw blocks."""

from __future__ import annotations

from dataclasses import dataclass, field

from ingest.parsing.pdf_lines import Line
from ingest.parsing.pdf_roles import DOT_LEADER, PAGE_REF, DocStats, column_left, heading_level, role

FOOTNOTE_RATIO = 0.92  # footnotes are set smaller than the body
FOOTNOTE_ZONE = 0.55  # ... and live in the lower part of the page
_FOOTNOTE_MARKS = "*†‡§¶0123456789"
_SENTENCE_END = (".", "!", "?", ":")
FRAGMENT_CHARS = 25  # a line this short (and of at most 2 words) next to a display
FRAGMENT_WORDS = 2  # formula belongs to it: a limit, an index, 'maximize'


def _fragment(line: Line) -> bool:
    return len(line.text) <= FRAGMENT_CHARS and len(line.text.split()) <= FRAGMENT_WORDS


@dataclass
class Group:
    kind: str
    lines: list[Line] = field(default_factory=list)
    level: int | None = None


def _footnote_start(lines: list[Line], stats: DocStats, height: float) -> int:
    """Index of the page's first footnote: the topmost line that starts with a footnote mark
    within the trailing run of small lines in the lower page (code set small is not a footnote
    unless it starts with a mark, like a typewriter e-mail address)."""
    start = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        ln = lines[i]
        marked = ln.text[:1] in _FOOTNOTE_MARKS
        if not (
            ln.size <= FOOTNOTE_RATIO * stats.body_size
            and ln.top > FOOTNOTE_ZONE * height
            and ln.math_share < 0.3
            and (ln.mono_share < 0.5 or marked)
        ):
            break
        if marked:
            start = i
    return start


def _paragraph_break(prev: Line, cur: Line, stats: DocStats) -> bool:
    prev_text = prev.text.rstrip()
    if cur.page != prev.page or cur.top < prev.top - 0.5 * stats.pitch:  # new page or column
        return prev_text.endswith(_SENTENCE_END) or not cur.text[:1].islower()
    if cur.top - prev.top > 1.45 * stats.pitch or abs(cur.size - prev.size) > 1.5:
        return True
    left = column_left(cur, stats)
    indent = cur.x0 - left
    if 0.8 * stats.body_size < indent < 4 * stats.body_size and cur.x0 > prev.x0 + 2:
        return True
    return False


def group_lines(pages: list[list[Line]], heights: list[float], stats: DocStats) -> list[Group]:
    groups: list[Group] = []
    for lines, height in zip(pages, heights):
        foot = _footnote_start(lines, stats, height)
        toc_page = sum(bool(DOT_LEADER.search(ln.text)) for ln in lines) >= 3
        for i, line in enumerate(lines):
            kind = "footnote" if i >= foot else role(line, stats)
            if toc_page and kind in ("heading", "text", "table") and PAGE_REF.search(line.text):
                kind = "toc"  # a contents entry, not a section of this page
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            if (
                kind == "heading"
                and level_is_bold(line, stats)
                and nxt is not None
                and nxt.text[:1].islower()
                and nxt.top - line.bottom < stats.pitch
            ):
                kind = "text"  # a bold lead-in whose sentence runs on, not a heading
            if not groups:  # the document's first line opens the first group
                groups.append(Group(kind, [line], heading_level(line, stats) if kind == "heading" else None))
                continue
            cur = groups[-1]
            last = cur.lines[-1]
            if (
                kind in ("text", "formula")
                and cur.kind == "code"
                and last.page == line.page
                and not any(c.isalnum() for c in line.text)
                and line.top - last.bottom < stats.pitch
            ):
                cur.lines.append(line)  # closing braces of code, set in a maths font
                continue
            if (
                kind == "text"
                and cur.kind == "formula"
                and last.page == line.page
                and _fragment(line)
                and line.top - last.bottom < stats.pitch
            ):
                cur.lines.append(line)  # a limit, index or denominator of the display above
                continue
            if kind == "heading":
                level = heading_level(line, stats)
                if (
                    cur.kind == "heading"
                    and cur.level == level
                    and last.page == line.page
                    and line.top - last.bottom < stats.pitch
                ):
                    cur.lines.append(line)
                else:
                    groups.append(Group("heading", [line], level))
                continue
            if (
                kind == "footnote"
                and cur.kind == "footnote"
                and line.text[:1] not in "*†‡§¶"
                and not line.text[:1].isdigit()
            ):
                cur.lines.append(line)
                continue
            if (
                kind in ("code", "formula")
                and cur.kind == kind
                and last.page == line.page
                and line.top - last.bottom < 2.5 * stats.pitch
            ):
                cur.lines.append(line)
                continue
            if kind == "formula" and cur.kind == "formula" and last.page == line.page:
                cur.lines.append(line)
                continue
            if kind == "text" and cur.kind in ("caption", "text") and not _paragraph_break(last, line, stats):
                cur.lines.append(line)
                continue
            if (
                kind == "text"
                and cur.kind == "list"
                and last.page == line.page
                and line.x0 > column_left(cur.lines[0], stats) + 2
                and line.top - last.bottom < stats.pitch
            ):
                cur.lines.append(line)
                continue
            if kind == "toc" and cur.kind == "toc":
                cur.lines.append(line)
                continue
            if kind == "list" and cur.kind == "list" and line.top - last.bottom < 1.5 * stats.pitch:
                cur.lines.append(line)
                continue
            groups.append(Group(kind, [line]))
    return _absorb_formula_fragments(groups, stats)


def level_is_bold(line: Line, stats: DocStats) -> bool:
    return heading_level(line, stats) == stats.bold_level


def _absorb_formula_fragments(groups: list[Group], stats: DocStats) -> list[Group]:
    """A one-line short text just above a display formula ('maximize', 'w') is part of it."""
    out: list[Group] = []
    for group in groups:
        prev = out[-1] if out else None
        if (
            group.kind == "formula"
            and prev
            and prev.kind == "text"
            and len(prev.lines) == 1
            and _fragment(prev.lines[0])
            and prev.lines[0].page == group.lines[0].page
            and group.lines[0].top - prev.lines[0].bottom < stats.pitch
        ):
            group.lines.insert(0, prev.lines[0])
            out[-1] = group
            continue
        if (
            group.kind == "formula"
            and prev
            and prev.kind == "formula"
            and prev.lines[-1].page == group.lines[0].page
            and group.lines[0].top - prev.lines[-1].bottom < stats.pitch
        ):
            prev.lines.extend(group.lines)
            continue
        out.append(group)
    return out
