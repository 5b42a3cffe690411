"""The search use case: what a search is, whoever asks it. The filters resolve into a scope and
a period (a period written in the question leaves the searched text), the caller's other inputs
are read, the engine retrieves, and abstention reads the retrieval. The search_documents tool
renders the result; evaluation runs it for every question and arm.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from serving.abstention.model import no_answer_readings
from serving.answer.outputs import PeriodOut
from serving.retrieval.cooperative import other_inputs
from serving.retrieval.engine import Mode, Retrieval
from serving.retrieval.scope import Scope
from serving.toolkit.context import ScopeContext
from serving.toolkit.filters import Filters, resolve_filters


@dataclass(frozen=True)
class SearchRequest:
    """A question with its filters, its mode (None: the configured default), how many passages
    to select, the candidate pool (None: the configured one) and the caller's rephrasings and
    hypothetical passage."""

    query: str
    filters: Filters = field(default_factory=Filters)
    mode: Mode | None = None
    limit: int = 5
    pool: int | None = None
    alternatives: Sequence[str] = ()
    hypothetical_passage: str | None = None


@dataclass(frozen=True)
class SearchResult:
    """A search's retrieval with what it searched and how abstention reads it."""

    found: Retrieval
    scope: Scope
    period: PeriodOut
    mode: Mode
    searched: str  # the question as searched (its period clause removed)
    provenance: str | None  # the provenance of the scope session used
    periods_ignored: list[str | None]  # per input, the question first: a period clause not applied
    hypothetical: str | None  # the hypothetical passage searched
    no_answer: float | None  # P(no answer), serving.abstention.model
    question_no_answer: float | None  # the same read from the question alone


def search(ctx: ScopeContext, request: SearchRequest) -> SearchResult:
    """Run one search: filters, the caller's other inputs, retrieval, abstention."""
    engine = ctx.engine
    scope, period, text, provenance = resolve_filters(ctx, request.filters, request.query)
    mode = request.mode or engine.config.default_mode
    others = other_inputs(
        list(request.alternatives), request.hypothetical_passage, engine.config, engine.catalogue.newest_year()
    )
    found = engine.retrieve(text, mode, scope, limit=request.limit, pool=request.pool, others=[o.input for o in others])
    hypothetical = next((o.input.text for o in others if o.input.kind == "hypothetical"), None)
    with_hypothetical = (hypothetical, list(found.hypothetical_scores)) if hypothetical else None
    no_answer, question = no_answer_readings(engine.parts, text, found, with_hypothetical)
    ignored = [None] + [o.period_ignored for o in others]
    return SearchResult(found, scope, period, mode, text, provenance, ignored, hypothetical, no_answer, question)
