"""Retrieval engine and selection, in process (BM25 mode: no model needed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from corpus.config import ServedConfig
from corpus.models import BlockKind, Passage
from corpus.state.layout import StateLayout
from serving.retrieval.selection import Candidate, reciprocal_rank_fusion, select

REPO = Path(__file__).resolve().parents[2]


def _passage(cid: str, doc: str, text: str, kinds=(BlockKind.paragraph,)) -> Passage:
    return Passage(
        chunk_id=cid,
        document_id=doc,
        ordinal=0,
        text=text,
        ranges=[(0, len(text))],
        granularity="exact",
        block_kinds=list(kinds),
    )


def test_select_drops_headings_short_duplicates_and_caps_documents():
    long = "x " * 150
    passages = {
        "h": _passage("h", "d1", "# Title " + long, [BlockKind.heading]),
        "short": _passage("short", "d1", "too short"),
        "a1": _passage("a1", "d1", long),
        "a2": _passage("a2", "d1", long),
        "a3": _passage("a3", "d1", long),
        "twin": _passage("twin", "d2", long),
        "b1": _passage("b1", "d2", long),
        "c1": _passage("c1", "d3", long),
    }
    ranked = [
        Candidate(c, 1.0 - i / 10)
        for i, c in enumerate(["h", "short", "a1", "twin", "a2", "a3", "b1", "c1", "unknown"])
    ]
    kept = select(ranked, passages, {"twin": "a1"}, limit=10, per_document=2, min_chars=200)
    assert [c.chunk_id for c in kept] == ["a1", "a2", "b1", "c1"]
    assert [c.score for c in kept] == sorted((c.score for c in kept), reverse=True)
    assert len(select(ranked, passages, {}, limit=2, per_document=2, min_chars=200)) == 2


def test_reciprocal_rank_fusion_follows_its_formula():
    dense = [Candidate("a", 0.9), Candidate("b", 0.8), Candidate("c", 0.7)]
    lexical = [Candidate("c", 12.0), Candidate("a", 3.0), Candidate("d", 1.0)]
    fused = {c.chunk_id: c.score for c in reciprocal_rank_fusion([dense, lexical], k=60)}
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["d"] == pytest.approx(1 / 63)
    order = [c.chunk_id for c in reciprocal_rank_fusion([dense, lexical], k=60)]
    assert order == ["a", "c", "b", "d"]  # b and d tie at 1/62 vs 1/63: b first by score
    tied = reciprocal_rank_fusion([[Candidate("y", 1)], [Candidate("x", 1)]], k=60)
    assert [c.chunk_id for c in tied] == ["x", "y"]  # equal score and best rank: chunk id


@pytest.fixture(scope="module")
def context(served_home):
    from serving.mcp.server import ServingContext

    return ServingContext(StateLayout(served_home), ServedConfig())


def test_scope_year_bound_excludes_undated_and_author_is_accent_insensitive(context):
    from serving.retrieval.scope import Scope

    engine = context.engine
    docs = engine.parts.reader.documents
    undated = {d for d, e in docs.items() if e.year is None}
    assert len(undated) == 1
    assert engine.catalogue.documents_in_scope(Scope()) is None
    recent = engine.catalogue.documents_in_scope(Scope(year_min=2016))
    assert recent and not recent & undated and all(docs[d].year >= 2016 for d in recent)
    both = engine.catalogue.documents_in_scope(Scope(authors=("EVGENIA",)))
    assert len(both) == 2 and undated <= both  # "Évgenia" matches "evgenia"
    assert engine.catalogue.documents_in_scope(Scope(authors=("nobody",))) == set()


def test_scope_filter_equals_a_per_document_check(context):
    """The table built once answers every scope like checking each document's entry would."""
    from corpus.text.names import fold_name
    from serving.retrieval.scope import Scope

    engine = context.engine
    docs = engine.parts.reader.documents
    years = sorted({e.year for e in docs.values() if e.year is not None})
    some = frozenset(list(docs)[::2])
    for year_min in (None, years[0], years[len(years) // 2], years[-1] + 1):
        for year_max in (None, years[0] - 1, years[len(years) // 2], years[-1]):
            for authors, ids in (((), None), (("evgenia",), None), (("a",), some), (("  ",), some)):
                scope = Scope(year_min, year_max, authors, ids)
                needles = [fold_name(a) for a in authors if a.strip()]
                expected = {
                    d
                    for d, e in docs.items()
                    if (ids is None or d in ids)
                    and (year_min is None or (e.year is not None and e.year >= year_min))
                    and (year_max is None or (e.year is not None and e.year <= year_max))
                    and (not needles or any(n in fold_name(a) for n in needles for a in e.authors))
                }
                assert engine.catalogue.documents_in_scope(scope) == (None if scope.unbounded else expected), scope


def test_importing_the_server_loads_no_model_and_opens_no_store():
    code = (
        "import sys, serving.server; heavy = {'torch', 'sentence_transformers', 'qdrant_edge', "
        "'qdrant_client', 'bm25s', 'dagster'} & set(sys.modules); assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


def test_serving_never_imports_the_pipeline():
    pattern = re.compile(r"^\s*(import|from)\s+(dagster|assets|orchestration)\b", re.MULTILINE)
    offenders = [str(p) for p in (REPO / "serving").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []
