"""A question's terms as abstention weighs them: stemmed content words (no function or framing
words, no bare numbers) and their IDF in the library, read once per BM25 index from its
vocabulary. The no-answer features (serving.abstention.model), semantic coverage's word weights
(serving.abstention.coverage) and a hit's matching sentences (serving.answer.match_window) all
weigh words so.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable
from functools import partial

import numpy as np
import Stemmer

from corpus.text.tokenize import Analyzer
from serving.abstention.scaffolding import SCAFFOLDING
from serving.answer.errors import ServingError

MIN_TERM_CHARS = 2
# Function words of a question; the BM25 analyser keeps them (it serves with stop words "none").
QUESTION_WORDS = (
    frozenset(
        """
a an and are as at be been being between both but by can could did do does doing each for from
had has have how i if in into is it its itself may might more most much must no nor not of on or
other our over own same should so some such than that the their them then there these they this
those through to too under up very was we were what when where which while who whom why will
with would you your one ones use used using versus vs via within without about across after
against also am any because before during does further here just make makes made get gets
""".split()
    )
    | SCAFFOLDING
)
_STEM = Stemmer.Stemmer("english").stemWords  # "loadings" meets "loading", "priced" meets "price"
# A vocabulary's words, each stemmed once: without the stemmer's cache, which a hundred thousand
# distinct words only churn.
_STEM_ONCE = Stemmer.Stemmer("english", 0).stemWords


def stem(word: str) -> str:
    """The word's stem, as the term statistics key it."""
    return _STEM([word])[0]


class TermStatistics:
    """IDF of every stemmed term the BM25 index holds, read once from its vocabulary (a stem
    takes the IDF of its most common form)."""

    def __init__(self, vocabulary: dict[str, int], document_frequency: np.ndarray, documents: int):
        columns = np.fromiter(vocabulary.values(), dtype=np.int64, count=len(vocabulary))
        kept = columns < len(document_frequency)
        terms = list(itertools.compress(vocabulary, kept.tolist()))
        # one idf per distinct document frequency (a few thousand), read back per term
        distinct, which = np.unique(np.asarray(document_frequency)[columns[kept]], return_inverse=True)
        idf_of_df = [self.idf(int(df), documents) for df in distinct.tolist()]
        self._idf_of: dict[str, float] = {}
        get = self._idf_of.get
        for stem, idf in zip(_STEM_ONCE(terms), [idf_of_df[k] for k in which.tolist()]):
            if idf < get(stem, math.inf):
                self._idf_of[stem] = idf
        self.unseen_idf = self.idf(0, documents)

    @staticmethod
    def idf(df: int, n: int) -> float:
        """BM25's (Lucene) idf: ln(1 + (N - df + 0.5) / (df + 0.5))."""
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def weight(self, stem: str) -> float:
        """The stem's idf; a term the library never uses weighs as much as the rarest."""
        return self._idf_of.get(stem, self.unseen_idf)

    def known(self, stem: str) -> bool:
        return stem in self._idf_of


_STATISTICS: weakref.WeakKeyDictionary[object, TermStatistics] = weakref.WeakKeyDictionary()


def term_statistics(bm25) -> TermStatistics:
    """The statistics of a loaded corpus.indexes.bm25_store.BM25Index (computed on first use, then kept)."""
    found = _STATISTICS.get(bm25)
    if found is None:
        vocabulary, document_counts = bm25.term_document_counts()
        found = _STATISTICS[bm25] = TermStatistics(vocabulary, document_counts, bm25.doc_count)
    return found


def content_stems(text: str, analyzer: Analyzer) -> list[str]:
    """The text's terms that name something, stemmed, in order: no function or framing words, no
    bare numbers."""
    return _STEM(
        [
            t
            for t in analyzer(text)
            if len(t) >= MIN_TERM_CHARS and t not in QUESTION_WORDS and not t.replace(".", "").isdigit()
        ]
    )


def content_weight(statistics: TermStatistics):
    """A word's IDF in the library when it names something (letters only, not a function or
    framing word), else None: the weights of serving.abstention.coverage."""

    def weight(word: str) -> float | None:
        if len(word) < MIN_TERM_CHARS or not word.isalpha() or word in QUESTION_WORDS:
            return None
        return statistics.weight(stem(word))

    return weight


def unit_weight(term: str) -> float:
    """Every term weighs 1 (a state without BM25 statistics)."""
    return 1.0


def match_terms(parts) -> tuple[Callable[[str], list[str]], Callable[[str], float]]:
    """The terms a hit's matching sentences are weighed in (the content stems, with the served
    analyser) and their IDF in the library (`parts`: serving.retrieval.parts.Parts); every term
    weighs 1 when the state has no BM25 statistics."""
    terms = partial(content_stems, analyzer=parts.config.analyzer)
    try:
        statistics = term_statistics(parts.bm25)
    except ServingError:
        return terms, unit_weight
    return terms, statistics.weight
