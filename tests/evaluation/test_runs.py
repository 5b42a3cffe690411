"""Arms over a tiny BEIR set indexed into a scratch state with the served engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.config import ServedConfig
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from evaluation.beir_state import build_beir_state, scratch_layout
from evaluation.datasets import load_beir
from evaluation.arms import arm_engine, parse_arm
from evaluation.profiles import describe as describe_profile, with_profile
from evaluation.runs import PLACEBO, arm_modes, beir_target, run_arms

TOPICS = ["volcanic ash aviation", "sourdough fermentation yeast", "glacier meltwater runoff",
          "chess opening theory", "honeybee colony collapse", "tidal turbine energy",
          "medieval manuscript illumination", "zebrafish cartilage regeneration",
          "railway signalling interlocks", "coral reef bleaching"]
FILLER = ("This abstract reports observations, methods and results in plain words so that every "
          "document is long enough to be served as a passage by the retrieval engine. ")


def write_beir(folder: Path) -> Path:
    """10 documents, one topic each; 5 queries, each judged relevant to one document."""
    (folder / "qrels").mkdir(parents=True)
    docs = [{"_id": f"d{i}", "title": f"On {topic}", "text": f"Study of {topic}. " + FILLER * 2}
            for i, topic in enumerate(TOPICS)]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    queries = [{"_id": f"q{i}", "text": TOPICS[i * 2]} for i in range(5)]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i * 2}\t1\n" for i in range(5)))
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("beir")
    return write_beir(root / "tiny"), StateLayout(root / "home").ensure()


def test_scratch_state_is_a_readable_corpus_and_is_cached(tiny):
    folder, home = tiny
    beir, config = load_beir(folder), ServedConfig()
    state = build_beir_state(home, beir, config)
    assert state.layout.root.parent == home.scratch and state.layout == scratch_layout(home, beir)
    reader = CorpusReader.open(state.layout)
    assert len(reader.documents) == len(beir.corpus) == len(state.chunk_of)
    for beir_id, chunk_id in state.chunk_of.items():
        passage = reader.passages[chunk_id]
        canonical = reader.canonical_text(passage.document_id)
        assert canonical[slice(*passage.ranges[0])] == passage.text == beir.corpus[beir_id]["text"]
        assert reader.title(passage.document_id) == beir.corpus[beir_id]["title"]
    # queries are embedded by the ONNX encoder, as the served library's are (no torch fallback)
    assert state.layout.onnx_model(config.weights_key).exists()
    again = build_beir_state(home, beir, config)
    assert not again.built and again.signature == state.signature


def test_rows_naming_one_source_become_the_passages_of_one_document(tmp_path):
    """TAT-QA-style rows (metadata.context_id): one document per context, its rows as passages in
    corpus order, each exactly its row's text at its offsets; a row without a context stays alone."""
    folder = tmp_path / "grouped"
    (folder / "qrels").mkdir(parents=True)
    rows = [{"_id": f"r{i}", "title": "", "text": f"{TOPICS[i]} figures. " + FILLER,
             "metadata": {"context_id": f"ctx{i // 3}"} if i < 6 else {}} for i in range(8)]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q0", "text": TOPICS[4]}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\tr4\t1\n")
    beir = load_beir(folder)
    state = build_beir_state(StateLayout(tmp_path / "home").ensure(), beir, ServedConfig())
    reader = CorpusReader.open(state.layout)
    documents = {}
    for beir_id, chunk_id in state.chunk_of.items():
        passage = reader.passages[chunk_id]
        assert reader.canonical_text(passage.document_id)[slice(*passage.ranges[0])] == beir.corpus[beir_id]["text"]
        documents.setdefault(passage.document_id, []).append((passage.ordinal, beir_id))
    assert sorted(sorted(members) for members in documents.values()) == [
        [(0, "r0"), (1, "r1"), (2, "r2")], [(0, "r3"), (1, "r4"), (2, "r5")], [(0, "r6")], [(0, "r7")]]


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
    for bad in ([PLACEBO, "dense"], ["dense", "dense"], ["dense", "rerank"], [], ["hybrid@5"], ["dense@x"],
                ["hybrid+per_document=x"], ["hybrid+no_such_field=1"], ["hybrid+embedding_model=x"],
                ["hybrid+passage_runtime=onnx"],
                ["hybrid+per_document"]):
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
        assert stopped is arm_engine(base, stopped.config)      # built once per configuration
        assert stopped.reader is base.reader and stopped.bm25 is not base.bm25
        assert stopped.bm25.manifest["analyzer"] == stopped.config.analyzer.name != base.config.analyzer.name
        assert stopped.embedder is base.embedder and stopped.vectors is base.vectors
        assert arm_engine(base, base.config) is base
    finally:
        target.close()


def test_a_corpus_with_a_profile_runs_under_it_and_says_so(tiny, tmp_path):
    folder, home = tiny
    plain = beir_target(home, ServedConfig(), folder)
    plain.close()
    assert plain.profile == "none" and plain.config == ServedConfig()
    # the same corpus under the name of a profiled benchmark: its overrides apply, arms stack on top
    named = write_beir(tmp_path / "tatqa")
    target = beir_target(home, ServedConfig(), named)
    try:
        assert target.profile == describe_profile("tatqa") != "none"
        assert target.config == with_profile(ServedConfig(), "tatqa") != ServedConfig()
        assert target.config.fusion == "convex"
        # the profile written as arm overrides is the same configuration: reproducible on any bench
        assert parse_arm("hybrid+" + target.profile).config(ServedConfig()) == target.config
        result = run_arms(target, ["hybrid", "hybrid+fusion=rrf"])
        assert {r["id"] for r in result.records} == {q.id for q in target.questions}
    finally:
        target.close()
