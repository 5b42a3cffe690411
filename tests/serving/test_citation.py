"""Citation verification on real text: Markdown lectures and pypdfium2 text of PDFs, served by a
real CorpusReader over a corpus state written to a temp folder."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pypdfium2
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from corpus.ids import chunk_id_for, document_id_for_bytes, sha256_hex
from corpus.models import BlockKind, DocumentMetadata, ParsedDocument, Passage, RawBlock, SourceRecord, TextQuality
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout, atomic_write_json, atomic_write_jsonl, atomic_write_text
from corpus.text.canonical import assemble_canonical
from corpus.text.normalise import canonical_end, normalise_with_map
from corpus.versions import CHUNKER_VERSION, PARSER_VERSION
from serving.citation.verify import MIN_QUOTE_CHARS, Budget, verify_batch, verify_quote

LIBRARY = Path(__file__).resolve().parents[2] / "library"
LECTURES = [
    "quantopian_lecture07_variance.md",
    "quantopian_lecture20_hypothesis_testing.md",
    "quantopian_lecture28_market_impact_models.md",
]
PDFS = ["pav_notes_on_the_sharpe_ratio.pdf", "kastner_stochvol_jss.pdf"]
SYNTHETIC = (
    "The ﬁrst estimator of volat-\nility uses “returns” and x<sup>2</sup> terms.\n\n"
    "The spread is \u22120.5 basis points \u2013 roughly half of the \u2018quoted\u2019 value.\n\n"
    "We fit the mean-\nvariance model and the Black-\nScholes price to the data.\n\n"
    "Second paragraph with CAPITALS and   many    spaces   between words."
)
PASSAGE_CHARS = 1500
# What the closest search finds is tested here, not its wall-clock budget (test_cost_bounds.py):
# with the served 0.75 s, a machine busy with another test process could end a search early.
UNHURRIED = 60.0


def _write_document(
    layout: StateLayout,
    name: str,
    text_blocks: list[str] | list[RawBlock],
    fmt: str,
    quality: TextQuality | None = None,
) -> str:
    """A served document of these blocks (plain strings are paragraphs), cut into passages of
    about PASSAGE_CHARS, with the parse's text quality (its recorded repairs) when given;
    returns its document_id."""
    text, blocks = assemble_canonical(
        [RawBlock(kind=BlockKind.paragraph, text=b) if isinstance(b, str) else b for b in text_blocks]
    )
    document_id = document_id_for_bytes(f"{name}\x00{text}".encode())
    now = datetime.now(UTC).isoformat()
    atomic_write_json(
        layout.registry_entry(document_id),
        SourceRecord(
            document_id=document_id,
            format=fmt,
            source_sha256=sha256_hex(text),
            bytes=len(text),
            original_name=name,
            registered_at=now,
        ).model_dump(mode="json"),
    )
    atomic_write_text(layout.canonical_text(document_id), text)
    atomic_write_json(
        layout.parsed_blocks(document_id),
        ParsedDocument(
            document_id=document_id,
            parser="test",
            parser_version=PARSER_VERSION,
            canonical_sha256=sha256_hex(text),
            canonical_chars=len(text),
            text_quality=quality,
            blocks=blocks,
        ).model_dump(mode="json"),
    )
    atomic_write_json(layout.metadata(document_id), DocumentMetadata(document_id=document_id).model_dump(mode="json"))
    passages, group = [], []
    for block in blocks + [None]:
        if group and (block is None or block.end - group[0].start > PASSAGE_CHARS):
            start, end = group[0].start, group[-1].end
            passages.append(
                Passage(
                    chunk_id=chunk_id_for(document_id, start, end, CHUNKER_VERSION),
                    document_id=document_id,
                    ordinal=len(passages),
                    text=text[start:end],
                    ranges=[(start, end)],
                    granularity="exact",
                ).model_dump(mode="json")
            )
            group = []
        if block is not None:
            group.append(block)
    atomic_write_jsonl(layout.passages(document_id), passages)
    return document_id


def _pdf_text(name: str) -> list[str]:
    pdf = pypdfium2.PdfDocument(LIBRARY / "pdf" / name)
    try:
        return [
            pdf[i].get_textpage().get_text_range().replace("\r\n", "\n").replace("\r", "\n") for i in range(len(pdf))
        ]
    finally:
        pdf.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[CorpusReader, dict[str, str]]:
    layout = StateLayout(tmp_path_factory.mktemp("state")).ensure()
    ids = {}
    for name in LECTURES:
        paragraphs = (LIBRARY / "markdown" / name).read_text(encoding="utf-8").split("\n\n")
        ids[name] = _write_document(layout, name, paragraphs, "markdown")
    for name in PDFS:
        ids[name] = _write_document(layout, name, _pdf_text(name), "pdf")
    ids["synthetic"] = _write_document(layout, "synthetic", SYNTHETIC.split("\n\n"), "markdown")
    big: list[str] = []
    for path in sorted((LIBRARY / "markdown").glob("*.md")):
        big += path.read_text(encoding="utf-8").split("\n\n")
        if sum(map(len, big)) > 200_000:
            break
    ids["big"] = _write_document(layout, "big", big, "markdown")
    return CorpusReader.open(layout), ids


# Whole-word prose sentences: start after whitespace, end before whitespace, no code or markup.
_SENTENCE_RE = re.compile(r"(?<!\S)[A-Z][a-z]+(?:[^.!?\n$|`<>=#\[\]_/{}\\]|\n(?!\n)){50,260}?[a-z][.!?](?=\s|$)")


def real_sentences(reader: CorpusReader, ids: dict[str, str]) -> list[tuple[str, str, int]]:
    """(document_id, sentence, offset) of prose sentences from the lectures and PDFs."""
    found = []
    for name in LECTURES + PDFS:
        doc = ids[name]
        text = reader.canonical_text(doc)
        found += [(doc, m.group(), m.start()) for m in _SENTENCE_RE.finditer(text) if len(m.group().split()) >= 9]
    return found


def _flatten(sentence: str) -> str:
    return " ".join(sentence.replace("\ufffe", "").split())


def test_real_sentences_verify_raw_and_flattened(corpus):
    reader, ids = corpus
    sentences = real_sentences(reader, ids)
    assert len(sentences) >= 200
    assert {doc for doc, _, _ in sentences} >= {ids[p] for p in PDFS}
    normalised = 0
    for doc, sentence, offset in sentences:
        raw = verify_quote(reader, doc, sentence)
        assert raw.status == "verified", sentence
        start, end = raw.offsets[0]
        assert reader.canonical_text(doc)[start:end] == sentence
        assert raw.occurrences >= 1 and raw.chunk_id in reader.passages
        chunk = reader.passages[raw.chunk_id]
        assert any(s <= start < e for s, e in chunk.ranges)
        flat = verify_quote(reader, doc, _flatten(sentence))
        assert flat.status in ("verified", "verified_normalised"), sentence
        s2, e2 = flat.offsets[0]
        span = reader.canonical_text(doc)[s2:e2]
        assert normalise_with_map(span)[0] == normalise_with_map(_flatten(sentence))[0]
        normalised += flat.status == "verified_normalised"
    assert normalised >= 20  # the PDFs' line breaks make many flattened quotes differ from raw text


def test_one_changed_word_is_refused_with_a_one_edit_closest_match(corpus):
    reader, ids = corpus
    rng = random.Random(11)
    sentences = real_sentences(reader, ids)
    sample = rng.sample(sentences, 200)
    for doc, sentence, offset in sample:
        words = sentence.split()
        candidates = [i for i in range(2, len(words) - 2) if words[i].isalpha() and len(words[i]) >= 3]
        if not candidates:
            continue
        i = rng.choice(candidates)
        original = words[i]
        words[i] = "zqxjv"
        result = verify_quote(reader, doc, " ".join(words), budget=Budget(UNHURRIED))
        assert result.status == "not_found" and result.offsets == []
        closest = result.closest
        assert closest is not None and closest.word_edits == 1, (sentence, closest)
        assert closest.differing_words == [{"quote": "zqxjv", "document": original}]
        start, end = closest.document_offsets
        assert start < offset + len(sentence) and offset < end
        assert closest.text == reader.canonical_text(doc)[start:end] and original in closest.text
        assert 0.5 < closest.similarity < 1 and closest.chunk_id in reader.passages


def test_stitched_sentences_are_refused_with_a_closest_match(corpus):
    reader, ids = corpus
    sentences = [s for s in real_sentences(reader, ids) if len(s[1].split()) >= 14]
    rng = random.Random(5)
    checked = 0
    for _ in range(30):
        (doc, first, off1), (_, second, off2) = rng.sample(sentences, 2)
        if abs(off1 - off2) < 2000:
            continue
        stitched = " ".join(first.split()[:8] + second.split()[-8:])
        result = verify_quote(reader, doc, stitched, budget=Budget(UNHURRIED))
        assert result.status == "not_found"
        assert result.closest is not None and result.closest.word_edits >= 4
        checked += 1
    assert checked >= 10


def test_normalisation_cases(corpus):
    reader, ids = corpus
    doc = ids["synthetic"]
    text = reader.canonical_text(doc)
    cases = {
        'The first estimator of volatility uses "returns" and x2 terms.': "The ﬁrst estimator",
        "The spread is -0.5 basis points - roughly half of the 'quoted' value.": "The spread is",
        "We fit the mean-variance model and the Black-Scholes price": "We fit",
        "second paragraph with capitals and many spaces between words.": "Second paragraph",
    }
    for quote, starts_with in cases.items():
        result = verify_quote(reader, doc, quote)
        assert result.status == "verified_normalised", (quote, result.reason)
        start, end = result.offsets[0]
        assert text[start:].startswith(starts_with)
        assert normalise_with_map(text[start:end])[0].replace("-", "") == normalise_with_map(quote)[0].replace("-", "")


def test_normalise_with_map_rules():
    norm, origin = normalise_with_map("  A\u00a0ﬁne  “Test” x<SUP>2</sup>\u2212volat-\nility Black-\nScholes  ")
    assert norm == 'a fine "test" x2-volatility black-scholes'
    assert len(origin) == len(norm) and origin == sorted(origin)
    source = "  A\u00a0ﬁne  “Test” x<SUP>2</sup>\u2212volat-\nility Black-\nScholes  "
    assert source[origin[norm.index("fine")]] == "ﬁ" and source[origin[norm.index("2")]] == "2"
    assert normalise_with_map("cafe\u0301")[0] == normalise_with_map("café")[0] == "café"


def test_ellipsis_quotes_are_checked_as_ordered_segments(corpus):
    reader, ids = corpus
    doc, sentence, offset = next(s for s in real_sentences(reader, ids) if len(s[1].split()) >= 14 and "\n" not in s[1])
    words = sentence.split()
    quote = " ".join(words[:5]) + " … " + " ".join(words[-5:])
    result = verify_quote(reader, doc, quote)
    assert result.status == "verified" and len(result.offsets) == 2
    (s1, e1), (s2, e2) = result.offsets
    text = reader.canonical_text(doc)
    assert text[s1:e1] == " ".join(words[:5]) and text[s2:e2] == " ".join(words[-5:]) and e1 <= s2
    assert verify_quote(reader, doc, " ".join(words[:5]) + " ... " + " ".join(words[-5:])).status == "verified"
    reordered = verify_quote(reader, doc, " ".join(words[-5:]) + " … " + " ".join(words[:5]))
    assert reordered.status == "not_found" and "segment" in reordered.reason
    short = verify_quote(reader, doc, " ".join(words[:5]) + " … " + words[-1])
    assert short.status == "not_found" and "ellipsis" in short.reason


def test_refusals(corpus):
    reader, ids = corpus
    doc = ids[LECTURES[0]]
    too_short = verify_quote(reader, doc, "  " + "x" * (MIN_QUOTE_CHARS - 1) + "  ")
    assert too_short.status == "not_found" and "short" in too_short.reason
    unknown = verify_quote(reader, "doc-" + "0" * 16, "a long enough quote to be checked")
    assert unknown.status == "not_found" and "unknown document" in unknown.reason
    malformed = verify_quote(reader, "../etc/passwd", "a long enough quote to be checked")
    assert malformed.status == "not_found" and "malformed" in malformed.reason
    invented = verify_quote(reader, doc, "Quantum chromodynamics governs gluon confinement in hadrons.")
    assert invented.status == "not_found" and invented.closest is None


def test_chunk_hint_picks_the_occurrence_in_that_passage(corpus):
    reader, ids = corpus
    doc = ids["big"]
    text = reader.canonical_text(doc)
    phrase = next(
        p
        for p in ("the null hypothesis", "the standard deviation", "the mean")
        if len({reader.passages[c].ordinal for c in _chunks_with(reader, doc, text, p)}) >= 2
    )
    chunks = _chunks_with(reader, doc, text, phrase)
    last = chunks[-1]
    result = verify_quote(reader, doc, phrase, chunk_id=last)
    assert result.occurrences >= 2 and result.chunk_id == last
    start, _ = result.offsets[0]
    assert any(s <= start < e for s, e in reader.passages[last].ranges)


def _chunks_with(reader, doc, text, phrase):
    out = []
    for passage in reader.by_document[doc]:
        s, e = passage.ranges[0]
        if phrase in text[s:e]:
            out.append(passage.chunk_id)
    return out


def test_batch_reads_each_document_once_and_keeps_order(corpus, monkeypatch):
    reader, ids = corpus
    sentences = real_sentences(reader, ids)[:40]
    calls = []
    original = reader.canonical_text
    monkeypatch.setattr(reader, "canonical_text", lambda d: calls.append(d) or original(d))
    items = [{"document_id": d, "quote": s} for d, s, _ in sentences] + [{"document_id": "bad", "quote": "x"}, "oops"]
    results = verify_batch(reader, items)
    assert [r.status for r in results[:-2]] == ["verified"] * len(sentences)
    assert [r.quote for r in results[:-2]] == [s for _, s, _ in sentences]
    assert results[-2].status == results[-1].status == "not_found"
    assert sorted(calls) == sorted({d for d, _, _ in sentences})


def test_a_200k_character_document_verifies_raw_and_loose_quotes(corpus):
    """Correctness on a long document; its speed is measured by benchmarks/citation_speed.py
    (cold normalisation and warm verification, p50/p95), not asserted in a timed test."""
    reader, ids = corpus
    doc = ids["big"]
    text = reader.canonical_text(doc)
    assert len(text) >= 200_000
    sentence = next(m.group() for m in _SENTENCE_RE.finditer(text, len(text) // 2))
    loose = _flatten(sentence).upper()
    raw, normalised = verify_quote(reader, doc, sentence), verify_quote(reader, doc, loose)
    assert raw.status == "verified" and normalised.status == "verified_normalised"
    assert raw.offsets == normalised.offsets and text[slice(*raw.offsets[0])] == sentence


_TOKENS = st.sampled_from(
    [
        "alpha",
        "Beta",
        "ﬁt",
        "café",
        "cafe\u0301",
        "it’s",
        "“q”",
        "\u22121",
        "x<sup>2</sup>",
        "volat-\nility",
        "Black-\nScholes",
        "mean-variance",
        "ÉTÉ",
        "straße",
        "a\u00a0b",
    ]
)
_SEPARATORS = st.sampled_from([" ", "\n", "  ", "\t", "\n\n"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_TOKENS, _SEPARATORS), min_size=2, max_size=25), st.data())
def test_normalised_slices_are_found_and_map_back(pairs, data):
    text = "".join(token + sep for token, sep in pairs)
    norm, origin = normalise_with_map(text)
    assert len(norm) == len(origin) and origin == sorted(origin) and all(0 <= i < len(text) for i in origin)
    assert "  " not in norm and norm == norm.strip()
    # any run of whole tokens, cut at separators, normalises to a substring of the whole text's form
    bounds = sorted({0, len(text)} | {i + 1 for i, ch in enumerate(text) if ch == " " and text[i - 1] != " "})
    a, b = sorted(data.draw(st.lists(st.sampled_from(range(len(bounds))), min_size=2, max_size=2, unique=True)))
    piece = text[bounds[a] : bounds[b]]
    assume(piece.strip())
    piece_norm = normalise_with_map(piece)[0]
    at = norm.find(piece_norm)
    assert piece_norm and at >= 0
    start, end = origin[at], canonical_end(text, origin, at + len(piece_norm) - 1)
    assert normalise_with_map(text[start:end])[0] == piece_norm
