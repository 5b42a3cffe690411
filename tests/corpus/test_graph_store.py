"""Entity graph store: key folding, atomic write + read round trip, and the three queries on a
small synthetic graph whose scores are worked out by hand below."""

from __future__ import annotations

import math

import pytest

from corpus.graph.entities import Mention, Relation
from corpus.graph.graph_store import ENTITY_TYPES, RELATION_TYPES, GraphStore, entity_key, is_noise, write_graph
from corpus.ids import InvalidIdError


def M(
    chunk_id: str,
    document_id: str,
    name: str,
    entity_type: str,
    start: int = 0,
    end: int = 1,
    surface: str | None = None,
) -> Mention:
    return Mention(chunk_id, document_id, name, entity_type, start, end, surface)


def R(head: str, tail: str, relation: str, chunk_id: str, score: float = 0.9) -> Relation:
    return Relation(head, tail, relation, chunk_id, score)


def chunk(n: int) -> str:
    return f"chunk-{n:016x}"


D1, D2 = "doc-" + "1" * 16, "doc-" + "2" * 16
C1, C2, C3, C4 = (chunk(i) for i in range(1, 5))


def mentions() -> list[M]:
    rows = [
        (C1, D1, "GARCH", "method", 2),
        (C1, D1, "volatility", "measure", 1),
        (C2, D1, "GARCH", "method", 1),
        (C2, D1, "GJR-GARCH", "method", 1),
        (C2, D1, "Sharpe ratio", "measure", 1),
        (C3, D2, "volatility", "measure", 12),
        (C3, D2, "Sharpe ratio", "measure", 1),
        (C4, D2, "GJR-GARCH", "method", 1),
        (C4, D2, "volatility", "measure", 1),
    ]
    out = [M(c, d, name, kind, i, i + 1) for c, d, name, kind, n in rows for i in range(n)]
    out.append(M(C3, D2, "Sharpe ratio", "measure", 50, 52, surface="SR"))
    # noise and unknown types: dropped at write time
    out += [
        M(C1, D1, "td", "method"),
        M(C1, D1, "\\frac", "method"),
        M(C1, D1, "1999", "dataset"),
        M(C1, D1, "GARCH", "software"),
    ]
    return out


RELATIONS = [
    R("GARCH", "volatility", "measures", C1),
    R("garch", "Volatility", "measures", C2),
    R("Sharpe ratio", "GARCH", "compares_with", C2),
    R("GJR-GARCH", "GARCH", "is_a", C4),
    R("GARCH", "unknown thing", "measures", C1),
    R("GARCH", "volatility", "explains", C1),
]


@pytest.fixture()
def store(tmp_path):
    path = tmp_path / "graph.duckdb"
    counts = write_graph(path, "sig123", "test-extractor", mentions(), RELATIONS)
    assert counts["mentions_noise"] == 3 and counts["mentions_unknown_type"] == 1
    assert counts["relations_unresolved"] == 1 and counts["relations_unknown_type"] == 1
    return GraphStore.open(path)


def test_entity_key_folds_accents_case_width_ligatures_and_space():
    assert entity_key("  Black–Litterman\n   Model ") == "black-litterman model"
    assert entity_key("Lüthi") == entity_key("LUTHI") == "luthi"
    assert entity_key("Lu\u00b4thi") == "luthi"  # a spacing accent, not a space
    assert entity_key("Ｇ Ａ Ｒ Ｃ Ｈ") == "g a r c h"  # full width (NFKC)
    assert entity_key("Kalman ﬁlter") == "kalman filter"  # ligature
    assert entity_key("Straße") == "strasse"
    assert entity_key("Hoogerheide") != entity_key("Hoogerheid")


def test_noise_rules():
    assert is_noise("td") and is_noise("<div>") and is_noise("\\mathbf") and is_noise("2010")
    assert is_noise("frac") and not is_noise("VaR") and not is_noise("GARCH")


def test_round_trip_counts_and_metadata(store, tmp_path):
    assert store.signature == "sig123" and store.extractor == "test-extractor"
    assert store.counts() == {"entities": 4, "mentions": 22, "relations": 4, "chunks": 4, "documents": 2}
    assert not [p for p in tmp_path.iterdir() if p.name != "graph.duckdb"]  # no temp file left
    assert {e["type"] for e in store.find_entities("garch") + store.find_entities("volatility")} == {
        "method",
        "measure",
    }
    assert len(RELATION_TYPES) == 10 and len(ENTITY_TYPES) == 7


def test_rewrite_replaces_atomically_and_bad_input_keeps_old_file(tmp_path):
    path = tmp_path / "graph.duckdb"
    write_graph(path, "old", "x", mentions(), [])
    write_graph(path, "new", "x", mentions()[:3], [])
    assert GraphStore.open(path).signature == "new"
    with pytest.raises(InvalidIdError):
        write_graph(path, "broken", "x", [M("chunk-bad", D1, "GARCH", "method")], [])
    assert GraphStore.open(path).signature == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["graph.duckdb"]


