"""Joining wrapped PDF lines into running text, with conservative de-hyphenation."""

from __future__ import annotations

import re

from corpus.models import BlockKind, RawBlock
from ingest.parsing.pdf_lines import HYPHEN_MARK

_WORD_BEFORE = re.compile(r"(\w+)$")
_WORD_AFTER = re.compile(r"^(\w+)")
_HYPHENATED = re.compile(r"\b\w+(?:-\w+)+\b")


def hyphenated_words(texts: list[str]) -> set[str]:
    """Words written with a hyphen inside a line somewhere in the document (e.g. 'two-sided')."""
    found: set[str] = set()
    for text in texts:
        found.update(w.lower() for w in _HYPHENATED.findall(text))
    return found


def join_lines(lines: list[str], keep_hyphen: set[str]) -> str:
    """Join wrapped lines with one space; a line-break hyphen is removed only when it clearly
    splits one word (lower-case letters on both sides, and the document never writes the pair
    with a hyphen inside a line); otherwise the hyphen stays and the halves are glued."""
    out = ""
    for line in lines:
        line = line.strip()
        if not out:
            out = line
            continue
        if out.endswith(HYPHEN_MARK):
            head = out[: -len(HYPHEN_MARK)]
            before, after = _WORD_BEFORE.search(head), _WORD_AFTER.match(line)
            wrapped = (
                before
                and after
                and before.group(1)[-1].islower()
                and after.group(1)[0].islower()
                and f"{before.group(1)}-{after.group(1)}".lower() not in keep_hyphen
            )
            out = head + ("" if wrapped else "-") + line
        elif out.endswith("-") and not out.endswith(" -") and line[:1].isalnum():
            out += line
        else:
            out += " " + line
    return out.replace(HYPHEN_MARK, "-")


_BROKEN_TAIL = re.compile(r"(\w+)-$")
_CONTINUATION = re.compile(r"^([a-z]+)")
_FLOATS = ("footnote", "caption", "table")  # what may stand between a page's last line and the next page's first
_RUNNING = (BlockKind.paragraph, BlockKind.list)  # text a word can break across


def join_broken_blocks(
    blocks: list[RawBlock], known: set[str] | frozenset[str], keep_hyphen: set[str]
) -> tuple[list[RawBlock], int]:
    """Join a paragraph that ends in a hyphenated word fragment to the paragraph that continues it
    (the next block, or the next after footnotes, captions and tables that a page or column break
    put between them), when the joined word is attested in `known`: 'volatil-' + 'ity ...' ->
    'volatility ...'. The hyphen stays when the document writes the pair with a hyphen inside a
    line (`keep_hyphen`), as `join_lines` decides within a block. Returns
    the blocks and the number of joins."""
    out: list[RawBlock] = []
    joins = 0
    pending = list(blocks)
    while pending:
        block = pending.pop(0)
        tail = _BROKEN_TAIL.search(block.text) if block.kind in _RUNNING else None
        if tail:
            skip = 0
            while skip < len(pending) and pending[skip].kind.value in _FLOATS:
                skip += 1
            nxt = pending[skip] if skip < len(pending) else None
            head = _CONTINUATION.match(nxt.text) if nxt is not None and nxt.kind in _RUNNING else None
            if head and nxt is not None:  # a head implies a next block; the check tells the type checker
                joined = (tail.group(1) + head.group(1)).lower()
                hyphenated = f"{tail.group(1)}-{head.group(1)}".lower()
                if joined in known or hyphenated in keep_hyphen:
                    glue = "-" if hyphenated in keep_hyphen else ""
                    text = block.text[:-1] + glue + nxt.text
                    pending.pop(skip)
                    pending.insert(
                        0,
                        block.model_copy(
                            update={"text": text, "page_end": nxt.page_end, "regions": [*block.regions, *nxt.regions]}
                        ),
                    )
                    joins += 1
                    continue
        out.append(block)
    return out, joins
