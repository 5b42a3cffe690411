"""ingest/ in rooms from the ground up: a room imports only the rooms before it in INGEST_LAYERS,
every module sits in a room, and each room is small and says what it holds."""

from __future__ import annotations

import ast

from test_import_graph import MAX_MODULES_PER_ROOM, REPO, corpus_node, cycles, import_graph

INGEST_LAYERS = (
    "ingest.parsing",
    "ingest.graph_extract",
    "ingest.sources",
    "ingest.passages",
    "ingest.indexes",
    "ingest.publication",
)


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Imports from an ingest room to a room placed after it in INGEST_LAYERS."""
    rank = {room: i for i, room in enumerate(INGEST_LAYERS)}
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if corpus_node(module) in rank
        for target in targets
        if corpus_node(target) in rank and rank[corpus_node(target)] > rank[corpus_node(module)]
    )


def test_ingest_rooms_import_only_the_rooms_below_them():
    graph = import_graph(("ingest",))
    assert sorted({corpus_node(m) for m in graph} - set(INGEST_LAYERS)) == ["ingest"]  # no flat module
    assert cycles(graph) == []
    assert upward(graph) == []


def test_the_room_check_sees_an_import_that_climbs_back_up():
    graph = {"ingest.sources.register": {"ingest.indexes.embed"}, "ingest.indexes.embed": set()}
    assert upward(graph) == ["ingest.sources.register -> ingest.indexes.embed"]


def test_ingest_rooms_are_small_and_say_what_they_hold():
    rooms = [p for p in (REPO / "ingest").iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert {f"ingest.{room.name}" for room in rooms} == set(INGEST_LAYERS)
    for room in rooms:
        if room.name == "parsing":  # the PDF parser's steps, one module each
            continue
        modules = [p for p in room.glob("*.py") if p.name != "__init__.py"]
        assert 0 < len(modules) <= MAX_MODULES_PER_ROOM, room.name
    for room in rooms:
        docstring = ast.get_docstring(ast.parse((room / "__init__.py").read_text(encoding="utf-8")))
        assert docstring and len(docstring) > 80, f"ingest/{room.name}/__init__.py needs its paragraph"
