"""The scope catalogue: which documents a scope admits, and the newest publication year (a
relative period counts from it). Built once from the reader, which never changes."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from corpus.text.names import fold_name
from serving.retrieval.scope import Scope

if TYPE_CHECKING:
    from serving.retrieval.parts import Parts


class ScopeCatalogue:
    """Document ids, years (NaN when undated) and folded author names, read from the parts'
    reader on first use: a scoped search then filters arrays instead of reading every entry."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self._table: tuple[list[str], np.ndarray, list[list[str]]] | None = None
        self._newest: tuple[int | None] | None = None
        self._lock = threading.Lock()

    def documents_in_scope(self, scope: Scope) -> set[str] | None:
        """Ids of documents passing the filters, or None when nothing filters.

        A year bound excludes undated documents; the author filter is an accent- and
        case-insensitive substring of any author.
        """
        if scope.unbounded:
            return None
        ids, years, authors = self._catalogue()
        keep = np.ones(len(ids), dtype=bool)
        if scope.year_min is not None:
            keep &= years >= scope.year_min  # NaN (undated) compares false
        if scope.year_max is not None:
            keep &= years <= scope.year_max
        needles = [fold_name(a) for a in scope.authors if a.strip()]
        allowed: set[str] = set()
        for row in np.flatnonzero(keep).tolist():
            document_id = ids[row]
            if scope.document_ids is not None and document_id not in scope.document_ids:
                continue
            if needles and not any(n in a for n in needles for a in authors[row]):
                continue
            allowed.add(document_id)
        return allowed

    def _catalogue(self) -> tuple[list[str], np.ndarray, list[list[str]]]:
        with self._lock:
            if self._table is None:
                entries = self._parts.reader.documents
                self._table = (
                    list(entries),
                    np.array([np.nan if e.year is None else e.year for e in entries.values()]),
                    [[fold_name(a) for a in e.authors] for e in entries.values()],
                )
            return self._table

    def newest_year(self) -> int | None:
        """Newest publication year of the served corpus."""
        if self._newest is None:
            years = [e.year for e in self._parts.reader.documents.values() if e.year is not None]
            self._newest = (max(years) if years else None,)
        return self._newest[0]
