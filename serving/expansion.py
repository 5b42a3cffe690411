"""Query expansion from the entity graph: a question that says "CVaR" also searches for
"conditional value at risk" and "expected shortfall", and the other way round.

The synonyms are the written forms the graph saw for one entity in this corpus (curated
vocabulary aliases and acronyms the documents define: "conditional value at risk (CVaR)"), so an
expansion only ever adds words the library itself uses. Persons are never expanded. Only the
lexical side uses the expansion: the embedding of a question already places synonyms together.
"""

from __future__ import annotations

import re

from corpus.text.names import entity_key

_WORD_RE = re.compile(r"[^\s?!,;:()\[\]{}\"“”]+")

MAX_PHRASE_WORDS = 6      # the longest written form looked up in a question
MAX_EXPANSIONS = 8        # forms added per question, nearest first


class QueryExpander:
    """Finds the graph's written forms in a question and returns their synonyms."""

    def __init__(self, synonyms: dict[str, frozenset[str]]) -> None:
        self._synonyms = synonyms

    def expansions(self, question: str) -> list[str]:
        """Synonyms of the forms found in `question` that it does not already contain."""
        words = [w.rstrip(".'’") for w in _WORD_RE.findall(entity_key(question))]
        words = [w for w in words if w]
        folded = " " + " ".join(words) + " "
        found: list[str] = []
        for size in range(min(MAX_PHRASE_WORDS, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                phrase = " ".join(words[start:start + size])
                for form in sorted(self._synonyms.get(phrase, ())):
                    if f" {form} " not in folded and form not in found:
                        found.append(form)
        return found[:MAX_EXPANSIONS]

    def expand(self, question: str) -> str:
        """The question followed by its synonyms (what BM25 searches)."""
        extra = self.expansions(question)
        return question if not extra else f"{question} {' '.join(extra)}"
