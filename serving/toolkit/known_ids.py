"""Well-formed ids that name nothing in the served corpus are errors, not empty results.

A search restricted to an unknown document (an id from another library, or a typo that still has
the right shape) would answer 0 results, which an agent reads as "the library says nothing";
it gets `not_found` naming the id and the tool that lists the valid ones instead.
"""

from __future__ import annotations

from serving.answer.errors import NotFound
from serving.toolkit.session_refs import scope_from_session

SHOWN = 5  # unknown ids named in one message


def require_known_documents(ctx, args) -> None:
    """Raise NotFound when `args.document_id` or the document ids of its scope session are not
    in the served corpus (filters of search_documents and timeline)."""
    known = ctx.engine.parts.reader.documents
    if args.document_id is not None and args.document_id not in known:
        raise NotFound(
            f"unknown document_id {args.document_id}: not in the served corpus; call list_documents for the valid ids",
            fields=["document_id"],
        )
    if args.scope is not None:
        ids = scope_from_session(ctx, args.scope.session)[0].document_ids
        unknown = [i for i in ids if i not in known]
        if unknown:
            more = f" and {len(unknown) - SHOWN} more" if len(unknown) > SHOWN else ""
            raise NotFound(
                f"scope session {args.scope.session!r} names unknown document_id(s) "
                f"{', '.join(unknown[:SHOWN])}{more}: not in the served corpus; call "
                "list_documents for the valid ids",
                fields=["scope"],
            )
