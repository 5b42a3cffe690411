"""Empty scope: when a search's filters match no document, say which filter failed, why, and the
nearest values the corpus does hold (closest author names, nearest years that have documents, the
years covered), with the next call to try. An empty scope says nothing about the library's
answer, so it must never read as "no passage found".
"""

from __future__ import annotations

import difflib
import weakref

from pydantic import BaseModel, Field

from corpus.text.names import fold_name
from serving.retrieval.engine import Engine
from serving.retrieval.scope import Scope

NEAREST_AUTHORS = 5
MIN_NAME_SIMILARITY = 0.5  # difflib ratio under which a name is no suggestion at all
# Folded name -> name as written, per engine: built on first use, gone with the engine.
_AUTHOR_NAMES: weakref.WeakKeyDictionary[Engine, dict[str, str]] = weakref.WeakKeyDictionary()


class EmptyScope(BaseModel):
    """Why the filters match no document, and what the corpus holds instead."""

    filters: list[str] = Field(
        description=("The filter(s) at fault: author, year_min, year_max, document_id, scope (a session's ids).")
    )
    reason: str = Field(description="Why no document passes, in one sentence.")
    nearest_authors: list[str] = Field(description="Author names the corpus holds closest to `author`.")
    nearest_years: list[int] = Field(description="Years with documents nearest the requested range.")
    corpus_years: list[int] | None = Field(description="[oldest, newest] publication year; null if none is dated.")
    next_call: str = Field(description="A call with valid filters, written out.")


def _author_names(engine: Engine) -> dict[str, str]:
    """Folded name -> name as written, for every author in the corpus (built once)."""
    names = _AUTHOR_NAMES.get(engine)
    if names is None:
        names = {}
        for entry in engine.parts.reader.documents.values():
            for author in entry.authors:
                names.setdefault(fold_name(author), author)
        _AUTHOR_NAMES[engine] = names
    return names


def nearest_authors(engine: Engine, needle: str, n: int = NEAREST_AUTHORS) -> list[str]:
    """Corpus author names closest to `needle` (whole name or any part of it, accents and case
    folded), best first; none under MIN_NAME_SIMILARITY."""
    wanted = fold_name(needle).strip()
    scored = []
    for folded, written in _author_names(engine).items():
        parts = [folded, *folded.replace(",", " ").split()]
        score = max(difflib.SequenceMatcher(None, wanted, part).ratio() for part in parts)
        if score >= MIN_NAME_SIMILARITY:
            scored.append((-score, written))
    return [written for _, written in sorted(scored)[:n]]


def _years(engine: Engine) -> list[int]:
    return sorted({e.year for e in engine.parts.reader.documents.values() if e.year is not None})


def nearest_years(years: list[int], low: int | None, high: int | None) -> list[int]:
    """The newest year with documents before the range and the oldest after it."""
    below = [y for y in years if low is not None and y < low]
    above = [y for y in years if high is not None and y > high]
    return ([below[-1]] if below else []) + ([above[0]] if above else [])


def _count(engine: Engine, scope: Scope) -> int:
    allowed = engine.catalogue.documents_in_scope(scope)
    return len(engine.parts.reader.documents) if allowed is None else len(allowed)


def diagnose(engine: Engine, scope: Scope, tool: str) -> EmptyScope | None:
    """None when some document passes `scope`; else which filter(s) empty it and what is near."""
    if _count(engine, scope) > 0:
        return None
    years = _years(engine)
    span = [years[0], years[-1]] if years else None
    bounded = scope.year_min is not None or scope.year_max is not None
    by_years = _count(engine, Scope(scope.year_min, scope.year_max)) if bounded else None
    by_author = _count(engine, Scope(authors=scope.authors)) if scope.authors else None
    by_ids = _count(engine, Scope(document_ids=scope.document_ids)) if scope.document_ids is not None else None
    faults, reasons, authors, near = [], [], [], []
    range_text = f"{scope.year_min or '…'}–{scope.year_max or '…'}"
    if by_author == 0:
        faults.append("author")
        authors = nearest_authors(engine, scope.authors[0])
        reasons.append(f"no author name contains {', '.join(repr(a) for a in scope.authors)}")
    if by_years == 0:
        faults += [n for n in ("year_min", "year_max") if getattr(scope, n) is not None]
        near = nearest_years(years, scope.year_min, scope.year_max)
        reasons.append(
            f"no document is dated {range_text}"
            + (f" (the corpus covers {span[0]}–{span[1]})" if span else " (no document carries a year)")
        )
    if by_ids == 0:
        faults.append("scope")
        reasons.append("the document_id is not among the scope session's documents")
    if not faults:  # each filter matches alone: their combination is what is empty
        faults = [
            n
            for n, on in (
                ("author", by_author),
                ("year_min", scope.year_min),
                ("year_max", scope.year_max),
                ("document_id", by_ids),
            )
            if on is not None
        ]
        reasons.append(_combination(engine, scope, range_text))
        near = _years_of(engine, scope)
    return EmptyScope(
        filters=faults,
        reason="; ".join(reasons),
        nearest_authors=authors,
        nearest_years=near,
        corpus_years=span,
        next_call=_next_call(tool, faults, authors, near),
    )


def _years_of(engine: Engine, scope: Scope) -> list[int]:
    """Years of the documents the non-year filters select (where to move the year bounds)."""
    allowed = engine.catalogue.documents_in_scope(Scope(authors=scope.authors, document_ids=scope.document_ids))
    docs = engine.parts.reader.documents
    return sorted({year for d in allowed or () if (year := docs[d].year) is not None})


def _combination(engine: Engine, scope: Scope, range_text: str) -> str:
    what = (
        "the selected document(s)"
        if scope.document_ids is not None
        else f"the documents by {', '.join(repr(a) for a in scope.authors)}"
    )
    years = _years_of(engine, scope)
    dated = f"dated {', '.join(map(str, years))}" if years else "undated (a year bound excludes them)"
    return f"each filter matches alone, but {what} are {dated}, outside {range_text}"


def _next_call(tool: str, faults: list[str], authors: list[str], years: list[int]) -> str:
    same = "" if tool == "list_documents" else "query=<same>, "  # the only filter tool without a query
    if "author" in faults and authors:
        return f'{tool}({same}author="{authors[0]}")'
    if "author" in faults:
        return "list_documents() to read the author names the corpus holds"
    if years and ("year_min" in faults or "year_max" in faults):
        return f"{tool}({same}year_min={years[0]}, year_max={years[-1]})"
    drop = ", ".join(f"{f}=None" for f in faults)
    return f"{tool}({same}{drop}) — or list_documents() to see what the corpus holds"


def render(empty: EmptyScope) -> str:
    """The text an agent reads: the filter failed, not the library; what to call next."""
    lines = [
        f"No document matches the filters ({', '.join(empty.filters)}): the filter failed, "
        f"not the library — do not tell the user the library holds nothing. Why: {empty.reason}."
    ]
    if empty.nearest_authors:
        lines.append("Closest author names in the corpus: " + "; ".join(empty.nearest_authors) + ".")
    if empty.nearest_years:
        lines.append("Nearest years with documents: " + ", ".join(map(str, empty.nearest_years)) + ".")
    if empty.corpus_years:
        lines.append(f"The corpus covers {empty.corpus_years[0]}–{empty.corpus_years[1]}.")
    lines.append(f"Next: {empty.next_call}")
    return "\n".join(lines)
