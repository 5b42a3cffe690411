"""Semantic coverage: how closely the top passages' tokens meet each content word of the question.

An answerable question's rare words ("kurtosis", "drawdown", "shrinkage") each find a token of a
top passage that means the same; an absent topic made of library words ("leverage ratio",
"heating degree days") leaves its rarest words without a close token, even when its common words
are matched. Each content word of the question takes its best cosine to any token vector of the
first COVERAGE_PASSAGES passages (late interaction's token index; a word split into word pieces
takes their mean); the feature is the mean over words weighted by their IDF in the library.
Measured on the library dev set alone (AUROC, absent topics and dev negatives against answerable
questions): 0.965, against 0.864 for the share of the question's terms the library uses
(docs/measurements.md, "Abstention from semantic coverage").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from corpus.encoding.token_encoder import TokenEncoder
    from corpus.indexes.token_index import TokenIndex

# a lower-cased word -> its weight (IDF in the library), or None for a word that names nothing
WordWeight = Callable[[str], float | None]

COVERAGE_PASSAGES = 5  # the top passages whose tokens may cover a word (5 separated better than 10 on dev)


def question_words(text: str, encoder: TokenEncoder) -> list[tuple[str, list[int]]]:
    """(lower-cased word, its rows among `TokenEncoder.query`'s token vectors) for every word of
    `text`, in order; rows of the query prompt, if any, are not the question's and are left out."""
    prompt = encoder.query_prompt or ""
    encoding = encoder.tokenizer.encode(prompt + text)
    spans: dict[int, list[int]] = {}
    rows: dict[int, list[int]] = {}
    # query() drops [CLS] and [SEP]: row i of its token vectors is the encoding's position i + 1
    for row, (word, (start, end)) in enumerate(zip(encoding.word_ids[1:-1], encoding.offsets[1:-1])):
        if word is None or start < len(prompt):
            continue
        span = spans.setdefault(word, [start, end])
        span[0], span[1] = min(span[0], start), max(span[1], end)
        rows.setdefault(word, []).append(row)
    return [((prompt + text)[a:b].lower(), rows[w]) for w, (a, b) in spans.items()]


def semantic_coverage(
    text: str,
    tokens: np.ndarray,
    encoder: TokenEncoder,
    index: TokenIndex,
    chunk_ids: list[str],
    weight: WordWeight,
    scored: Mapping[str, np.ndarray] | None = None,
) -> float | None:
    """The `weight`-weighted mean, over the content words of `text` (`tokens`: its token vectors
    from `encoder.query`), of each word's best cosine to a token of the passages `chunk_ids` (a
    search's first COVERAGE_PASSAGES); None when no passage is indexed or the question has no
    content word. `scored`: the search's MaxSim rows of the question (TokenIndex.best_rows)."""
    best = index.best_per_token(tokens, chunk_ids, scored)
    if best is None:
        return None
    weights, cover = [], []
    for word, rows in question_words(text, encoder):
        found = weight(word)
        if found is None:
            continue
        weights.append(found)
        cover.append(float(np.mean(best[rows])))
    total = sum(weights)
    return sum(w * c for w, c in zip(weights, cover)) / total if total > 0 else None
