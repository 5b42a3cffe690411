"""The entity graph: a DuckDB file written once per build, read into memory by the server.

Tables: `meta` (signature, extractor, format), `entities` (one row per name key, majority type),
`surfaces` (the written forms seen for each key, so "VaR" and "value at risk" both find an entity),
`mentions` (chunk -> entity, with offsets) and `relations` (typed head -> tail edges, each with its
source chunk). Co-mentions are not stored: they are derived from the mentions at query time.
Queries follow docs/DESIGN.md §6: exact key weight 1.0, containing match 0.5; chunk score
= Σ weights of matched entities present + 0.01 × Σ min(mentions in chunk, 10); co-mention score =
shared chunks × ln(N / df).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from corpus.graph.entities import Mention, Relation
from corpus.ids import validate_chunk_id, validate_document_id
from corpus.text.names import entity_key

ENTITY_TYPES: tuple[str, ...] = (
    "person",
    "organization",
    "financial_instrument",
    "market_concept",
    "measure",
    "method",
    "dataset",
)
RELATION_TYPES: tuple[str, ...] = (
    "measures",
    "predicts",
    "causes",
    "depends_on",
    "correlates_with",
    "applies_to",
    "uses_method",
    "compares_with",
    "is_a",
    "part_of",
)
FORMAT_VERSION = "1"
EXACT_WEIGHT, CONTAINING_WEIGHT = 1.0, 0.5
MENTION_BONUS, MENTION_CAP = 0.01, 10
MIN_CONTAINING_QUERY = 3  # a 1–2 character word is too common to search inside names
EXAMPLE_CHUNKS = 3
TOP_DOCUMENTS = 20

# Spacing accents (´ ` ¨ ˆ ˜ ¸ …) become "space + combining mark" under NFKC: drop them first.
_WORD_BREAKS = re.compile(r"[-/_]")
_HTML_TAGS = frozenset(
    "a b br div em i img li ol p pre span strong sub sup table tbody td th thead tr "
    "u ul html body head href src style".split()
)
_LATEX_COMMANDS = frozenset(
    "frac mathbf mathrm mathcal mathbb left right begin end sum prod int sqrt "
    "hat bar tilde text textbf textit cdot times leq geq infty partial "
    "operatorname label ref cite".split()
)


def is_noise(name: str) -> bool:
    """Names kept out of the graph: ≤ 2 characters, no letter, HTML tag or LaTeX command names."""
    key = entity_key(name)
    return (
        len(key) <= 2
        or not any(c.isalpha() for c in key)
        or key.lstrip("\\") in _LATEX_COMMANDS
        or key.startswith("\\")
        or key.strip("</>") in _HTML_TAGS
    )


def write_graph(
    path: Path, signature: str, extractor: str, mentions: Iterable[Mention], relations: Iterable[Relation]
) -> dict:
    """Build the graph file in a temp file beside `path`, then rename it over `path`; return counts.

    `mentions` carry chunk_id, document_id, name, entity_type, start, end (and optionally
    surface); `relations` carry head, tail, relation, chunk_id, score. Noise names, unknown types
    and relations whose ends are not entities of the graph are dropped and counted.
    """
    kept: list[tuple] = []
    dropped: Counter[str] = Counter()
    for m in mentions:
        if m.entity_type not in ENTITY_TYPES:
            dropped["mentions_unknown_type"] += 1
        elif is_noise(m.name):
            dropped["mentions_noise"] += 1
        else:
            kept.append(
                (
                    validate_chunk_id(m.chunk_id),
                    validate_document_id(m.document_id),
                    entity_key(m.name),
                    m.name,
                    m.entity_type,
                    int(m.start),
                    int(m.end),
                    m.surface or m.name,
                )
            )
    entities = _aggregate_entities(kept)
    chunk_doc = {row[0]: row[1] for row in kept}
    edges = []
    for r in relations:
        head, tail = entity_key(r.head), entity_key(r.tail)
        if r.relation not in RELATION_TYPES:
            dropped["relations_unknown_type"] += 1
        elif head not in entities or tail not in entities or head == tail:
            dropped["relations_unresolved"] += 1
        else:
            chunk_id = validate_chunk_id(r.chunk_id)
            edges.append((head, tail, r.relation, chunk_id, chunk_doc.get(chunk_id), float(r.score)))
    surfaces = Counter((row[2], entity_key(row[7]), row[7]) for row in kept)
    tables = {
        "entities": _columns(
            ["key", "name", "type", "mentions", "chunks"], [(k, *v) for k, v in sorted(entities.items())]
        ),
        "surfaces": _columns(
            ["key", "surface_key", "surface", "count"], [(*k, n) for k, n in sorted(surfaces.items())]
        ),
        "mentions": _columns(
            ["chunk_id", "document_id", "entity_key", "name", "type", "start_pos", "end_pos", "surface"], kept
        ),
        "relations": _columns(["head_key", "tail_key", "relation", "chunk_id", "document_id", "score"], edges),
    }
    counts = {
        "entities": len(entities),
        "mentions": len(kept),
        "relations": len(edges),
        "chunks": len(chunk_doc),
        "documents": len(set(chunk_doc.values())),
        **dropped,
    }
    meta = {
        "signature": signature,
        "extractor": extractor,
        "format_version": FORMAT_VERSION,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    _write_atomically(Path(path), tables, meta)
    return counts


def _aggregate_entities(rows: list[tuple]) -> dict[str, tuple[str, str, int, int]]:
    """key -> (name, type, mentions, chunks); the most frequent name and type win, ties to the first."""
    names: defaultdict[str, Counter[str]] = defaultdict(Counter)
    types: defaultdict[str, Counter[str]] = defaultdict(Counter)
    chunks: defaultdict[str, set[str]] = defaultdict(set)
    for chunk_id, _, key, name, entity_type, *_ in rows:
        names[key][name] += 1
        types[key][entity_type] += 1
        chunks[key].add(chunk_id)
    return {
        key: (
            names[key].most_common(1)[0][0],
            types[key].most_common(1)[0][0],
            sum(names[key].values()),
            len(chunks[key]),
        )
        for key in names
    }


def _columns(names: list[str], rows: list[tuple]) -> dict[str, np.ndarray]:
    """Column arrays DuckDB can scan directly (far faster than row-by-row inserts)."""
    columns = list(zip(*rows)) if rows else [()] * len(names)
    kinds = {int: np.int64, float: np.float64}
    return {
        name: np.array(col, dtype=kinds.get(type(col[0]) if col else str, object)) for name, col in zip(names, columns)
    }


_SCHEMA = {
    "entities": "key VARCHAR, name VARCHAR, type VARCHAR, mentions INTEGER, chunks INTEGER",
    "surfaces": "key VARCHAR, surface_key VARCHAR, surface VARCHAR, count INTEGER",
    "mentions": "chunk_id VARCHAR, document_id VARCHAR, entity_key VARCHAR, name VARCHAR, "
    "type VARCHAR, start_pos INTEGER, end_pos INTEGER, surface VARCHAR",
    "relations": "head_key VARCHAR, tail_key VARCHAR, relation VARCHAR, chunk_id VARCHAR, "
    "document_id VARCHAR, score DOUBLE",
}


def _write_atomically(path: Path, tables: dict[str, dict[str, np.ndarray]], meta: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    os.unlink(tmp)  # DuckDB must create the file itself
    try:
        con = duckdb.connect(tmp)
        try:
            con.execute("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
            con.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
            for name, columns in tables.items():
                con.execute(f"CREATE TABLE {name} ({_SCHEMA[name]})")
                if len(next(iter(columns.values()))):
                    con.register("incoming", columns)
                    con.execute(f"INSERT INTO {name} SELECT * FROM incoming")
                    con.unregister("incoming")
            con.execute("CHECKPOINT")
        finally:
            con.close()
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        Path(tmp + ".wal").unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class _Entity:
    key: str
    name: str
    type: str
    mentions: int
    chunks: int


class GraphStore:
    """The graph file loaded into memory; every query is a pure function of these dictionaries."""

    def __init__(
        self,
        meta: dict[str, str],
        entities: dict[str, _Entity],
        surfaces: dict[str, set[str]],
        mentions: list[tuple[str, str, str, int]],
        relations: list[tuple[str, str, str, str, float]],
    ):
        self.signature, self.extractor = meta["signature"], meta["extractor"]
        self.meta = meta
        self._entities = entities
        # folded written forms, and the same padded with spaces for whole-word containment
        self._forms = {key: frozenset(surfaces.get(key, set()) | {key}) for key in entities}
        self._padded = {key: tuple(_padded(f) for f in forms) for key, forms in self._forms.items()}
        self._chunk_doc: dict[str, str] = {}
        self._by_entity: dict[str, dict[str, int]] = defaultdict(dict)  # key -> chunk -> count
        self._by_chunk: dict[str, dict[str, int]] = defaultdict(dict)  # chunk -> key -> count
        for chunk_id, document_id, key, n in mentions:
            self._chunk_doc[chunk_id] = document_id
            self._by_entity[key][chunk_id] = n
            self._by_chunk[chunk_id][key] = n
        self._edges: dict[str, list[tuple[str, str, str, str, float]]] = defaultdict(list)
        for edge in relations:
            self._edges[edge[0]].append(edge)
            if edge[1] != edge[0]:
                self._edges[edge[1]].append(edge)
        self._relation_count = len(relations)

    @classmethod
    def open(cls, path: Path) -> GraphStore:
        """Read the graph file (read-only) into memory; the file is closed on return."""
        if not Path(path).is_file():
            raise FileNotFoundError(f"no entity graph at {path}: build the entity_graph asset")
        con = duckdb.connect(str(path), read_only=True)
        try:
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("format_version") != FORMAT_VERSION:
                raise ValueError(
                    f"graph format {meta.get('format_version')!r} at {path}; "
                    f"this code reads {FORMAT_VERSION!r}: rebuild the entity graph"
                )
            entities = {
                row[0]: _Entity(*row)
                for row in con.execute("SELECT key, name, type, mentions, chunks FROM entities").fetchall()
            }
            surfaces: dict[str, set[str]] = defaultdict(set)
            for key, surface_key in con.execute("SELECT key, surface_key FROM surfaces").fetchall():
                surfaces[key].add(surface_key)
            mentions = con.execute(
                "SELECT chunk_id, document_id, entity_key, count(*) FROM mentions GROUP BY ALL ORDER BY ALL"
            ).fetchall()
            relations = con.execute(
                "SELECT head_key, tail_key, relation, chunk_id, score FROM relations ORDER BY ALL"
            ).fetchall()
        finally:
            con.close()
        return cls(meta, entities, dict(surfaces), mentions, relations)

    def synonyms(self, exclude_types: frozenset[str] = frozenset({"person"})) -> dict[str, frozenset[str]]:
        """Folded written form -> every folded form of its entity (itself included), for query
        expansion: "cvar" -> {"cvar", "conditional value at risk", "expected shortfall", …}."""
        return {
            form: forms
            for key, forms in self._forms.items()
            if self._entities[key].type not in exclude_types and len(forms) > 1
            for form in forms
        }

    def counts(self) -> dict:
        return {
            "entities": len(self._entities),
            "mentions": sum(e.mentions for e in self._entities.values()),
            "relations": self._relation_count,
            "chunks": len(self._by_chunk),
            "documents": len(set(self._chunk_doc.values())),
        }

    # -- lookup ---------------------------------------------------------------------------------
    def find_entities(self, name: str, entity_type: str | None = None, limit: int = 50) -> list[dict]:
        """Entities whose folded name (or a written form) equals (1.0) or contains (0.5) the query;
        exact first, then by mention count. Containing means as whole words ("garch" is in
        "gjr-garch", not in "egarch"; "var" is not in "variance"), so short queries stay precise."""
        _check_type(entity_type)
        query = entity_key(name)
        if not query:
            return []
        found, padded = [], _padded(query)
        for key, entity in self._entities.items():
            if entity_type and entity.type != entity_type:
                continue
            forms = self._forms[key]
            if query in forms:
                weight = EXACT_WEIGHT
            elif len(query) >= MIN_CONTAINING_QUERY and any(padded in form for form in self._padded[key]):
                weight = CONTAINING_WEIGHT
            else:
                continue
            found.append(self._describe(entity) | {"weight": weight})
        found.sort(key=lambda e: (-e["weight"], -e["mentions"], e["key"]))
        return found[:limit]

    def _describe(self, entity: _Entity) -> dict:
        return {"key": entity.key, "name": entity.name, "type": entity.type, "mentions": entity.mentions}

    def _score_chunks(
        self, chunk_ids: Iterable[str], weights: dict[str, float], extra_present: dict[str, set[str]] | None = None
    ) -> list[dict]:
        """Σ weights of matched entities present + 0.01 × Σ min(mentions in chunk, 10), best first."""
        scored: list[dict[str, Any]] = []
        for chunk_id in chunk_ids:
            in_chunk = self._by_chunk.get(chunk_id, {})
            present = {k for k in weights if k in in_chunk} | (extra_present or {}).get(chunk_id, set())
            score = sum(weights[k] for k in present)
            score += MENTION_BONUS * sum(min(in_chunk.get(k, 0), MENTION_CAP) for k in present)
            names = [self._entities[k].name for k in sorted(present, key=lambda k: (-weights[k], k))]
            scored.append(
                {"chunk_id": chunk_id, "document_id": self._chunk_doc.get(chunk_id), "score": score, "entities": names}
            )
        scored.sort(key=lambda c: (-c["score"], c["chunk_id"]))
        return scored

    # -- the three tools ------------------------------------------------------------------------
    def search(
        self,
        query: str,
        entity_type: str | None = None,
        relation: str | None = None,
        limit: int = 10,
        per_document: int | None = None,
    ) -> dict:
        """Chunks mentioning the matched entities (with `relation`: chunks that are the source of
        such an edge touching them), ranked by the chunk score; at most `per_document` per document."""
        _check_relation(relation)
        matched = self.find_entities(query, entity_type)
        weights = {m["key"]: m["weight"] for m in matched}
        if relation is None:
            candidates, extra = {c for k in weights for c in self._by_entity.get(k, {})}, None
        else:
            extra = defaultdict(set)
            for key in weights:
                for head, tail, rel, chunk_id, _ in self._edges.get(key, []):
                    if rel == relation:
                        extra[chunk_id].add(key)
            candidates = set(extra)
        chunks = self._score_chunks(candidates, weights, extra)
        if per_document:
            seen: Counter = Counter()
            kept = []
            for chunk in chunks:
                seen[chunk["document_id"]] += 1
                if seen[chunk["document_id"]] <= per_document:
                    kept.append(chunk)
            chunks = kept
        return {"entities": matched, "candidates": len(candidates), "chunks": chunks[:limit]}

    def expand(self, name: str, relation: str | None = None, entity_type: str | None = None, limit: int = 20) -> dict:
        """Typed neighbours (grouped by relation, direction, neighbour) and, without a relation
        filter, co-mentioned entities weighted by rarity. An exact match expands alone."""
        _check_relation(relation)
        matches = self.find_entities(name, entity_type)
        exact = [m for m in matches if m["weight"] == EXACT_WEIGHT]
        origin = {m["key"] for m in (exact or matches)}
        groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        for key in sorted(origin):
            for head, tail, rel, chunk_id, _ in self._edges.get(key, []):
                if relation and rel != relation:
                    continue
                for direction, mine, other in (("out", head, tail), ("in", tail, head)):
                    if mine == key and other not in origin:
                        groups[(rel, direction, other)].append(chunk_id)
        neighbours: list[dict[str, Any]] = [
            {
                "relation": rel,
                "direction": direction,
                "key": other,
                "name": self._entities[other].name,
                "type": self._entities[other].type,
                "support": len(chunks),
                "chunk_ids": sorted(set(chunks))[:EXAMPLE_CHUNKS],
            }
            for (rel, direction, other), chunks in groups.items()
        ]
        neighbours.sort(key=lambda n: (-n["support"], n["relation"], n["name"]))
        co_mentions = [] if relation else self._co_mentions(origin)
        return {
            "entity": next(iter(exact or matches), None),
            "matches": exact or matches,
            "neighbours": neighbours[:limit],
            "co_mentions": co_mentions[:limit],
        }

    def _co_mentions(self, origin: set[str]) -> list[dict]:
        total = len(self._by_chunk)
        shared: dict[str, list[str]] = defaultdict(list)
        for chunk_id in sorted({c for k in origin for c in self._by_entity.get(k, {})}):
            for other in self._by_chunk[chunk_id]:
                if other not in origin:
                    shared[other].append(chunk_id)
        rows: list[dict[str, Any]] = [
            {
                "key": k,
                "name": self._entities[k].name,
                "type": self._entities[k].type,
                "shared_chunks": len(chunks),
                "score": len(chunks) * math.log(total / len(self._by_entity[k])),
                "chunk_ids": chunks[:EXAMPLE_CHUNKS],
            }
            for k, chunks in shared.items()
        ]
        rows.sort(key=lambda r: (-r["score"], -r["shared_chunks"], r["name"]))
        return rows

    def connect(self, a: str, b: str, limit: int = 10) -> dict:
        """Chunks where an entity matching `a` and one matching `b` are both mentioned."""
        found_a, found_b = self.find_entities(a), self.find_entities(b)
        weights = {m["key"]: m["weight"] for m in found_a}
        for m in found_b:
            weights[m["key"]] = max(weights.get(m["key"], 0.0), m["weight"])
        chunks_a = {c for m in found_a for c in self._by_entity.get(m["key"], {})}
        chunks_b = {c for m in found_b for c in self._by_entity.get(m["key"], {})}
        chunks = self._score_chunks(chunks_a & chunks_b, weights)
        per_doc = Counter(c["document_id"] for c in chunks)
        documents = [
            {"document_id": d, "shared_chunks": n}
            for d, n in sorted(per_doc.items(), key=lambda item: (-item[1], item[0]))
        ]
        return {
            "a": found_a,
            "b": found_b,
            "chunks": [{k: c[k] for k in ("chunk_id", "document_id", "score", "entities")} for c in chunks[:limit]],
            "documents": documents[:TOP_DOCUMENTS],
        }


def _padded(folded: str) -> str:
    """ " gjr garch " for "gjr-garch": words separated by single spaces, with spaces at both ends."""
    return " " + " ".join(_WORD_BREAKS.sub(" ", folded).split()) + " "


def _check_type(entity_type: str | None) -> None:
    if entity_type is not None and entity_type not in ENTITY_TYPES:
        raise ValueError(f"unknown entity type {entity_type!r}; expected one of {ENTITY_TYPES}")


def _check_relation(relation: str | None) -> None:
    if relation is not None and relation not in RELATION_TYPES:
        raise ValueError(f"unknown relation {relation!r}; expected one of {RELATION_TYPES}")
