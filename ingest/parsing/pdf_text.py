"""Joining wrapped PDF lines into running text, with conservative de-hyphenation."""

from __future__ import annotations

import re

from corpus.models import BlockKind, RawBlock
from ingest.parsing.pdf_lines import HYPHEN_MARK
from ingest.parsing.vocabulary import dictionary_words

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
_CONTINUATION = re.compile(r"^([a-z]+)(?![a-z]|://)")  # a lower-case word, not an address's scheme
_FLOATS = ("footnote", "caption", "table")  # what may stand between a page's last line and the next page's first
_RUNNING = (BlockKind.paragraph, BlockKind.list)  # text a word can break across
# What a word may break across: running text, or a line taken for a heading (its size misread, or a
# run-in heading with its paragraph's first words): a heading joined to running text becomes it,
# two headings stay one heading.
_CONTINUES = (*_RUNNING, BlockKind.heading)


def _glue(tail: str, head: str, known: set[str] | frozenset[str], keep_hyphen: set[str]) -> str:
    """What joins a word broken across blocks ('volatil-' + 'ity'): the hyphen when the document
    writes the pair with one inside a line, nothing when the joined word is attested (`known`, the
    English list), the hyphen again when no hyphenation TeX makes ends there (one letter or a capital
    before it: 'p-value', 'MM-estimates') or both halves are words ('model-based'), else nothing
    (the halves of a name: 'Kr-ishnaiah')."""
    joined = (tail + head).lower()
    if f"{tail}-{head}".lower() in keep_hyphen:
        return "-"
    english = dictionary_words()
    if joined in known or joined in english:
        return ""
    if len(tail) < 2 or tail[-1].isupper():
        return "-"
    halves = (tail.lower(), head.lower())
    return "-" if all(w in known or w in english for w in halves) else ""


def join_broken_blocks(
    blocks: list[RawBlock], known: set[str] | frozenset[str], keep_hyphen: set[str]
) -> tuple[list[RawBlock], int]:
    """Join a paragraph that ends in a hyphenated word to the paragraph that continues it with a
    lower-case word (the next block, or the next after footnotes, captions and tables that a page
    or column break put between them): 'volatil-' + 'ity ...' -> 'volatility ...'. Whether the
    hyphen stays is `_glue`'s decision (`known`: the words the library and the document write;
    `keep_hyphen`: the pairs the document hyphenates inside a line). Returns the blocks and the
    number of joins."""
    out: list[RawBlock] = []
    joins = 0
    pending = list(blocks)
    while pending:
        block = pending.pop(0)
        tail = _BROKEN_TAIL.search(block.text) if block.kind in _CONTINUES else None
        if tail:
            skip = 0
            while skip < len(pending) and pending[skip].kind.value in _FLOATS:
                skip += 1
            nxt = pending[skip] if skip < len(pending) else None
            head = _CONTINUATION.match(nxt.text) if nxt is not None and nxt.kind in _CONTINUES else None
            if head and nxt is not None:  # a head implies a next block; the check tells the type checker
                text = block.text[:-1] + _glue(tail.group(1), head.group(1), known, keep_hyphen) + nxt.text
                pending.pop(skip)
                pending.insert(
                    0,
                    block.model_copy(
                        update={
                            "text": text,
                            "kind": block.kind if block.kind in _RUNNING else nxt.kind,
                            "page_end": nxt.page_end,
                            "regions": [*block.regions, *nxt.regions],
                        }
                    ),
                )
                joins += 1
                continue
        out.append(block)
    return out, joins
