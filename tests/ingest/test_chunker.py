"""Chunker: section paths, exact anchors, safe cuts, table pieces, sizes (docs/DESIGN.md §2, §4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from library_parse import parsed

from corpus.ids import CHUNK_ID_RE, chunk_id_for
from corpus.models import BlockKind, Passage, RawBlock
from corpus.text.canonical import assemble_canonical
from corpus.text.safe_cut import forbidden_positions
from corpus.versions import CHUNKER_VERSION
from ingest.parsing import parse_source
from ingest.passages.chunker import MAX_CHARS, MIN_CHARS, TARGET_CHARS, chunk_document

LIBRARY = Path(__file__).resolve().parents[2] / "library"
DOC = "doc-00000000000000aa"
K = BlockKind


def _chunk(raw: list[RawBlock], garbled: bool = False) -> tuple[str, list[Passage]]:
    canonical, blocks = assemble_canonical(raw)
    return canonical, chunk_document(DOC, canonical, blocks, garbled=garbled)


def _assert_invariants(canonical: str, passages: list[Passage]) -> None:
    """Exact anchors round-trip, no boundary is a forbidden cut, ids are unique and derived,
    and together the passages cover every non-blank character in reading order."""
    assert [p.ordinal for p in passages] == list(range(len(passages)))
    assert len({p.chunk_id for p in passages}) == len(passages)
    covered = bytearray(len(canonical))
    cursor = 0
    for p in passages:
        assert CHUNK_ID_RE.match(p.chunk_id) and p.text.strip()
        assert len(p.ranges) == 1
        start, end = p.ranges[0]
        if p.granularity == "exact":
            assert canonical[start:end] == p.text
            assert p.chunk_id == chunk_id_for(DOC, start, end, CHUNKER_VERSION)
            assert start >= cursor, "exact passages are disjoint and in reading order"
            cursor = end
        covered[start:end] = b"\x01" * (end - start)
    bounds = sorted({x for p in passages for x in p.ranges[0]})
    assert forbidden_positions(canonical, bounds) == []
    missed = [i for i, c in enumerate(canonical) if not covered[i] and not c.isspace()]
    assert missed == []


def _sentence(i: int) -> str:
    return f"Sentence number {i} says that volatility clusters and returns have fat tails."


def test_sections_follow_heading_levels_and_headings_open_passages():
    raw = [
        RawBlock(kind=K.heading, text="# Volatility", level=1),
        RawBlock(kind=K.paragraph, text="Intro " + _sentence(0)),
        RawBlock(kind=K.heading, text="## GARCH", level=2),
        RawBlock(kind=K.paragraph, text=" ".join(_sentence(i) for i in range(6))),
        RawBlock(kind=K.heading, text="### Estimation", level=3),
        RawBlock(kind=K.paragraph, text=" ".join(_sentence(i) for i in range(6))),
        RawBlock(kind=K.heading, text="## Stochastic volatility", level=2),
        RawBlock(kind=K.paragraph, text=" ".join(_sentence(i) for i in range(6))),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    by_top = {p.text.split("\n")[0]: p.section for p in passages}
    # the short opening of "Volatility" rides on top of its first subsection's passage
    assert by_top["# Volatility"] == ["Volatility", "GARCH"]
    assert by_top["### Estimation"] == ["Volatility", "GARCH", "Estimation"]
    assert by_top["## Stochastic volatility"] == ["Volatility", "Stochastic volatility"]
    for p in passages:  # headings inside a passage are its own section path, in order, at its top
        headings = [line.lstrip("#").strip() for line in p.text.split("\n") if line.startswith("#")]
        assert headings == p.section[len(p.section) - len(headings) :]
        assert not headings or p.text.startswith("#")


def test_heading_followed_by_deeper_heading_joins_it():
    raw = [
        RawBlock(kind=K.heading, text="# Part", level=1),
        RawBlock(kind=K.heading, text="## Chapter", level=2),
        RawBlock(kind=K.paragraph, text=_sentence(1) * 8),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    assert len(passages) == 1 and passages[0].section == ["Part", "Chapter"]


def test_long_paragraph_cut_at_safe_positions_with_formulas():
    parts = []
    for i in range(60):
        parts.append(_sentence(i))
        parts.append(r"Let $\sigma_t^2 = \omega + \alpha \epsilon_{t-1}^2 + \beta \sigma_{t-1}^2$ hold.")
        if i % 10 == 0:
            parts.append(r"$$ \hat{\theta} = \arg\max_\theta \sum_{t=1}^{T} \log f(r_t \mid \theta) $$")
    raw = [RawBlock(kind=K.paragraph, text=" ".join(parts), page_start=3, page_end=4)]
    canonical, passages = _chunk(raw)
    assert len(canonical) > 3 * MAX_CHARS and len(passages) > 1
    _assert_invariants(canonical, passages)
    for p in passages:
        assert len(p.text) <= MAX_CHARS
        assert p.text.count("$") % 2 == 0, "a formula is never split"
        assert (p.page_start, p.page_end) == (3, 4)
        assert p.granularity == "exact"


def test_long_table_split_between_rows_with_header_repeated():
    header = "| asset | mean | sd | skew |\n|---|---:|---:|---:|"
    rows = [f"| A{i:03d} | {i * 0.01:.4f} | {i * 0.02:.4f} | {-i * 0.001:.4f} |" for i in range(300)]
    raw = [
        RawBlock(kind=K.heading, text="## Summary statistics", level=2),
        RawBlock(kind=K.table, text=header + "\n" + "\n".join(rows), page_start=7, page_end=9),
        RawBlock(kind=K.paragraph, text="After the table. " + _sentence(2)),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    table_start = canonical.index("| asset")
    table_end = canonical.index(rows[-1]) + len(rows[-1])
    pieces = [p for p in passages if K.table in p.block_kinds]
    assert len(pieces) > 2
    assert pieces[0].granularity == "exact" and pieces[0].text.startswith("## Summary statistics\n\n" + header)
    seen: list[str] = []
    for piece in pieces:
        body = piece.text.split(header + "\n", 1)[1]
        seen += body.split("\n")
        assert len(piece.text) <= MAX_CHARS
        assert piece.section == ["Summary statistics"] and piece.page_start == 7
    for piece in pieces[1:]:
        assert piece.granularity == "block" and piece.text.startswith(header + "\n")
        assert piece.ranges == [(table_start, table_end)]
        assert piece.text not in canonical
    assert seen == rows, "every row once, in order, never cut"
    assert passages[-1].text.startswith("After the table.")


def test_code_fence_longer_than_max_is_never_cut():
    code = "```python\n" + "\n".join(f"x_{i} = compute({i})  # step {i}" for i in range(150)) + "\n```"
    canonical, passages = _chunk([RawBlock(kind=K.paragraph, text=_sentence(0)), RawBlock(kind=K.code, text=code)])
    _assert_invariants(canonical, passages)
    assert any(p.text.endswith(code) for p in passages) and len(code) > MAX_CHARS


def test_tiny_trailing_passage_merges_with_previous_of_same_section():
    sentences = [_sentence(i) for i in range(TARGET_CHARS // len(_sentence(0)) + 1)]
    while len(" ".join(sentences)) > TARGET_CHARS - len("## Tails\n\n"):
        sentences.pop()
    long_para = " ".join(sentences)  # fills a passage: the tail no longer fits the target
    raw = [
        RawBlock(kind=K.heading, text="## Tails", level=2),
        RawBlock(kind=K.paragraph, text=long_para),
        RawBlock(kind=K.paragraph, text="Short tail."),
        RawBlock(kind=K.heading, text="## Next", level=2),
        RawBlock(kind=K.paragraph, text=long_para),
    ]
    canonical, passages = _chunk(raw, garbled=True)
    _assert_invariants(canonical, passages)
    assert [p.section for p in passages] == [["Tails"], ["Next"]]
    assert passages[0].text.endswith("Short tail.") and all(p.garbled_text for p in passages)
    assert all(len(p.text) >= MIN_CHARS for p in passages)


def test_paragraphs_are_grouped_up_to_target():
    raw = [RawBlock(kind=K.paragraph, text=_sentence(i) + " " + _sentence(i + 1)) for i in range(40)]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    assert all(len(p.text) <= TARGET_CHARS for p in passages)
    assert sum(len(p.text) for p in passages) > 0.95 * len(canonical)
    assert all(len(a.text) + len(b.text) + 2 > TARGET_CHARS for a, b in zip(passages, passages[1:]))


def _words(n: int, seed: int = 0) -> str:
    """About n characters of sentences."""
    text, i = "", seed
    while len(text) < n:
        text += ("" if not text else " ") + _sentence(i)
        i += 1
    return text


def _table(rows: int) -> str:
    body = "\n".join(f"| A{i:03d} | 0.{i:04d} | 1.{i:04d} |" for i in range(rows))
    return "| asset | mean | sd |\n|---|---:|---:|\n" + body


def _passage_holding(passages: list[Passage], needle: str) -> int:
    return next(p.ordinal for p in passages if needle in p.text)


def test_caption_before_its_table_shares_its_passage():
    caption = "Table 1: Mean and standard deviation of monthly returns, in percent, per asset."
    raw = [
        RawBlock(kind=K.heading, text="## Results", level=2),
        RawBlock(kind=K.paragraph, text=_words(1000)),
        RawBlock(kind=K.caption, text=caption),
        RawBlock(kind=K.table, text=_table(15)),
        RawBlock(kind=K.paragraph, text=_words(700, 9)),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    # chunk-v1 left the caption at the end of the paragraph's passage and the table alone
    held = _passage_holding(passages, caption)
    assert held == _passage_holding(passages, "| A000 |") == _passage_holding(passages, "| A014 |")
    assert passages[held].text.startswith(caption + "\n\n| asset")
    assert passages[held].section == ["Results"] and all(len(p.text) <= MAX_CHARS for p in passages)


def test_caption_after_its_table_shares_its_passage():
    caption = "Table 2: Rejection rates at the 5 % level; columns are sample sizes."
    raw = [
        RawBlock(kind=K.paragraph, text=_words(700)),
        RawBlock(kind=K.table, text=_table(13)),  # with the paragraph: within TARGET_CHARS, the caption not
        RawBlock(kind=K.caption, text=caption),
        RawBlock(kind=K.paragraph, text=_words(900, 5)),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    held = _passage_holding(passages, caption)
    assert held == _passage_holding(passages, "| A000 |") and passages[held].text.endswith(caption)
    # packed as one block: the pair overflowed the paragraph's passage, so it opens the next
    assert passages[held].text.startswith("| asset") and passages[0].text == _words(700)


def test_figure_and_the_caption_beside_it_share_a_passage():
    figure = "Figure 3: Rolling 60-month volatility of the equally weighted portfolio."
    note = "Source: authors' computations on CRSP monthly data, 1990 to 2020."
    raw = [
        RawBlock(kind=K.paragraph, text=_words(1050)),
        RawBlock(kind=K.caption, text=figure, figure=True, regions=[(2, 72, 100, 540, 400)]),
        RawBlock(kind=K.caption, text=note),
        RawBlock(kind=K.paragraph, text=_words(600, 3)),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    assert _passage_holding(passages, figure) == _passage_holding(passages, note)


def test_a_caption_between_two_tables_takes_the_one_the_document_says():
    """Captions set below their tables (the unambiguous second caption says so): the first caption
    belongs to the table above it, not to the nearer-looking one below."""
    raw = [
        RawBlock(kind=K.paragraph, text=_words(400)),
        RawBlock(kind=K.table, text=_table(4)),
        RawBlock(kind=K.caption, text="Table 1: Free elements of the covariance matrix."),
        RawBlock(kind=K.table, text=_table(5)),
        RawBlock(kind=K.caption, text="Table 2: Free elements of the factor covariance."),
        RawBlock(kind=K.paragraph, text=_words(1100, 4)),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    first = _passage_holding(passages, "Table 1:")
    assert passages[first].text.index("| A003 |") < passages[first].text.index("Table 1:")
    assert _passage_holding(passages, "Table 2:") == _passage_holding(passages, "| A004 |")


def test_a_figure_caption_does_not_bind_to_a_table():
    figure = "Figure 15: Observed residuals and their predictive quantiles."
    raw = [
        RawBlock(kind=K.paragraph, text=_words(1000)),
        RawBlock(kind=K.caption, text=figure),
        RawBlock(kind=K.table, text=_table(12)),
        RawBlock(kind=K.caption, text="Table 1: Cumulative predictive log likelihoods."),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    assert _passage_holding(passages, figure) == 0
    assert _passage_holding(passages, "Table 1:") == _passage_holding(passages, "| A000 |") == 1


def test_a_table_too_long_to_share_a_passage_keeps_its_captions_adjacent():
    before, after = "Table 4: Summary statistics per asset.", "Note: returns in percent per month."
    raw = [
        RawBlock(kind=K.paragraph, text=_words(900)),
        RawBlock(kind=K.caption, text=before),
        RawBlock(kind=K.table, text=_table(200)),
        RawBlock(kind=K.caption, text=after),
        RawBlock(kind=K.paragraph, text=_words(900, 2)),
    ]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    pieces = [p for p in passages if K.table in p.block_kinds]
    assert len(pieces) > 2 and all(len(p.text) <= MAX_CHARS for p in passages)
    # the caption before opens the first piece's passage; the one after, the passage after the last
    assert pieces[0].text.startswith(before + "\n\n| asset") and pieces[0].granularity == "exact"
    following = passages[pieces[-1].ordinal + 1]
    assert pieces[-1].granularity == "block" and following.text.startswith(after)


def test_a_pair_over_max_chars_is_cut_apart_at_its_boundary():
    caption = "Table 5: " + _words(900)
    raw = [RawBlock(kind=K.caption, text=caption), RawBlock(kind=K.table, text=_table(45))]
    canonical, passages = _chunk(raw)
    _assert_invariants(canonical, passages)
    assert len(canonical) > MAX_CHARS and [p.text for p in passages][0] == caption
    assert all(len(p.text) <= MAX_CHARS for p in passages)


_piece = st.sampled_from(
    [
        "alpha",
        "beta",
        r"$x_t$",
        "$$ a + b $$",
        r"\(y\)",
        "|",
        "$",
        "**bold**",
        "\n",
        "word-break",
        "1.5%",
        "```",
        r"\begin{align} z \end{align}",
        ". ",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([K.paragraph, K.heading, K.formula, K.table, K.list, K.caption]),
            st.lists(_piece, min_size=1, max_size=60),
            st.integers(1, 60),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_invariants_hold_for_arbitrary_blocks(spec):
    raw = [
        RawBlock(kind=kind, text=" ".join(words * repeat), level=2 if kind is K.heading else None)
        for kind, words, repeat in spec
    ]
    canonical, passages = _chunk(raw)
    if canonical:
        _assert_invariants(canonical, passages)


@pytest.mark.parametrize("path", sorted((LIBRARY / "markdown").glob("*.md")), ids=lambda p: p.stem[:24])
def test_library_markdown_lectures(path):
    canonical, passages = _chunk(parse_source(path, "markdown").raw_blocks)
    _assert_invariants(canonical, passages)
    assert passages and passages[0].section, "a lecture opens under its title"
    for p in passages:  # over MAX only when the body (below its headings) has no safe cut at all
        if len(p.text) > MAX_CHARS:
            body = p.ranges[0][0] + len(re.match(r"(#[^\n]*\n\n)*", p.text).group(0))
            inner = list(range(body + 1, p.ranges[0][1]))
            assert forbidden_positions(canonical, inner) == inner, p.text[:80]


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted((LIBRARY / "pdf").glob("*.pdf")), ids=lambda p: p.stem[:24])
def test_library_pdfs(path):
    output = parsed(path, "pdf")
    canonical, passages = _chunk(output.raw_blocks)
    _assert_invariants(canonical, passages)
    assert all(p.page_start is not None and p.page_start <= p.page_end for p in passages)
    _, blocks = assemble_canonical(output.raw_blocks)
    for table, caption in zip(blocks, blocks[1:]):  # a "Table N" caption set below its table stays with it
        if table.kind is K.table and caption.kind is K.caption and canonical[caption.start :].startswith("Table"):
            together = [p for p in passages if p.ranges[0][0] <= table.end - 1 and caption.start < p.ranges[0][1]]
            assert together or caption.end - table.start > MAX_CHARS, canonical[caption.start : caption.start + 60]
