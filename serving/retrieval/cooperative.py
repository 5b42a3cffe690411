"""Agent-cooperative search: the question fused with the caller's rephrasings and hypothetical passage.

The caller is a language model: it can rephrase a question in the library's vocabulary and write
the paragraph it expects to find. Each input is searched like the question (same scope and
period); they meet at the candidate level, before the final ranking: the pool is the weighted
reciprocal-rank fusion of every input's dense + BM25 fusion, and the pool's order is the weighted
fusion of every input's own order over it (MaxSim over its token vectors, or its first-stage
order for a hypothetical passage, whose hundreds of tokens would cost ten times the question's).
With the question alone this is exactly the single-input ranking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from serving.periods.apply import apply_period
from serving.retrieval.selection import Candidate, by_late_interaction, reciprocal_rank_fusion

if TYPE_CHECKING:
    from corpus.config import ServedConfig
    from corpus.indexes.token_index import TokenIndex

Kind = Literal["question", "alternative", "hypothetical"]


@dataclass(frozen=True)
class QueryInput:
    """One text searched for a request, with its weight in the fusion (the question weighs 1)."""

    kind: Kind
    text: str
    weight: float = 1.0


@dataclass(frozen=True)
class Contribution:
    """What one input brought to an answer: how many of the returned passages it ranked in its own
    top `limit`, and its share of the returned passages' fused score."""

    input: QueryInput
    in_own_top: int
    share: float


@dataclass(frozen=True)
class OtherInput:
    """A rephrasing or hypothetical passage as searched, and the period clause read out of it:
    the question's period scopes every input, so one written only here is ignored (and said)."""

    input: QueryInput
    period_ignored: str | None = None


def other_inputs(
    alternatives: list[str], hypothetical: str | None, config: ServedConfig, newest_year: int | None
) -> list[OtherInput]:
    """Each rephrasing, then the hypothetical passage, with the configured weights; blank texts
    are dropped and a period clause is taken out of the searched text, as the question's is."""
    said: list[tuple[Kind, str, float]] = [("alternative", a, config.coop_alternative_weight) for a in alternatives]
    if hypothetical is not None:
        said.append(("hypothetical", hypothetical, config.coop_hypothetical_weight))
    found = []
    for kind, text, weight in said:
        if not text.strip():
            continue
        period = apply_period(text, None, None, newest_year)
        clause = period.parsed.clause
        found.append(
            OtherInput(
                QueryInput(kind, period.query if clause and period.query.strip() else text, weight), clause or None
            )
        )
    return found


class Ordering:
    """Orders a candidate pool for a request's inputs; MaxSim scores are computed once per
    candidate, for every scored input together (one integer product)."""

    def __init__(
        self,
        inputs: list[QueryInput],
        first_stage: list[list[Candidate]],
        index: TokenIndex | None,
        tokens: list[np.ndarray | None],
        config: ServedConfig,
    ) -> None:
        self.inputs, self.first_stage, self.index, self.config = inputs, first_stage, index, config
        # a hypothetical passage's hundreds of token vectors would cost MaxSim ten times the
        # question's: it ranks by its own first stage
        self.scored = [
            i
            for i, (inp, t) in enumerate(zip(inputs, tokens))
            if index is not None and t is not None and inp.kind != "hypothetical"
        ]
        self.tokens = [t for i in self.scored if (t := tokens[i]) is not None]
        self.scores: list[dict[str, float]] = [{} for _ in self.scored]
        # the question's best cosine per token in each scored passage (abstention's coverage)
        self.question_rows: dict[str, np.ndarray] = {}
        self.rankings: list[list[Candidate]] = []

    @property
    def late(self) -> bool:
        """Whether MaxSim orders the pool (the question has token vectors)."""
        return bool(self.scored)

    def pool(self, size: int) -> list[Candidate]:
        """The first `size` candidates of the weighted fusion of the inputs' first stages."""
        if len(self.inputs) == 1:
            return self.first_stage[0][:size]
        return reciprocal_rank_fusion(self.first_stage, self.config.rrf_k, [i.weight for i in self.inputs])[:size]

    def score(self, chunk_ids: list[str]) -> None:
        """MaxSim of the scored inputs for the candidates not scored yet."""
        missing = [c for c in chunk_ids if c not in self.scores[0]] if self.scored else []
        if missing and self.index is not None:
            groups, rows = self.index.best_rows(self.tokens, missing)
            for known, found in zip(self.scores, groups):
                known.update(found)
            if self.scored[0] == 0:  # the first scored matrix is the question's
                self.question_rows.update(rows)

    def order(self, pool: list[Candidate]) -> list[Candidate]:
        """The pool in its final order; each input's own order is kept in `rankings`."""
        self.score([c.chunk_id for c in pool])
        scored = dict(zip(self.scored, self.scores))
        members = {c.chunk_id for c in pool}
        self.rankings = []
        for i, first in enumerate(self.first_stage):
            if i in scored:
                self.rankings.append(by_late_interaction(pool, scored[i], self.config.late_interaction_weight))
            elif len(self.inputs) == 1:
                self.rankings.append(list(pool))
            else:
                self.rankings.append([c for c in first if c.chunk_id in members])
        if len(self.inputs) == 1:
            return self.rankings[0]
        return reciprocal_rank_fusion(self.rankings, self.config.rrf_k, [i.weight for i in self.inputs])

    def strength(self, chunk_id: str) -> float:
        """A candidate's weighted MaxSim over the scored inputs (how the second stage picks
        among a document's passages)."""
        return sum(self.inputs[i].weight * s.get(chunk_id, 0.0) for i, s in zip(self.scored, self.scores))


def contributions(
    inputs: list[QueryInput], rankings: list[list[Candidate]], hits: list[Candidate], k: int, top: int
) -> list[Contribution]:
    """Each input's count of `hits` in its own first `top` and its share of their fused score
    (weight / (k + rank) summed over the hits it ranked)."""
    ids = [h.chunk_id for h in hits]
    counts, parts = [], []
    for inp, ranking in zip(inputs, rankings or [[] for _ in inputs]):
        rank = {c.chunk_id: r for r, c in enumerate(ranking, start=1)}
        counts.append(sum(1 for c in ids if rank.get(c, top + 1) <= top))
        parts.append(sum(inp.weight / (k + rank[c]) for c in ids if c in rank))
    total = sum(parts) or 1.0
    return [Contribution(inp, n, round(part / total, 3)) for inp, n, part in zip(inputs, counts, parts)]
