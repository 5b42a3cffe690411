"""Abstention: the probability that the library holds no answer to a question, on one scale
whatever the retrieval mode.

A logistic model over a few cheap features (fitted on the library dev set and its absent-topic
questions by `python -m evaluation.abstention_fit`; the coefficients below):

- `vocabulary`: IDF-weighted share of the question's content terms (stemmed) that occur anywhere
  in the library: an absent topic names terms the library never uses ("stablecoin", "greenium");
- `best_passage`: the largest IDF-weighted share of those terms found in one of the top passages;
- `pair_coverage`: IDF-weighted share of the question's adjacent content-term pairs that also
  meet (within one word) in the top passages: "leverage ratio" or "order flow" as a topic, not
  just its words scattered over the library;
- `dense_top` and `dense_gap`: the best dense similarity in scope, and how far it stands above
  the DENSE_K-th (one lucky passage vs a topic the library treats);
- `semantic_coverage` (serving.abstention.coverage): how closely the top passages' token vectors
  meet each content word of the question, IDF-weighted; needs late interaction's token index;
- with an agent's hypothetical passage (the paragraph it expects to find): `hypothetical_top`,
  that passage's best dense similarity in scope, and `hypothetical_vocabulary`, the share of its
  content terms the library uses. A passage written in the library's register finds close
  neighbours when the library treats the topic, and none when it does not.

Four models share one scale (a probability): COOPERATIVE when a hypothetical passage was
searched (the answer also gives QUESTION's reading of the same search, so an agent sees when its
hypothetical passage moved the flag), QUESTION otherwise (semantic coverage and vocabulary),
DENSE when the state has no token index, LEXICAL in bm25 mode (no dense ranking). The fit places
a model's intercept so that the shared threshold falls at the 97th percentile of the dev
answerable questions' probabilities (evaluation.abstention_fit); QUESTION's is placed so, the
older three are as fitted when they shipped (docs/measurements.md, Retrieval quality). Corpus statistics (document
frequencies) are read once per BM25 index from its vocabulary; a question then costs a few
dictionary lookups, the tokenising of its top passages and, for semantic coverage, one small
product over 5 passages' token rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from corpus.indexes.bm25_store import indexed_text
from corpus.text.tokenize import Analyzer
from serving.abstention.terms import TermStatistics, content_stems, content_weight, term_statistics

DENSE_K = 5  # `dense_gap` = best dense similarity - the DENSE_K-th
PASSAGES_READ = 5  # top passages whose words count for `best_passage` and `pair_coverage`
PASSAGE_CHARS = 800  # of each (title, section path, then text): bounds a search's cost of reading them


@dataclass(frozen=True)
class Model:
    """A logistic model: P(no answer) = 1 / (1 + exp(-(intercept + Σ coef·feature)))."""

    features: tuple[str, ...]
    coefficients: tuple[float, ...]
    intercept: float

    def probability(self, values: dict[str, float]) -> float:
        z = self.intercept + sum(c * values[f] for c, f in zip(self.coefficients, self.features))
        return 1.0 / (1.0 + math.exp(-z))


# Fitted by `python -m evaluation.abstention_fit` on the library dev set (answerable questions vs
# its negatives and the absent-topic dev questions; all-MiniLM-L6-v2, hybrid); refit for another
# model. QUESTION's intercept is placed by the fit's operating quantile (its 0.5 point flagged too
# few absent topics); the others are as fitted when they shipped (docs/measurements.md,
# "Cooperative search in int8, abstention from semantic coverage").
QUESTION_MODEL = Model(("semantic_coverage", "vocabulary"), (-29.654, -5.599), 21.573)
DENSE_MODEL = Model(
    ("vocabulary", "best_passage", "pair_coverage", "dense_top", "dense_gap"),
    (-6.513, -5.274, -4.315, -8.878, -27.911),
    11.74,
)
LEXICAL_MODEL = Model(("vocabulary", "best_passage", "pair_coverage"), (-5.925, -7.289, -5.084), 6.463)
COOPERATIVE_MODEL = Model(
    ("vocabulary", "hypothetical_top", "hypothetical_vocabulary"), (-6.244, -31.159, -16.377), 35.71
)
MODELS = {
    "question": QUESTION_MODEL,
    "dense": DENSE_MODEL,
    "lexical": LEXICAL_MODEL,
    "cooperative": COOPERATIVE_MODEL,
}


def _share(weights: dict, present) -> float:
    total = sum(weights.values())
    return sum(w for key, w in weights.items() if present(key)) / total if total > 0 else 1.0


def features(
    text: str,
    analyzer: Analyzer,
    statistics: TermStatistics,
    passages: list[str],
    dense_scores: list[float] | None,
    hypothetical: tuple[str, list[float]] | None = None,
    semantic: float | None = None,
) -> dict[str, float]:
    """The models' inputs: the searched text, its top passages' indexed text, its dense
    similarities best first (None in bm25 mode), when the agent sent one, its hypothetical
    passage with that passage's dense similarities, and the question's semantic coverage
    (serving.abstention.coverage; None without token vectors)."""
    stems = content_stems(text, analyzer)
    weights = {s: statistics.weight(s) for s in dict.fromkeys(stems)}
    pairs = {p: weights[p[0]] + weights[p[1]] for p in dict.fromkeys(zip(stems, stems[1:]))}
    values = {"vocabulary": _share(weights, statistics.known)}
    best, met = 0.0, set()
    for passage in passages[:PASSAGES_READ]:
        words = content_stems(passage, analyzer)
        vocabulary = set(words)
        best = max(best, _share(weights, vocabulary.__contains__))
        near = set(zip(words, words[1:])) | set(zip(words, words[2:]))
        met |= {p for p in pairs if p in near or (p[1], p[0]) in near}
    values.update(best_passage=best, pair_coverage=_share(pairs, met.__contains__) if pairs else 1.0)
    if dense_scores:
        head = dense_scores[:DENSE_K]
        values.update(dense_top=float(head[0]), dense_gap=float(head[0] - head[-1]))
        if semantic is not None:
            values["semantic_coverage"] = semantic
    if hypothetical is not None and hypothetical[1]:
        hyp = {s: statistics.weight(s) for s in dict.fromkeys(content_stems(hypothetical[0], analyzer))}
        values.update(hypothetical_top=float(hypothetical[1][0]), hypothetical_vocabulary=_share(hyp, statistics.known))
    return values


HYPOTHETICAL_FEATURES = ("hypothetical_top", "hypothetical_vocabulary")


def model_for(values: dict[str, float]) -> str:
    """Which model reads these features: the richest whose inputs are all there."""
    if "hypothetical_top" in values:
        return "cooperative"
    if "semantic_coverage" in values:
        return "question"
    return "dense" if "dense_top" in values else "lexical"


def probability(values: dict[str, float]) -> float:
    """P(no answer in the library) from `features`."""
    return MODELS[model_for(values)].probability(values)


def passage_texts(reader, chunk_ids: list[str]) -> list[str]:
    """The start of what BM25 indexed for these passages (title, section path, text)."""
    out = []
    for chunk_id in chunk_ids[:PASSAGES_READ]:
        p = reader.passages[chunk_id]
        out.append(indexed_text(reader.title(p.document_id), list(p.section), p.text)[:PASSAGE_CHARS])
    return out


def no_answer_probability(parts, text: str, found, hypothetical: tuple[str, list[float]] | None = None) -> float | None:
    """P(no answer) for a retrieval (serving.retrieval.engine.Retrieval) over `parts`
    (serving.retrieval.parts.Parts: its BM25 index, reader and token index) of the searched `text` (and, when
    the agent sent one, its hypothetical passage with its dense similarities in the same scope);
    None when the scope held no document (an empty scope says nothing about the library) or when
    the corpus's term statistics cannot be read (no BM25 index)."""
    return no_answer_readings(parts, text, found, hypothetical)[0]


