"""Pseudo-query mining for the library-adapted embedder: each pair comes from the right passage
with the query's words taken out of its positive, the split is by document and disjoint, BM25
negatives are never the answer, and a batch never holds one passage as two queries' positive."""

from __future__ import annotations

import pytest

from corpus.models import BlockKind, Passage
from experiments.finetune.mining import mine_document, split_documents
from experiments.finetune.negatives import hard_negatives
from experiments.finetune.training import TrainSettings, batches

BODY = (
    "Shrinkage pulls the extreme entries of a sample covariance matrix towards a structured "
    "target, which lowers the estimation error when the number of assets is large relative to "
    "the number of observations. The shrinkage intensity is chosen to minimise the expected loss."
)


def passage(doc: str, ordinal: int, section: list[str], text: str, kinds: list[str]) -> Passage:
    return Passage(
        chunk_id=f"chunk-{doc[-4:]}{ordinal:012d}",
        document_id=doc,
        ordinal=ordinal,
        section=section,
        text=text,
        ranges=[(0, len(text))],
        granularity="exact",
        block_kinds=[BlockKind(k) for k in kinds],
    )


def library(doc: str = "doc-00000000000000aa") -> list[Passage]:
    return [
        passage(
            doc,
            0,
            ["Covariance", "2 Shrinkage estimators of covariance"],
            f"2 Shrinkage estimators of covariance\n\n{BODY}",
            ["heading", "paragraph"],
        ),
        passage(
            doc,
            1,
            ["Covariance", "3 Tail risk"],
            "Investors often report the conditional value at risk (CVaR) of a portfolio, the mean loss "
            "beyond the value at risk. It is coherent and convex in the weights, which makes it a "
            "convenient objective for portfolio optimisation with linear programming.",
            ["paragraph"],
        ),
        passage(
            doc,
            2,
            ["Covariance", "4 Results"],
            "The strategies were backtested over twenty years of daily returns with transaction costs.\n\n"
            "| strategy | Sharpe |\n|---|---|\n| minimum variance | 0.81 |\n| equal weight | 0.64 |\n\n"
            "Table 2: Annualised Sharpe ratios of the strategies",
            ["paragraph", "table", "caption"],
        ),
    ]


def test_each_kind_is_mined_from_its_own_passage_without_the_query_words():
    passages = library()
    by_kind = {}
    for q in mine_document("Covariance", passages, seed=1):
        by_kind.setdefault(q.kind, []).append(q)
        source = next(p for p in passages if p.chunk_id == q.chunk_id)
        assert q.document_id == source.document_id
    (heading,) = by_kind["heading"]
    assert heading.query == "Shrinkage estimators of covariance"
    assert heading.chunk_id == passages[0].chunk_id and "Shrinkage estimators of covariance" not in heading.positive
    (acronym,) = by_kind["acronym"]
    assert acronym.query == "conditional value at risk" and acronym.chunk_id == passages[1].chunk_id
    assert "CVaR" in acronym.positive and "conditional value at risk" not in acronym.positive
    (caption,) = by_kind["caption"]
    assert caption.query == "Annualised Sharpe ratios of the strategies" and caption.chunk_id == passages[2].chunk_id
    assert "Annualised" not in caption.positive and "| minimum variance |" in caption.positive
    for q in by_kind["sentence"]:
        source = next(p for p in passages if p.chunk_id == q.chunk_id)
        assert q.query in source.text and q.query not in q.positive


def test_mining_is_seeded_and_skips_garbled_passages():
    passages = library()
    assert mine_document("Covariance", passages, seed=3) == mine_document("Covariance", passages, seed=3)
    garbled = [p.model_copy(update={"garbled_text": True}) for p in passages]
    assert mine_document("Covariance", garbled, seed=3) == []


def test_acronym_whose_letters_do_not_match_the_words_before_it_is_not_a_definition():
    text = (
        "We estimate the model on daily returns of the index (GARCH) and report the fitted "
        "parameters with their standard errors, which are robust to heteroskedasticity of any form."
    )
    mined = mine_document(None, [passage("doc-00000000000000bb", 0, ["Fit"], text, ["paragraph"])], seed=1)
    assert not [q for q in mined if q.kind == "acronym"]


@pytest.mark.parametrize("count", [2, 5, 77])
def test_split_is_by_document_disjoint_complete_and_order_free(count):
    ids = [f"doc-{i:016x}" for i in range(count)]
    train, held = split_documents(ids, 0.2, seed=13)
    assert train.isdisjoint(held) and train | held == set(ids) and held and train
    assert (train, held) == split_documents(list(reversed(ids)), 0.2, seed=13)
    if count == 77:
        assert len(held) == 15 and split_documents(ids, 0.2, seed=14)[1] != held


def test_hard_negative_is_never_the_positive_nor_its_section():
    docs = {
        "doc-00000000000000aa": library("doc-00000000000000aa"),
        "doc-00000000000000cc": library("doc-00000000000000cc"),
    }
    titled = [("Covariance", p) for ps in docs.values() for p in ps]
    pairs = [q for ps in docs.values() for q in mine_document("Covariance", ps, seed=1)]
    triples = hard_negatives(pairs, titled)
    assert triples
    section = {p.chunk_id: (p.document_id, tuple(p.section)) for _, p in titled}
    for t in triples:
        assert t.negative_chunk_id != t.chunk_id and section[t.negative_chunk_id] != section[t.chunk_id]


def test_a_batch_never_holds_one_passage_as_two_positives():
    docs = library()
    pairs = mine_document("Covariance", docs, seed=1)
    triples = hard_negatives(
        pairs, [("Covariance", p) for p in docs] + [("Covariance", p) for p in library("doc-00000000000000cc")]
    )
    plan = batches(triples, TrainSettings(steps=6, batch_size=4, seed=2))
    assert len(plan) == 6
    for batch in plan:
        assert len({t.chunk_id for t in batch}) == len(batch)
