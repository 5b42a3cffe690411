"""Output contract: safe pagination (property-based, checked independently of safe_cut), flags,
anchor, cite, trace and the timeline preview."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.config import ServedConfig
from corpus.models import Passage
from corpus.versions import CONTRACT_VERSION, SERVER_VERSION
from serving.answer.contract import (
    MATCH_WINDOW,
    PASSAGE_WINDOW,
    SEARCH_WINDOW,
    TIMELINE_PREVIEW,
    WINDOWS,
    anchor_for,
    cite_for,
    make_trace,
    quality_flags,
    serve_text,
    timeline_preview,
)

LECTURES = Path(__file__).resolve().parents[2] / "library" / "markdown"

# ---- generated texts whose protected spans are known by construction ------------------------

_word = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
_math_body = st.lists(
    st.sampled_from(["x", "y_t", "\\alpha", "+", "=", "2^{n}", "\\frac{a}{b}", " ", "\\sigma_i"]),
    min_size=1,
    max_size=8,
).map("".join)


def _piece(kind: str, draw) -> tuple[str, bool]:
    """(text, protected) of one piece; block pieces stand on their own lines."""
    if kind == "word":
        return draw(_word), False
    if kind == "inline":
        return f"${draw(_math_body)}$", True
    if kind == "paren":
        return f"\\({draw(_math_body)}\\)", True
    if kind == "bracket":
        return f"\\[{draw(_math_body)}\n{draw(_math_body)}\\]", True
    if kind == "display":
        return f"\n\n$${draw(_math_body)}\n{draw(_math_body)}$$\n\n", True
    if kind == "env":
        env = draw(st.sampled_from(["equation", "align", "matrix"]))
        return f"\\begin{{{env}}}{draw(_math_body)} \\\\\n& {draw(_math_body)}\\end{{{env}}}", True
    if kind == "fence":
        lines = draw(
            st.lists(
                st.sampled_from(["x = 1", "cost = $5", "print(x)", "", "  y += x  # loop"]), min_size=1, max_size=5
            )
        )
        return "\n\n```python\n" + "\n".join(lines) + "\n```\n\n", True
    if kind == "table":
        rows = draw(st.integers(1, 5))
        return "\n\n" + "\n".join(f"| {draw(_word)} | {draw(_word)} |" for _ in range(rows)) + "\n\n", True
    if kind == "currency":
        return "\\$5", False
    raise AssertionError(kind)


@st.composite
def documents(draw) -> tuple[str, list[tuple[int, int]], set[str]]:
    """Text, its protected spans [start, end) (table rows one by one) and the piece kinds used."""
    kinds = draw(
        st.lists(
            st.sampled_from(
                ["word"] * 6 + ["inline", "paren", "bracket", "display", "env", "fence", "table", "currency"]
            ),
            min_size=1,
            max_size=60,
        )
    )
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    cursor = 0
    for kind in kinds:
        text, protected = _piece(kind, draw)
        sep = draw(st.sampled_from([" ", " ", "\n", ". ", ", "]))
        if parts:
            parts.append(sep)
            cursor += len(sep)
        if protected:
            core = text.strip("\n")
            lead = len(text) - len(text.lstrip("\n"))
            if kind == "table":
                row_start = cursor + lead
                for row in core.split("\n"):
                    spans.append((row_start, row_start + len(row)))
                    row_start += len(row) + 1
            else:
                spans.append((cursor + lead, cursor + lead + len(core)))
        parts.append(text)
        cursor += len(text)
    return "".join(parts), spans, set(kinds)


def independent_unsafe(text: str, spans: list[tuple[int, int]], p: int) -> bool:
    """Cut at p breaks a known protected span or a word (written without safe_cut)."""
    if p <= 0 or p >= len(text):
        return False
    if any(start < p < end for start, end in spans):
        return True
    before, after = text[p - 1], text[p]
    return (before.isalnum() or before in "_\\") and (after.isalnum() or after == "_")


def pages(text: str, window: int) -> list:
    served, offset = [], 0
    while True:
        page = serve_text(text, window, chunk_id="chunk-0123456789abcdef", offset=offset)
        served.append(page)
        if not page.truncated:
            return served
        assert page.next_offset > offset, "pagination must advance"
        offset = page.next_offset


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents(), window=st.integers(8, 300))
def test_pages_never_cut_protected_structures_and_cover_the_text(doc, window):
    text, spans, _ = doc
    served = pages(text, window)
    position = 0
    for page in served:
        start, end = page.offset, page.offset + len(page.text)
        assert not independent_unsafe(text, spans, start), f"page starts inside a structure at {start}"
        assert text[start:end] == page.text, "a page is exactly the text at its offset"
        assert not text[position:start].strip(), "nothing but whitespace is skipped between pages"
        if page.truncated:
            assert not independent_unsafe(text, spans, end), f"page ends inside a structure at {end}"
            assert not text[end : page.next_offset].strip()
            assert page.remaining_chars == len(text) - page.next_offset
            assert page.continuation == f'get_passage(chunk_id="chunk-0123456789abcdef", offset={page.next_offset})'
            if len(page.text) > window:  # allowed only when no safe position exists in the window
                assert all(independent_unsafe(text, spans, q) for q in range(start + 1, start + window + 1))
        else:
            assert page.remaining_chars == 0 and page.next_offset is None and page.continuation is None
            assert not text[end:].strip()
        position = page.next_offset if page.truncated else len(text)


@settings(max_examples=100, deadline=None)
@given(doc=documents(), offset_fraction=st.floats(0, 1))
def test_any_requested_offset_is_snapped_to_a_safe_start(doc, offset_fraction):
    text, spans, _ = doc
    requested = int(len(text) * offset_fraction)
    page = serve_text(text, 50, offset=requested)
    assert page.offset <= requested
    assert not independent_unsafe(text, spans, page.offset)
    assert text[page.offset : page.offset + len(page.text)] == page.text


@settings(max_examples=100, deadline=None)
@given(doc=documents())
def test_flags_match_what_the_text_was_built_from(doc):
    text, _, kinds = doc
    flags = quality_flags(text, truncated=False, garbled=False)
    assert flags.has_math == bool(kinds & {"inline", "paren", "bracket", "display", "env"})
    assert flags.has_table == ("table" in kinds)
    assert not flags.math_unbalanced and not flags.has_control_chars and not flags.has_html_tags
    assert quality_flags(text, truncated=False, garbled=False) == flags  # deterministic


def test_flags_on_defects_and_text_untouched():
    text = "Cost is $5 per x<sup>2</sup> share\x01 here"
    before = str(text)
    flags = quality_flags(text, truncated=True, garbled=True)
    assert text == before
    assert flags.math_unbalanced and flags.has_html_tags and flags.has_control_chars
    assert flags.truncated and flags.garbled_text and not flags.has_table
    clean = quality_flags("A plain sentence.\twith a tab\nand a newline.", truncated=False, garbled=False)
    assert not any(clean.model_dump().values())
    assert not quality_flags("a < b and c > d", False, False).has_html_tags


def test_short_text_is_served_whole_and_real_lecture_pages_stay_within_window():
    short = serve_text("A short passage.\n\n", SEARCH_WINDOW, chunk_id=None)
    assert (short.text, short.truncated, short.remaining_chars, short.continuation) == (
        "A short passage.",
        False,
        0,
        None,
    )
    text = (LECTURES / "quantopian_lecture28_market_impact_models.md").read_text(encoding="utf-8")
    page = serve_text(text, SEARCH_WINDOW)
    assert page.truncated and page.continuation is None and page.next_offset is not None
    assert 0.9 * SEARCH_WINDOW <= len(page.text) <= SEARCH_WINDOW
    assert page.remaining_chars == len(text) - page.next_offset


def test_offset_outside_text_is_refused():
    with pytest.raises(ValueError, match="outside"):
        serve_text("abc def", 10, offset=8)
    with pytest.raises(ValueError, match="outside"):
        serve_text("abc def", 10, offset=-1)


def test_windows_trace_anchor_and_cite():
    assert WINDOWS == {
        "search": SEARCH_WINDOW,
        "passage": PASSAGE_WINDOW,
        "timeline_preview": TIMELINE_PREVIEW,
        "match": MATCH_WINDOW,
    }
    config_hash = ServedConfig().config_hash(WINDOWS)
    first, second = make_trace("abcdef0123", config_hash, SEARCH_WINDOW), make_trace(None, config_hash, PASSAGE_WINDOW)
    assert re.fullmatch(r"[0-9a-f]{16}", first.request_id) and first.request_id != second.request_id
    assert (first.server_version, first.contract_version, first.window) == (
        SERVER_VERSION,
        CONTRACT_VERSION,
        SEARCH_WINDOW,
    )
    passage = Passage(
        chunk_id="chunk-0123456789abcdef",
        document_id="doc-0123456789abcdef",
        ordinal=0,
        text="x",
        ranges=[(10, 20), (22, 40)],
        granularity="block",
    )
    anchor = anchor_for(passage, "ab" * 32)
    assert (anchor.ranges, anchor.granularity, anchor.sha256) == ([(10, 20), (22, 40)], "block", "ab" * 6)
    with pytest.raises(ValueError):
        anchor_for(passage, "not-a-sha")
    cite = cite_for(["Steven E. Pav"], 2024, "Notes on the Sharpe ratio", 3, 4)
    assert cite.text == "Pav, S. E. (2024). Notes on the Sharpe ratio, pp. 3–4" and cite.pages == "3–4"
    assert (
        cite_for(["Pav, Steven E.", "Jean-Philippe Bouchaud"], None, "T", 5, 5).text
        == "Pav, S. E. & Bouchaud, J.-P. (n.d.). T, p. 5"
    )
    many = cite_for(["A One", "B Two", "C Three", "D Four"], 2020, None, None, None)
    assert many.text == "One, A. et al. (2020)." and many.pages is None


def test_timeline_preview_is_short_flat_and_cut_between_words():
    text = (LECTURES / "quantopian_lecture07_variance.md").read_text(encoding="utf-8")
    preview = timeline_preview(text)
    assert len(preview) <= TIMELINE_PREVIEW and preview.endswith("…") and "\n" not in preview
    body = preview[:-1]
    flat = " ".join(text.split())
    assert flat.startswith(body) and not flat[len(body)].isalnum()
    assert timeline_preview("  short\n\ntext ") == "short text"
