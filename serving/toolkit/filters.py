"""Filters → Scope (serving.retrieval.scope): the one place where explicit arguments, a stored scope
session and a period written in the question become the scope a search runs in (search_documents,
timeline, and evaluation's runs, which must resolve a question exactly as the server does)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field, field_validator, model_validator

from corpus.ids import DocumentId
from serving.answer.errors import ErrorCode
from serving.answer.outputs import PeriodOut
from serving.periods.apply import apply_period
from serving.retrieval.engine import Engine
from serving.retrieval.scope import Scope
from serving.sessions.store import SessionStore
from serving.toolkit.context import ScopeContext
from serving.toolkit.session_refs import SessionRef, scope_from_session
from serving.toolkit.tool_spec import ToolInput

YEAR_MIN, YEAR_MAX = 1900, 2099
# The year bounds every tool that filters by year takes (search_documents, timeline, list_documents).
YearMin = Annotated[
    int | None,
    Field(
        ge=YEAR_MIN,
        le=YEAR_MAX,
        description="Earliest year, inclusive; drops undated.",
    ),
]
YearMax = Annotated[
    int | None,
    Field(
        ge=YEAR_MIN,
        le=YEAR_MAX,
        description="Latest year, inclusive; drops undated.",
    ),
]
AUTHOR = "Part of an author's name, any case."
# What the filters can refuse (the "Errors:" line of search_documents and timeline).
FILTER_ERRORS: tuple[tuple[ErrorCode, str], ...] = (
    ("not_found", "unknown document_id or scope"),
    ("invalid_argument", "year_min after year_max, or a non-scope session"),
)


@dataclass
class EngineContext:
    """A scope context outside the server (evaluation): an engine and an empty session store."""

    engine: Engine
    sessions: SessionStore = field(default_factory=SessionStore)


class Filters(ToolInput):
    """Filters shared by search_documents and timeline."""

    year_min: YearMin = None
    year_max: YearMax = None
    author: str | None = Field(None, min_length=1, max_length=200, description=AUTHOR)
    document_id: DocumentId | None = Field(None, description="Restrict to this one document.")
    scope: SessionRef | None = Field(None, description='{"session": name} of a stored scope.')
    auto_period: bool = Field(True, description='Read "before 2010" in the query as years.')

    @field_validator("query", mode="after", check_fields=False)
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain text")
        return value

    @model_validator(mode="after")
    def _ordered_years(self):
        if self.year_min is not None and self.year_max is not None and self.year_min > self.year_max:
            raise ValueError("year_min must not exceed year_max")
        return self


def resolve_filters(ctx: ScopeContext, args: Filters, text: str) -> tuple[Scope, PeriodOut, str, str | None]:
    """Merge explicit arguments, a scope session and a period in `text`, in that precedence."""
    session, provenance = scope_from_session(ctx, args.scope.session) if args.scope else (None, None)
    year_min, year_max = args.year_min, args.year_max
    sources = {"min": "caller" if year_min is not None else None, "max": "caller" if year_max is not None else None}
    if session:
        if year_min is None and session.year_min is not None:
            year_min, sources["min"] = session.year_min, "session"
        if year_max is None and session.year_max is not None:
            year_max, sources["max"] = session.year_max, "session"
    clause, rules, unapplied = None, [], None
    newest = ctx.engine.catalogue.newest_year()
    applied = apply_period(text, year_min, year_max, newest) if args.auto_period else None
    if applied is not None and newest is None and applied.parsed.clause:
        # No document carries a year (e.g. a corpus of filings, where "in 2019" names the data's
        # year): a period could only empty the scope, so the question is searched whole.
        clause = unapplied = applied.parsed.clause
    elif applied is not None:
        text, clause, rules = applied.query, applied.parsed.clause, applied.parsed.rules
        for side, source in (("min", applied.source_min), ("max", applied.source_max)):
            if source == "question":
                sources[side] = "question"
        year_min, year_max = applied.year_min, applied.year_max
    authors = (args.author,) if args.author else (tuple(session.authors) if session else ())
    ids = {args.document_id} if args.document_id else None
    if session and session.document_ids:
        ids = set(session.document_ids) & ids if ids else set(session.document_ids)
    scope = Scope(year_min, year_max, authors, frozenset(ids) if ids is not None else None)
    source_min = sources["min"] if year_min is not None else None
    source_max = sources["max"] if year_max is not None else None
    said = [
        f"{name}={value} ({source})"
        for name, value, source in (("year_min", year_min, source_min), ("year_max", year_max, source_max))
        if value
    ]
    note = (
        ("period applied: " + ", ".join(said) + (f"; read from the query: {'; '.join(rules)}" if rules else ""))
        if said
        else None
    )
    if unapplied and note is None:
        note = (
            f"period not applied: no document in the corpus has a publication year, so "
            f"'{unapplied}' stays in the searched text"
        )
    period = PeriodOut(
        year_min=year_min,
        year_max=year_max,
        clause=clause,
        source_min=source_min,
        source_max=source_max,
        note=note,
        words_min=applied.parsed.words_min if applied is not None and source_min == "question" else None,
        words_max=applied.parsed.words_max if applied is not None and source_max == "question" else None,
    )
    return scope, period, text, provenance