def no_answer_readings(
    parts, text: str, found, hypothetical: tuple[str, list[float]] | None = None
) -> tuple[float | None, float | None]:
    """(P(no answer), the question's own P(no answer)): the second reads the question's features
    only, whatever else the agent sent, so it compares across searches of one question and says
    when the agent's hypothetical passage moved the first (both None as no_answer_probability)."""
    if found.documents_in_scope == 0:
        return None, None
    from serving.answer.errors import ServingError

    try:
        statistics = term_statistics(parts.bm25)
    except ServingError:
        return None, None
    values = features(
        text,
        parts.config.analyzer,
        statistics,
        passage_texts(parts.reader, [h.chunk_id for h in found.hits]),
        list(found.dense_scores) or None,
        hypothetical,
        semantic_of(parts, text, found, statistics),
    )
    question_only = {k: v for k, v in values.items() if k not in HYPOTHETICAL_FEATURES}
    return probability(values), probability(question_only)


def semantic_of(parts, text: str, found, statistics: TermStatistics) -> float | None:
    """The retrieval's semantic coverage (serving.abstention.coverage), or None when late
    interaction did not run (no token vectors for the question)."""
    if found.question_tokens is None or not parts.tokens:
        return None
    from serving.abstention.coverage import COVERAGE_PASSAGES, semantic_coverage

    index, encoder = parts.tokens
    hits = list(found.question_top) or [h.chunk_id for h in found.hits][:COVERAGE_PASSAGES]
    return semantic_coverage(
        text, found.question_tokens, encoder, index, hits, content_weight(statistics), found.question_rows
    )
