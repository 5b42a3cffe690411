"""Optional PDF parser: the MinerU flash tier (the `docvortex` library, no model weights).

Measured here (benchmarks/parsers.py; docs/measurements.md, *Ingestion*) it is far slower than
pdfium and, in its offline `txt` mode, renders display equations as images with no text, so it
is not the default; select it with QUANT_RAG_PDF_PARSER=mineru. The library is imported only when
asked for. Where MinerU runs with its formula model (the tiers that need weights), an equation
block's content is LaTeX: the block is then marked as recognised by MinerU. Each block keeps
MinerU's bbox (PDF points, top-left origin) as its page region, so get_passage can render it.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path

from corpus.models import BlockKind, RawBlock

PARSER_NAME = "mineru"
INSTALL_HINT = "pip install docvortex==0.6.4"
log = logging.getLogger(__name__)
_DROPPED = {"header", "footer", "page_number", "aside_text", "discarded"}
_KINDS = {
    "text": BlockKind.paragraph,
    "list": BlockKind.list,
    "code": BlockKind.code,
    "page_footnote": BlockKind.footnote,
    "table": BlockKind.table,
    "equation": BlockKind.formula,
    "interline_equation": BlockKind.formula,
    "image": BlockKind.caption,
}
_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.S | re.I)
_CELL = re.compile(r"<t[hd][^>]*>(.*?)</t[hd]>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")


class ParserUnavailable(RuntimeError):
    """The selected parser's library is not installed."""


def _inline(items) -> str:
    """Flatten docvortex inline content (text runs, links, inline equations) to text."""
    if isinstance(items, str):
        return items
    parts: list[str] = []
    for item in items or []:
        kind, content = item.get("type"), item.get("content")
        if kind in ("equation_inline", "inline_equation") and isinstance(content, str):
            parts.append(f"${content}$")
        elif kind in ("image_body", "table_body", "code_body"):
            parts.append(content if isinstance(content, str) else _inline(content))
        elif kind not in ("image_caption", "table_caption", "image_footnote", "table_footnote"):
            parts.append(content if isinstance(content, str) else _inline(content))
    return "".join(parts)


def _captions(items) -> list[str]:
    return [
        _inline(i.get("content"))
        for i in items or []
        if isinstance(i, dict) and i.get("type") in ("image_caption", "table_caption")
    ]


def html_table_to_pipe(markup: str) -> str | None:
    rows = [
        [html.unescape(_TAG.sub("", c)).strip().replace("|", "\\|") for c in _CELL.findall(r)]
        for r in _ROW.findall(markup)
    ]
    rows = [r for r in rows if any(r)]
    if len(rows) < 2:
        return None
    width = max(len(r) for r in rows)
    lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def _regions(block: dict, page: int) -> list:
    box = block.get("bbox")
    if isinstance(box, (list, tuple)) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box):
        return [(page, *(round(float(v), 1) for v in box))]
    return []


def _block(block: dict, page: int) -> list[RawBlock]:
    kind = str(block.get("type", "text"))
    if kind in _DROPPED:
        return []
    content = block.get("content")
    out: list[RawBlock] = []
    if kind in ("doc_title", "paragraph_title", "title"):
        level = 1 if kind == "doc_title" else int(block.get("level") or 2)
        return [RawBlock(kind=BlockKind.heading, text=_inline(content), page_start=page, page_end=page, level=level)]
    text = _inline(content).strip()
    target = _KINDS.get(kind, BlockKind.paragraph)
    if target is BlockKind.formula:
        text = f"$$\n{text}\n$$" if text else ""
    elif target is BlockKind.table:
        text = html_table_to_pipe(text) or ""  # a table without cell structure is dropped, not faked
    elif target is BlockKind.code:
        text = f"```\n{text}\n```" if text else ""
    if target in (BlockKind.caption, BlockKind.table):
        out.extend(
            RawBlock(kind=BlockKind.caption, text=c, page_start=page, page_end=page)
            for c in _captions(content if isinstance(content, list) else [])
            if c.strip()
        )
    if text.strip() and target is not BlockKind.caption:
        out.insert(
            0,
            RawBlock(
                kind=target,
                text=text,
                page_start=page,
                page_end=page,
                regions=_regions(block, page),
                recognised_by=PARSER_NAME if target is BlockKind.formula else None,
            ),
        )
    return out


def parse_pdf_mineru(path: Path) -> tuple[list[RawBlock], int]:
    try:
        import docvortex
        from loguru import logger
    except ImportError as exc:
        raise ParserUnavailable(f"parser 'mineru' needs the MinerU flash tier: {INSTALL_HINT}") from exc
    logger.disable("docvortex")  # its DEBUG stream would flood the pipeline's stderr
    result = docvortex.parse(str(path), parse_mode="txt")
    blocks: list[RawBlock] = []
    pages = result.middle_json.pages
    for page in pages:
        for block in page.blocks:
            data = block.model_dump(mode="json") if hasattr(block, "model_dump") else dict(block)
            blocks.extend(_block(data, page.page_idx + 1))
    return [b for b in blocks if b.text.strip()], len(pages)
