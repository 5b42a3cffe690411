"""Markup-insensitive verification (docs/DESIGN.md §5): a table row, inline code or a fenced code line
quoted without its Markdown is `verified_normalised`, and the offsets point at the words."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.ids import document_id_for_bytes, sha256_hex
from corpus.models import DocumentMetadata, ParsedDocument, SourceRecord
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout, atomic_write_json, atomic_write_jsonl, atomic_write_text
from corpus.text.markup import skip_markup, to_original
from corpus.text.normalise import canonical_end, normalise_with_map
from corpus.versions import PARSER_VERSION
from serving.citation.verify import verify_quote

TEXT = """# Risk measures

The table compares the **two** estimators.

| Measure | Estimate | Note |
|---------|:--------:|------|
| Historical VaR | 0.042 | `np.percentile` of returns |
| Parametric VaR | 0.039 | assumes *normal* returns |

Call `np.percentile(returns, 5)` to get the cutoff, then average below it.

To compute the conditional value at risk:
```python
cvar = returns[returns <= var].mean()
```
The result is always at least as large as the VaR.
"""
CASES = {  # quote without markup -> the canonical text its offsets must cover
    "Historical VaR 0.042 np.percentile of returns": "Historical VaR | 0.042 | `np.percentile` of returns",
    "Call np.percentile(returns, 5) to get the cutoff": "Call `np.percentile(returns, 5)` to get the cutoff",
    "To compute the conditional value at risk: cvar = returns[returns <= var].mean()": (
        "To compute the conditional value at risk:\n```python\ncvar = returns[returns <= var].mean()"
    ),
}


@pytest.fixture(scope="module")
def reader_and_doc(tmp_path_factory):
    layout = StateLayout(tmp_path_factory.mktemp("markup")).ensure()
    document_id = document_id_for_bytes(TEXT.encode())
    atomic_write_json(
        layout.registry_entry(document_id),
        SourceRecord(
            document_id=document_id,
            format="markdown",
            source_sha256=sha256_hex(TEXT),
            bytes=len(TEXT),
            original_name="markup.md",
            registered_at=datetime.now(UTC).isoformat(),
        ).model_dump(mode="json"),
    )
    atomic_write_text(layout.canonical_text(document_id), TEXT)
    atomic_write_json(
        layout.parsed_blocks(document_id),
        ParsedDocument(
            document_id=document_id,
            parser="test",
            parser_version=PARSER_VERSION,
            canonical_sha256=sha256_hex(TEXT),
            canonical_chars=len(TEXT),
            blocks=[],
        ).model_dump(mode="json"),
    )
    atomic_write_json(layout.metadata(document_id), DocumentMetadata(document_id=document_id).model_dump(mode="json"))
    atomic_write_jsonl(layout.passages(document_id), [])
    return CorpusReader.open(layout), document_id


@pytest.mark.parametrize("quote", list(CASES))
def test_quotes_without_markup_are_verified_normalised(reader_and_doc, quote):
    reader, doc = reader_and_doc
    result = verify_quote(reader, doc, quote)
    assert result.status == "verified_normalised", result.reason
    start, end = result.offsets[0]
    assert TEXT[start:end] == CASES[quote]


def test_markup_is_not_a_licence_to_change_words(reader_and_doc):
    reader, doc = reader_and_doc
    result = verify_quote(reader, doc, "Historical VaR 0.043 np.percentile of returns")
    assert result.status == "not_found" and result.closest is not None
    assert result.closest.differing_words == [{"quote": "0.043", "document": "0.042"}]
    assert verify_quote(reader, doc, "The table compares the two estimators.").status == "verified_normalised"
    assert verify_quote(reader, doc, "| Measure | Estimate | Note |").status == "verified"  # raw copies stay raw


_WORDS = st.sampled_from(["alpha", "Beta", "log_ret", "x", "0.5", "a*b", "café", "np.mean(r)", "VaR"])
_MARKUP = st.sampled_from(["", "**", "*", "_", "__", "`", "``"])


@st.composite
def _markdown(draw):
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["text", "table", "heading", "fence", "separator"]))
        words = draw(st.lists(st.tuples(_MARKUP, _WORDS), min_size=1, max_size=5))
        body = " ".join(m + w + m for m, w in words)
        lines.append(
            {
                "text": body,
                "table": "| " + body.replace(" ", " | ") + " |",
                "heading": "## " + body,
                "fence": "```python",
                "separator": "|---|:--:|",
            }[kind]
        )
    return "\n".join(lines)


@settings(max_examples=300, deadline=None)
@given(_markdown())
def test_offsets_map_back_to_the_canonical_text(text):
    bare, pieces = skip_markup(text)
    mapped = to_original(list(range(len(bare))), pieces)
    assert len(mapped) == len(bare) and mapped == sorted(set(mapped))
    assert all(text[i] == ch or (ch == " " and text[i] == "|") for i, ch in zip(mapped, bare))
    norm, origin = normalise_with_map(text)
    assert len(norm) == len(origin) and origin == sorted(origin) and all(0 <= i < len(text) for i in origin)
    for i, ch in enumerate(norm):  # every normalised character comes from its canonical source
        source = text[origin[i]]
        assert ch == " " or ch in unicodedata.normalize("NFKC", source).casefold(), (ch, source)
    for word in {w for w in norm.split(" ") if w}:  # each normalised word maps back to itself
        at = norm.find(word)
        start, end = origin[at], canonical_end(text, origin, at + len(word) - 1)
        assert normalise_with_map(text[start:end])[0].replace(" ", "") == word
