"""The scope a search runs in: bibliographic filters the engine applies before ranking.

The one `Scope`. serving.toolkit.filters builds it from a call's arguments, a stored scope session
(serving.sessions.kinds.StoredScope) and a period written in the question.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """Bibliographic filters; `None` everywhere means the whole corpus."""

    year_min: int | None = None
    year_max: int | None = None
    authors: tuple[str, ...] = ()  # a document matches if any of these matches
    document_ids: frozenset[str] | None = None

    @property
    def unbounded(self) -> bool:
        return self.year_min is None and self.year_max is None and not self.authors and self.document_ids is None
