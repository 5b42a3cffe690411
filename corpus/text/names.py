"""How a name is folded for matching: one rule for author filters, title filters and the
authors stored with each vector, so a filter and a payload can never disagree; and one rule for
entity names, shared by the graph and the query expansion that reads it."""

from __future__ import annotations

import re
import unicodedata

_SPACING_ACCENTS = dict.fromkeys(map(ord, "\u00b4\u0060\u00a8\u02c6\u02dc\u00b8\u02d8\u02d9\u02da\u02db\u02dd"))
_DASHES = re.compile("[\u2010-\u2015\u2212]")


def fold_name(text: str) -> str:
    """Accent- and case-insensitive form: NFKD, combining marks dropped, case-folded."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def entity_key(name: str) -> str:
    """Folded name: NFKC, accents stripped, case-folded, dashes unified, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", name.translate(_SPACING_ACCENTS)).casefold()
    text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(_DASHES.sub("-", text).split())
