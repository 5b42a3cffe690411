"""The coherence check reads the entity graph's signature from its meta table alone, and judges it
as loading the whole graph would: the same signature, stale when it differs, unreadable when the
file's format is not the one this code reads."""

from __future__ import annotations

import duckdb

from corpus.config import ServedConfig
from corpus.graph.graph_store import GraphStore
from corpus.state.layout import StateLayout
from serving.coherence import check_state


def _graph(report):
    return next(a for a in report.artefacts if a.name == "entity graph")


def _set_meta(layout: StateLayout, key: str, value: str) -> None:
    con = duckdb.connect(str(layout.graph))
    try:
        con.execute("UPDATE meta SET value = ? WHERE key = ?", [value, key])
    finally:
        con.close()


def test_the_graph_probe_reads_what_the_graph_store_reads(served_copy):
    layout = StateLayout(served_copy)
    report = check_state(layout, ServedConfig())
    assert _graph(report).status == "coherent"
    assert _graph(report).signature == GraphStore.open(layout.graph).signature == report.signature

    _set_meta(layout, "signature", "feedfacecafe")
    report = check_state(layout, ServedConfig())
    assert (_graph(report).status, _graph(report).signature) == ("stale", "feedfacecafe")
    assert not report.coherent

    _set_meta(layout, "format_version", "0")
    report = check_state(layout, ServedConfig())
    assert _graph(report).status == "unreadable" and not report.coherent
