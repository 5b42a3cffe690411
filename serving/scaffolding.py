"""Question scaffolding: the words that frame a research question but name nothing in it.

"According to the literature, what do papers say about CVaR?" asks about CVaR; "according",
"literature", "papers" and "say" would only pull in passages that talk about papers. BM25 drops
them from the question (the index keeps every word: a passage may well be about "research").
Stop words are the analyser's business; these are the question-framing words beyond them.
"""

from __future__ import annotations

import re

SCAFFOLDING = frozenset("""
according describe described describes explain explained explains say says said tell tells
mention mentioned mentions discuss discussed discusses summarise summarize give list show
paper papers article articles literature research study studies work works publication
publications document documents source sources library author authors text texts
""".split())
_WORD_RE = re.compile(r"[A-Za-z]+")


def drop_scaffolding(question: str) -> str:
    """The question without its framing words (unchanged when nothing else would be left)."""
    kept = _WORD_RE.sub(lambda m: "" if m.group().lower() in SCAFFOLDING else m.group(), question)
    return kept if re.search(r"\w", kept) else question
