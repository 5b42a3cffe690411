"""Arms over a tiny BEIR set whose corpus the pipeline's jobs ingested into its own published state."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_benchmark import GROUPED, NAME, TOPICS, corpus_rows
from tiny_benchmark import write_beir as write_corpus

from corpus.config import ServedConfig
from corpus.profiles import describe as describe_profile
from corpus.reading.published import open_published
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from evaluation.arms import arm_engine, parse_arm
from evaluation.datasets import load_beir
from evaluation.runs import PLACEBO, StateNotReady, arm_modes, beir_target, run_arms
from ingest.publication.benchmark import benchmark_layout, index_key, read_state


def write_beir(folder: Path) -> Path:
    """The tiny corpus with 5 queries, q<i> on topic 2i, each judged relevant to document d<2i>."""
    return write_corpus(folder, {f"q{i}": TOPICS[i * 2] for i in range(5)}, {f"q{i}": f"d{i * 2}" for i in range(5)})


@pytest.fixture(scope="module")
def tiny(benchmark_root, tmp_path_factory):
    """(BEIR folder with 5 queries, the home whose benchmarks/ holds the corpus's published state)."""
    return write_beir(tmp_path_factory.mktemp("beir") / NAME), StateLayout(benchmark_root / "home")


def test_the_benchmark_state_is_a_published_corpus_of_the_records(tiny):
    folder, home = tiny
    beir, config = load_beir(folder), ServedConfig()
    layout = benchmark_layout(home, NAME, beir.corpus)
    assert layout.root.parent == home.benchmarks and layout.root.name.startswith(f"{NAME}-")
    state = read_state(layout, config)
    assert state is not None and set(state.chunk_of) == set(beir.corpus) == {r["_id"] for r in corpus_rows()}
    published = open_published(layout)
    try:
        assert published.generation is not None and published.manifest["signature"] == state.signature
        reader = CorpusReader.open(published.layout)
        for beir_id, chunk_id in state.chunk_of.items():
            passage = reader.passages[chunk_id]
            canonical = reader.canonical_text(passage.document_id)
            assert canonical[slice(*passage.ranges[0])] == passage.text == beir.corpus[beir_id]["text"]
            assert passage.granularity == "exact" and passage.role == "body"
            assert (reader.title(passage.document_id) or "") == beir.corpus[beir_id]["title"]
    finally:
        published.close()
    # titles are indexed as written (no display cleaning), and no record is folded into a twin
    assert reader.near_duplicates == {}
    # queries are embedded by the ONNX encoder, as the served library's are (no torch fallback)
    assert layout.onnx_model(config.weights_key).exists()


def test_rows_naming_one_source_become_the_passages_of_one_document(tiny):
    """TAT-QA-style rows (metadata.context_id): one document per context, its rows as passages in
    corpus order; a row without a context stays alone."""
    folder, home = tiny
    beir = load_beir(folder)
    state = read_state(benchmark_layout(home, NAME, beir.corpus), ServedConfig())
    published = open_published(state.layout)
    try:
        reader = CorpusReader.open(published.layout)
    finally:
        published.close()
    documents = {}
    for beir_id, chunk_id in state.chunk_of.items():
        if beir_id.startswith("r"):
            passage = reader.passages[chunk_id]
            documents.setdefault(passage.document_id, []).append((passage.ordinal, beir_id))
    assert sorted(sorted(members) for members in documents.values()) == [
        [(0, "r0"), (1, "r1"), (2, "r2")],
        [(0, "r3"), (1, "r4"), (2, "r5")],
        [(0, "r6")],
        [(0, "r7")],
    ]
    assert len(GROUPED) == 8


def test_a_state_not_built_is_refused_not_built(tmp_path):
    """Evaluation only reads: a benchmark whose state is absent is a request error."""
    folder = write_beir(tmp_path / NAME)
    with pytest.raises(StateNotReady, match="quant-rag eval --bench"):
        beir_target(StateLayout(tmp_path / "home").ensure(), ServedConfig(), folder)
    assert not any((tmp_path / "home" / "benchmarks").iterdir())


def test_words_of_one_document_rank_it_first_under_bm25(tiny):
    folder, home = tiny
    target = beir_target(home, ServedConfig(), folder)
    try:
        result = run_arms(target, ["bm25", "dense", PLACEBO])
    finally:
        target.close()
    for q in target.questions:
        (relevant,) = q.gains
        assert [r for r in result.records if r["arm"] == "bm25" and r["id"] == q.id][0]["ranked"][0] == relevant
        assert result.per_query["bm25"][q.id]["ndcg@10"] == 1.0
    assert result.per_query[PLACEBO] == result.per_query["bm25"]  # same configuration, same ranks
    assert result.arms == {"bm25": "bm25", "dense": "dense", PLACEBO: "bm25"}


def test_arm_names_are_checked():
    assert arm_modes(["dense", "hybrid", PLACEBO])[PLACEBO] == "dense"
    assert arm_modes(["hybrid@100", "hybrid", PLACEBO])[PLACEBO] == "hybrid@100"
    assert (parse_arm("hybrid@100").mode, parse_arm("hybrid@100").pool) == ("hybrid", 100)
    assert (parse_arm("bm25").mode, parse_arm("bm25").pool, parse_arm("bm25").overrides) == ("bm25", None, ())
    arm = parse_arm("hybrid+per_document=10+bm25_stopwords=en+reranker_model_path=none")
    config = arm.config(ServedConfig())
    assert (config.per_document, config.bm25_stopwords, config.reranker_model_path) == (10, "en", None)
    # "none" is None only for a field that may be None; for the stop-word list it is a value
    stopless = parse_arm("hybrid+bm25_stopwords=none").config(ServedConfig(bm25_stopwords="en"))
    assert stopless.bm25_stopwords == "none"
    for bad in (
        [PLACEBO, "dense"],
        ["dense", "dense"],
        ["dense", "rerank"],
        [],
        ["hybrid@5"],
        ["dense@x"],
        ["hybrid+per_document=x"],
        ["hybrid+no_such_field=1"],
        ["hybrid+embedding_model=x"],
        ["hybrid+passage_runtime=onnx"],
        ["hybrid+per_document"],
    ):
        with pytest.raises(ValueError):
            arm_modes(bad)


def test_evaluation_never_imports_the_pipeline():
    """docs/DESIGN.md §1: evaluation → serving → corpus; never dagster, assets or orchestration."""
    import re

    pattern = re.compile(r"^\s*(import|from)\s+(dagster|assets|orchestration)\b", re.MULTILINE)
    package = Path(__file__).resolve().parents[2] / "evaluation"
    offenders = [p.name for p in package.rglob("*.py") if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_an_arm_with_another_analyser_searches_an_index_built_with_it(tiny):
    folder, home = tiny
    target = beir_target(home, ServedConfig(), folder)
    try:
        base = target.engine
        stopped = arm_engine(base, parse_arm("bm25+bm25_stopwords=en").config(base.config))
        assert stopped is arm_engine(base, stopped.config)  # built once per configuration
        assert stopped.parts.reader is base.parts.reader and stopped.parts.bm25 is not base.parts.bm25
        assert stopped.parts.bm25.manifest["analyzer"] == stopped.config.analyzer.name != base.config.analyzer.name
        assert stopped.parts.embedder is base.parts.embedder and stopped.parts.vectors is base.parts.vectors
        assert arm_engine(base, base.config) is base
    finally:
        target.close()


def test_a_corpus_with_a_profile_runs_under_it_and_says_so(tiny, tmp_path):
    folder, home = tiny
    plain = beir_target(home, ServedConfig(), folder)
    plain.close()
    assert plain.profile == "none" and plain.config == ServedConfig()
    # the same corpus under the name of a profiled benchmark: its overrides change what the indexes
    # are built with (BM25's k1 and stop words), so the plain state does not serve it
    named = write_beir(tmp_path / "tatqa")
    profiled = ServedConfig().with_profile("tatqa")
    assert profiled.fusion == "convex" and profiled != ServedConfig() and describe_profile("tatqa") != "none"
    assert index_key(profiled) != index_key(ServedConfig())
    with pytest.raises(StateNotReady):
        beir_target(home, ServedConfig(), named)
    # the profile written as arm overrides is the same configuration: reproducible on any bench
    assert parse_arm("hybrid+" + describe_profile("tatqa")).config(ServedConfig()) == profiled
    # arms stack on top of the profile of the state they run on
    target = beir_target(home, ServedConfig(), folder)
    try:
        result = run_arms(target, ["hybrid", "hybrid+fusion=convex"])
        assert {r["id"] for r in result.records} == {q.id for q in target.questions}
    finally:
        target.close()
