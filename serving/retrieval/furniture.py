"""Document furniture at serving time: passages marked at ingest as a table of contents, a title
block, a reference list or an index are ranked only when the question asks for them.

Such a passage shares the question's words (a contents line names every topic of its document,
a reference list every method), so it can outrank the passage that answers while answering
nothing itself. The roles come from the corpus (Passage.role, set by the chunk stage); this
module only reads them. A passage of a state chunked before roles existed reads as "body".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from corpus.models import Passage
from serving.retrieval.selection import Candidate

# What a question says when it wants a kind of furniture. Bare "index" and "reference" are
# ordinary quant-finance words (a stock index, a reference portfolio): they ask for nothing.
ASKS_FOR: dict[str, re.Pattern] = {
    "references": re.compile(
        r"\b(?:references|bibliograph\w*|works\s+cited|cited\s+works|literature\s+cited|"
        r"reference\s+lists?|reading\s+lists?|further\s+reading|cites?|cited\s+by)\b",
        re.I,
    ),
    "contents": re.compile(
        r"\b(?:table\s+of\s+contents|contents|outline|chapters?|"
        r"sections?\s+(?:of|does|in)\s+(?:the|this|that)\s+(?:document|book|paper|"
        r"vignette))\b",
        re.I,
    ),
    "index": re.compile(
        r"\b(?:(?:subject|author|name|book'?s?|back[- ]of[- ]the[- ]book)\s+index|"
        r"index\s+(?:entries|entry|of\s+terms))\b",
        re.I,
    ),
    "title_block": re.compile(
        r"\b(?:title\s+page|title\s+block|affiliations?|e-?mail|"
        r"who\s+(?:wrote|are\s+the\s+authors)|authors?\s+of)\b",
        re.I,
    ),
}


def roles_asked(question: str) -> frozenset[str]:
    """The furniture roles `question` asks for (empty for an ordinary research question)."""
    return frozenset(role for role, pattern in ASKS_FOR.items() if pattern.search(question))


def drop_furniture(ranked: list[Candidate], passages: Mapping[str, Passage], question: str) -> list[Candidate]:
    """`ranked` without the furniture passages the question does not ask for, order unchanged.
    Candidates whose passage is unknown are kept (selection skips them)."""
    allowed = roles_asked(question) | {"body"}
    kept = []
    for candidate in ranked:
        passage = passages.get(candidate.chunk_id)
        if passage is None or passage.role in allowed:
            kept.append(candidate)
    return kept