def test_majority_type_and_name_win(tmp_path):
    rows = [M(C1, D1, "Beta", "measure"), M(C2, D1, "beta", "measure"), M(C3, D1, "beta", "method")]
    write_graph(tmp_path / "g.duckdb", "s", "x", rows, [])
    store = GraphStore.open(tmp_path / "g.duckdb")
    (entity,) = store.find_entities("BETA")
    assert (entity["name"], entity["type"], entity["mentions"]) == ("beta", "measure", 3)


def test_find_entities_exact_then_containing_and_written_forms(store):
    found = store.find_entities("garch")
    assert [(e["name"], e["weight"]) for e in found] == [("GARCH", 1.0), ("GJR-GARCH", 0.5)]
    assert store.find_entities("garch", entity_type="measure") == []
    assert [e["name"] for e in store.find_entities("SR")] == ["Sharpe ratio"]  # a written form
    assert store.find_entities("arch") == [] and store.find_entities("ga") == []  # whole words only
    with pytest.raises(ValueError):
        store.find_entities("garch", entity_type="software")


def test_containing_match_is_whole_words(tmp_path):
    rows = [M(C1, D1, name, "measure") for name in ("variance", "historical VaR", "VaR", "EGARCH")]
    write_graph(tmp_path / "g.duckdb", "s", "x", rows, [])
    store = GraphStore.open(tmp_path / "g.duckdb")
    assert [(e["name"], e["weight"]) for e in store.find_entities("VaR")] == [("VaR", 1.0), ("historical VaR", 0.5)]
    assert [e["name"] for e in store.find_entities("garch")] == []


def test_search_scores_by_hand(store):
    result = store.search("GARCH")
    scores = {c["chunk_id"]: c["score"] for c in result["chunks"]}
    # c2: GARCH 1.0 + GJR-GARCH 0.5 + 0.01 x (1 + 1); c1: 1.0 + 0.01 x 2; c4: GJR-GARCH 0.5 + 0.01 x 1
    assert [c["chunk_id"] for c in result["chunks"]] == [C2, C1, C4]
    assert scores[C2] == pytest.approx(1.52) and scores[C1] == pytest.approx(1.02)
    assert scores[C4] == pytest.approx(0.51)
    assert result["chunks"][0]["entities"] == ["GARCH", "GJR-GARCH"]
    capped = {c["chunk_id"]: c["score"] for c in store.search("volatility")["chunks"]}
    assert capped[C3] == pytest.approx(1.0 + 0.01 * 10)  # 12 mentions count as 10
    assert len(store.search("GARCH", limit=2)["chunks"]) == 2
    assert [c["document_id"] for c in store.search("GARCH", per_document=1)["chunks"]] == [D1, D2]


def test_search_with_relation_filter_uses_edge_source_chunks(store):
    result = store.search("GARCH", relation="measures")
    assert [c["chunk_id"] for c in result["chunks"]] == [C2, C1]
    assert store.search("volatility", relation="is_a")["chunks"] == []
    with pytest.raises(ValueError):
        store.search("GARCH", relation="explains")


def test_expand_neighbours_and_idf_co_mentions(store):
    result = store.expand("GARCH")
    assert result["entity"]["name"] == "GARCH"
    assert [(n["relation"], n["direction"], n["name"], n["support"]) for n in result["neighbours"]] == [
        ("measures", "out", "volatility", 2),
        ("compares_with", "in", "Sharpe ratio", 1),
        ("is_a", "in", "GJR-GARCH", 1),
    ]
    assert result["neighbours"][0]["chunk_ids"] == [C1, C2]
    co = {c["name"]: c for c in result["co_mentions"]}
    n_chunks = 4
    assert co["GJR-GARCH"]["score"] == pytest.approx(1 * math.log(n_chunks / 2))  # df = 2
    assert co["volatility"]["score"] == pytest.approx(1 * math.log(n_chunks / 3))  # df = 3
    assert co["volatility"]["chunk_ids"] == [C1]
    assert [c["name"] for c in result["co_mentions"]] == ["GJR-GARCH", "Sharpe ratio", "volatility"]
    filtered = store.expand("GARCH", relation="is_a")
    assert [n["name"] for n in filtered["neighbours"]] == ["GJR-GARCH"] and filtered["co_mentions"] == []
    assert store.expand("nothing here")["entity"] is None


def test_connect_intersects_chunk_sets(store):
    result = store.connect("GARCH", "volatility")
    assert [m["name"] for m in result["a"]] == ["GARCH", "GJR-GARCH"]
    # c1: GARCH 1.0 + volatility 1.0 + 0.01 x (2 + 1); c4: GJR-GARCH 0.5 + volatility 1.0 + 0.01 x 2
    assert [(c["chunk_id"], round(c["score"], 6)) for c in result["chunks"]] == [(C1, 2.03), (C4, 1.52)]
    assert result["documents"] == [{"document_id": D1, "shared_chunks": 1}, {"document_id": D2, "shared_chunks": 1}]
    assert store.connect("GARCH", "nothing here")["chunks"] == []


def test_open_missing_file_names_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="entity_graph"):
        GraphStore.open(tmp_path / "absent.duckdb")
