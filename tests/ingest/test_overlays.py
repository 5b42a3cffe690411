"""Overlays: near-duplicate passages (overlap coefficient on shingles) and consolidated titles."""

from __future__ import annotations

import random

import pytest

from corpus.config import ServedConfig
from corpus.ids import chunk_id_for
from corpus.models import DocumentMetadata, MetadataField, Passage
from ingest.passages.overlays import (
    MIN_DUPLICATE_WORDS,
    consolidated_titles,
    near_duplicates,
    overlap_coefficient,
    shingles,
)

VOCAB = [f"w{i}" for i in range(5000)]
THRESHOLD = ServedConfig().near_duplicate_threshold


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(n))


def _passage(doc: int, ordinal: int, text: str) -> Passage:
    document_id = f"doc-{doc:016x}"
    start = ordinal * 10_000
    return Passage(
        chunk_id=chunk_id_for(document_id, start, start + len(text), "test"),
        document_id=document_id,
        ordinal=ordinal,
        text=text,
        ranges=[(start, start + len(text))],
        granularity="exact",
    )


def _edit(rng: random.Random, text: str, changes: int) -> str:
    tokens = text.split()
    for i in rng.sample(range(len(tokens)), changes):
        tokens[i] = "edited"
    return " ".join(tokens)


def test_overlap_coefficient_properties():
    rng = random.Random(1)
    a, b = _text(rng, 120), _text(rng, 120)
    assert overlap_coefficient(a, a) == 1.0
    assert overlap_coefficient(a, b) == 0.0
    assert overlap_coefficient(a, b) == overlap_coefficient(b, a)
    assert overlap_coefficient(a, a + " " + b) == 1.0, "a text inside a longer one overlaps fully"
    assert overlap_coefficient("Same, short TEXT!", "same short text") == 1.0, "case and punctuation ignored"
    assert overlap_coefficient("", a) == 0.0
    assert len(shingles("one two three")) == 1


def _brute_force(passages: list[Passage], threshold: float) -> dict[str, str]:
    ordered = sorted(passages, key=lambda p: (p.document_id, p.ordinal))
    kept: list[Passage] = []
    twins = {}
    for p in ordered:
        if len(p.text.split()) < MIN_DUPLICATE_WORDS:
            continue
        match = next((k for k in kept if overlap_coefficient(k.text, p.text) >= threshold), None)
        if match:
            twins[p.chunk_id] = match.chunk_id
        else:
            kept.append(p)
    return twins


def test_near_duplicates_match_all_pairs_oracle():
    rng = random.Random(7)
    bases = [_text(rng, rng.randint(20, 200)) for _ in range(60)]
    passages = []
    for doc in range(12):
        for ordinal in range(15):
            base = rng.choice(bases) if rng.random() < 0.5 else _text(rng, rng.randint(20, 200))
            text = _edit(rng, base, rng.randint(0, len(base.split()) // 15))
            passages.append(_passage(doc, ordinal, text))
    rng.shuffle(passages)
    expected = _brute_force(passages, THRESHOLD)
    assert len(expected) > 20, "the fixture must contain duplicates"
    assert near_duplicates(passages) == expected
    assert near_duplicates(passages, threshold=0.3) == _brute_force(passages, 0.3)


def test_earlier_document_wins_and_short_passages_are_ignored():
    rng = random.Random(3)
    text, short = _text(rng, 150), _text(rng, MIN_DUPLICATE_WORDS - 1)
    first, second, third = _passage(1, 4, text), _passage(2, 0, _edit(rng, text, 3)), _passage(3, 9, text)
    others = [_passage(1, 5, short), _passage(2, 1, short), _passage(4, 0, _text(rng, 150))]
    twins = near_duplicates([third, *others, second, first])
    assert twins == {second.chunk_id: first.chunk_id, third.chunk_id: first.chunk_id}


def test_half_shared_text_depends_on_threshold():
    rng = random.Random(5)
    shared, a_tail, b_tail = _text(rng, 100), _text(rng, 100), _text(rng, 100)
    a, b = _passage(1, 0, shared + " " + a_tail), _passage(2, 0, shared + " " + b_tail)
    assert 0.4 < overlap_coefficient(a.text, b.text) < THRESHOLD
    assert near_duplicates([a, b]) == {}
    assert near_duplicates([a, b], threshold=0.4) == {b.chunk_id: a.chunk_id}


@pytest.mark.slow
def test_scales_to_corpus_size():
    rng = random.Random(11)
    passages = [_passage(i // 60, i % 60, _text(rng, 150)) for i in range(26_000)]
    copies = [_passage(1000 + i, 0, _edit(rng, passages[i * 97].text, 5)) for i in range(200)]
    twins = near_duplicates(passages + copies)  # its speed is a benchmark's business, not a test's
    assert twins == {c.chunk_id: passages[i * 97].chunk_id for i, c in enumerate(copies)}


def _meta(document_id: str, title: object) -> DocumentMetadata:
    return DocumentMetadata(document_id=document_id, title=MetadataField(value=title, provenance="pdf_metadata"))


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("Microsoft Word - Risk Parity Portfolios.docx", "Risk Parity Portfolios"),
        (
            "  Highfrequency:  Toolkit for the analysis\n of data in R. ",
            "Highfrequency: Toolkit for the analysis of data in R",
        ),
        ("GARCH(1,1) with Student-t Innovations", "GARCH(1,1) with Student-t Innovations"),
        ("Why Hedge?", "Why Hedge?"),
        ("ghyp: a package ON distributions;", "ghyp: a package ON distributions"),
    ],
)
def test_consolidated_titles_clean_without_touching_case(raw, clean):
    assert consolidated_titles([_meta("doc-0000000000000001", raw)]) == {"doc-0000000000000001": clean}


def test_consolidated_titles_skip_documents_without_title():
    metadata = [
        _meta("doc-0000000000000001", None),
        _meta("doc-0000000000000002", "Microsoft Word - "),
        _meta("doc-0000000000000003", "Notes on the Sharpe ratio"),
    ]
    assert consolidated_titles(metadata) == {"doc-0000000000000003": "Notes on the Sharpe ratio"}
