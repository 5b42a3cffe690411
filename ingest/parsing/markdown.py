"""Markdown -> typed raw blocks, with markdown-it-py giving the block structure (line ranges).

Block texts are the source lines verbatim (tables, lists, code, formulas), except headings, whose
text is the heading without its '#' marks (the level is kept on the block). A `$$ … $$` display
formula is one block even across blank lines: markdown-it has no maths, so a small block rule
below claims those lines before paragraphs do.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

from corpus.models import BlockKind, RawBlock

MATH_FENCE = "$$"
CODE_FENCE = "```"
_CONTAINERS = {
    "paragraph_open": BlockKind.paragraph,
    "bullet_list_open": BlockKind.list,
    "ordered_list_open": BlockKind.list,
    "blockquote_open": BlockKind.paragraph,
}


def _line(state: StateBlock, number: int) -> str:
    return state.src[state.bMarks[number] + state.tShift[number] : state.eMarks[number]]


def _display_math(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Claim the lines from an opening `$$` (at line start) to the line holding its closing `$$`."""
    if state.is_code_block(start):
        return False
    first = _line(state, start)
    if not first.startswith(MATH_FENCE):
        return False
    last = start
    if MATH_FENCE not in first[len(MATH_FENCE) :]:
        last = start + 1
        while last < end and MATH_FENCE not in _line(state, last):
            last += 1
        if last >= end:
            return False  # never closed: leave the line to the paragraph rule
    if silent:
        return True
    token = state.push("math_block", "math", 0)
    token.block = True
    token.map = [start, last + 1]
    state.line = last + 1
    return True


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table")
    md.block.ruler.before(
        "fence", "display_math", _display_math, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    return md


_MD = _parser()


def _code(lines: list[str], fenced: bool) -> str:
    if fenced and lines[0].lstrip().startswith(CODE_FENCE):
        body = "\n".join(lines)
        return body if lines[-1].strip().startswith(CODE_FENCE) and len(lines) > 1 else body + "\n" + CODE_FENCE
    inner = lines[1:-1] if fenced else [ln[4:] if ln.startswith("    ") else ln.lstrip("\t") for ln in lines]
    return "\n".join([CODE_FENCE, *inner, CODE_FENCE])  # ~~~ and indented code, re-fenced


def _pipe_rows(lines: list[str]) -> str:
    """A table verbatim, except that rows written without outer pipes get them: the cut rules
    (corpus.text.safe_cut) recognise a table row by its leading '|'."""
    rows = []
    for line in lines:
        row = line.strip()
        if not row.startswith("|"):
            row = "| " + row
        if not row.endswith("|") or row.endswith("\\|"):
            row += " |"
        rows.append(row if row != line.strip() else line)
    return "\n".join(rows)


def parse_markdown(text: str) -> list[RawBlock]:
    """Top-level blocks of a Markdown document in source order; HTML comments and rules dropped."""
    lines = text.splitlines()
    tokens = _MD.parse(text)
    blocks: list[RawBlock] = []
    for i, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end = token.map
        source = lines[start:end]
        if token.type == "heading_open":
            blocks.append(RawBlock(kind=BlockKind.heading, text=tokens[i + 1].content.strip(), level=int(token.tag[1])))
        elif token.type == "math_block":
            blocks.append(RawBlock(kind=BlockKind.formula, text="\n".join(source)))
        elif token.type in ("fence", "code_block"):
            blocks.append(RawBlock(kind=BlockKind.code, text=_code(source, token.type == "fence")))
        elif token.type == "html_block":
            if not token.content.lstrip().startswith("<!--"):
                blocks.append(RawBlock(kind=BlockKind.paragraph, text="\n".join(source)))
        elif token.type == "table_open":
            blocks.append(RawBlock(kind=BlockKind.table, text=_pipe_rows(source)))
        elif token.type in _CONTAINERS:
            blocks.append(RawBlock(kind=_CONTAINERS[token.type], text="\n".join(source)))
    return [b for b in blocks if b.text.strip()]
