"""How a name is folded for matching: one rule for author filters, title filters and the
authors stored with each vector, so a filter and a payload can never disagree."""

from __future__ import annotations

import unicodedata


def fold_name(text: str) -> str:
    """Accent- and case-insensitive form: NFKD, combining marks dropped, case-folded."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
