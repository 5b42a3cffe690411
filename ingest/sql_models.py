"""A small dbt-like runner: SQL `select` models in dependency order, then data tests."""

from __future__ import annotations

import graphlib
import re
from pathlib import Path

import duckdb

SQL_ROOT = Path(__file__).resolve().parent.parent / "dbt_like_sql"
_REF_RE = re.compile(r"\{\{\s*ref\('([a-z_][a-z0-9_]*)'\)\s*\}\}")


def _models(root: Path) -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted((root / "models").glob("*.sql"))}


def build_order(models: dict[str, str]) -> list[str]:
    """Models sorted so every model comes after the models it refs (raw_* tables are given)."""
    graph = {name: {r for r in _REF_RE.findall(sql) if r in models} for name, sql in models.items()}
    return list(graphlib.TopologicalSorter(graph).static_order())


def _render(sql: str) -> str:
    return _REF_RE.sub(lambda m: m.group(1), sql)


def run_models(connection: duckdb.DuckDBPyConnection, root: Path = SQL_ROOT) -> list[str]:
    """Materialise every model as a table; returns the order used."""
    models = _models(root)
    order = build_order(models)
    for name in order:
        connection.execute(f"create or replace table {name} as {_render(models[name])}")
    return order


def run_tests(connection: duckdb.DuckDBPyConnection, root: Path = SQL_ROOT) -> dict[str, int]:
    """Failing-row count per data test (0 = pass)."""
    results = {}
    for path in sorted((root / "tests").glob("*.sql")):
        sql = _render(path.read_text(encoding="utf-8"))
        results[path.stem] = connection.execute(f"select count(*) from ({sql})").fetchone()[0]
    return results
