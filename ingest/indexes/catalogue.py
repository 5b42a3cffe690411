"""The catalogue: state files → raw DuckDB tables (dbt_like_sql/ builds its models on them)."""

from __future__ import annotations

import json
import os

import duckdb

from corpus.models import DocumentMetadata
from corpus.state.layout import StateLayout, read_json
from ingest.passages.integrity import load_passages

RAW_SCHEMAS = {
    "raw_sources": "document_id varchar, format varchar, original_name varchar, library_file varchar, "
    "source_sha256 varchar, bytes bigint",
    "raw_parsed": "document_id varchar, parser varchar, parser_version varchar, pages integer, "
    "garbled_text boolean, canonical_sha256 varchar, canonical_chars bigint",
    "raw_metadata": "document_id varchar, title varchar, title_provenance varchar, authors varchar[], "
    "authors_provenance varchar, year integer, year_provenance varchar, venue varchar, "
    "venue_provenance varchar, licence varchar",
    "raw_passages": "chunk_id varchar, document_id varchar, ordinal integer, section varchar, chars integer, "
    "page_start integer, page_end integer, granularity varchar, range_start bigint, range_end bigint",
    "raw_duplicates": "chunk_id varchar, kept_chunk_id varchar",
    "raw_titles": "document_id varchar, title varchar",
}


def _raw_rows(layout: StateLayout) -> dict[str, list[tuple]]:
    rows: dict[str, list[tuple]] = {name: [] for name in RAW_SCHEMAS}
    for document_id in layout.registered_document_ids():
        if not (layout.passages(document_id).exists() and layout.metadata(document_id).exists()):
            continue
        s = read_json(layout.registry_entry(document_id))
        rows["raw_sources"].append(
            (document_id, s["format"], s["original_name"], s.get("library_file"), s["source_sha256"], s["bytes"])
        )
        p = read_json(layout.parsed_blocks(document_id))
        rows["raw_parsed"].append(
            (
                document_id,
                p["parser"],
                p["parser_version"],
                p.get("pages"),
                p.get("garbled_text", False),
                p["canonical_sha256"],
                p["canonical_chars"],
            )
        )
        m = read_json(layout.metadata(document_id))
        meta = DocumentMetadata(**m)
        rows["raw_metadata"].append(
            (
                document_id,
                m["title"]["value"],
                m["title"]["provenance"],
                meta.author_names,
                m["authors"]["provenance"],
                meta.publication_year,
                m["year"]["provenance"],
                m["venue"]["value"],
                m["venue"]["provenance"],
                m.get("licence"),
            )
        )
        for q in load_passages(layout, document_id):
            rows["raw_passages"].append(
                (
                    q.chunk_id,
                    document_id,
                    q.ordinal,
                    " > ".join(q.section),
                    len(q.text),
                    q.page_start,
                    q.page_end,
                    q.granularity,
                    q.ranges[0][0],
                    q.ranges[-1][1],
                )
            )
    for path, key in ((layout.near_duplicates_file, "raw_duplicates"), (layout.titles_file, "raw_titles")):
        if path.exists():
            rows[key] = sorted(read_json(path).items())
    return rows


def _load_raw_table(connection: duckdb.DuckDBPyConnection, name: str, rows: list[tuple], scratch) -> None:
    """Bulk load through a JSONL file: row-by-row `executemany` takes minutes at 26k passages."""
    connection.execute(f"create table {name} ({RAW_SCHEMAS[name]})")
    if not rows:
        return
    columns = [c.strip().split(" ", 1) for c in RAW_SCHEMAS[name].split(", ")]
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / f"{name}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(dict(zip((c for c, _ in columns), row))) + "\n")
    # The path and the column spec are bound parameters: a state directory may contain a quote.
    connection.execute(
        f"insert into {name} select * from read_json($path, format='newline_delimited', columns=$columns)",
        {"path": str(path), "columns": {c: t.upper() for c, t in columns}},
    )
    path.unlink()


def build_catalogue(layout: StateLayout) -> dict[str, int]:
    """Load the raw tables into a temp file and promote it by rename; returns rows per raw table.
    The models and data tests are dbt's (assets/sql_models.py), run on the promoted file."""
    tmp = layout.catalogue.with_name(layout.catalogue.name + ".tmp")
    tmp.unlink(missing_ok=True)
    connection = duckdb.connect(str(tmp))
    try:
        for name, rows in _raw_rows(layout).items():
            _load_raw_table(connection, name, rows, layout.scratch)
        counts = {t: connection.execute(f"select count(*) from {t}").fetchall()[0][0] for t in RAW_SCHEMAS}
    finally:
        connection.close()
    os.replace(tmp, layout.catalogue)
    return counts
