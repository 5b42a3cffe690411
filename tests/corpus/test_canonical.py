"""Canonical text: one rule for control characters, whatever the parser."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from corpus.models import BlockKind, RawBlock
from corpus.text.canonical import BLOCK_SEPARATOR, assemble_canonical, clean_text
from ingest.parsing import parse_source

_ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200)


def _controls(text: str) -> set[str]:
    return {c for c in text if unicodedata.category(c) == "Cc" and c not in "\t\n"}


@given(_ANY_TEXT)
def test_clean_text_keeps_every_other_character_in_order(text):
    cleaned = clean_text(text)
    assert not _controls(cleaned) and "\r" not in cleaned
    expected = "".join(c for c in text.replace("\r\n", "\n").replace("\r", "\n") if not _controls(c))
    assert cleaned == expected and clean_text(cleaned) == cleaned


@given(st.lists(_ANY_TEXT, max_size=6))
def test_assembled_canonical_text_has_no_control_and_its_spans_hold(texts):
    canonical, blocks = assemble_canonical([RawBlock(kind=BlockKind.paragraph, text=t) for t in texts])
    assert not _controls(canonical)
    assert BLOCK_SEPARATOR.join(canonical[b.start : b.end] for b in blocks) == canonical


def test_a_markdown_file_with_nul_bytes_gets_the_same_rule(tmp_path):
    source = tmp_path / "nul.md"
    source.write_bytes(b"# Ti\x00tle\n\nVolatility\x00 clusters\x07 in\r\nreturns.\x1b\n")
    canonical, _ = assemble_canonical(parse_source(source, "markdown").raw_blocks)
    assert canonical == "Title\n\nVolatility clusters in\nreturns."
