"""In-memory clones of an ingested state for benchmarks/scale.py's `components` (1M passages).

Writing a 1M-passage state document by document (benchmarks/synthetic_state.py) takes hours here,
so the index parts are measured on clones held in memory, made with synthetic_state's vocabulary,
years and vector noise. One difference, for speed: a clone substitutes ~SUBSTITUTED of the word
*types* (every occurrence of a chosen word becomes the same other word of equal length), where
synthetic_state substitutes ~SUBSTITUTED of the word *positions*. Term statistics stay realistic
(each clone brings its own mix of words) at one dict lookup per word instead of two hashes. The
substitution is applied to the analysed tokens BM25 indexes; the passages written to the passage
store keep the original text under their new ids (a lookup's cost does not depend on the words).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from synthetic_state import NOISE, SUBSTITUTED, YEARS, _digest, vocabulary

from corpus.config import ServedConfig
from corpus.ids import chunk_id_for
from corpus.indexes.bm25_store import indexed_text
from corpus.reading.published import open_published
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store_memory import NO_YEAR
from corpus.versions import CHUNKER_VERSION


def _word_map(vocab: dict[int, list[str]], clone: int) -> dict[str, str]:
    rng = np.random.default_rng(clone)
    mapping = {}
    for length, words in vocab.items():
        chosen = rng.random(len(words)) < SUBSTITUTED
        targets = rng.integers(0, len(words), len(words))
        mapping.update((w, words[t]) for w, c, t in zip(words, chosen, targets) if c)
    return mapping


class Pretokenised:
    """The served analyser, except that a row text "#i" stands for clone row i's tokens, made by
    mapping the original's tokens (analysing 1M texts one by one would dominate the run)."""

    def __init__(self, analyzer, tokens: list[list[str]]):
        self.analyzer, self.tokens, self.name = analyzer, tokens, analyzer.name

    def __call__(self, text: str) -> list[str]:
        if text.startswith("#") and text[1:].isdigit():
            return self.tokens[int(text[1:])]
        return self.analyzer(text)


def cloned_components(source_root: Path, passages: int) -> dict:
    """Passages, BM25 rows and vector-snapshot arrays of ~`passages` cloned passages."""
    from ingest.indexes.corpus_view import indexed_documents
    from ingest.indexes.embed import load_document_embeddings

    view = open_published(StateLayout(source_root))
    layout, config = view.layout, ServedConfig.from_env()
    documents = indexed_documents(layout)
    work = StateLayout(source_root)  # embeddings are not published: read the working state
    embedded = {d.document_id: load_document_embeddings(work, config, d.document_id) for d in documents}
    vocab = vocabulary([p.text for d in documents for p in d.passages])
    clones = math.ceil(passages / sum(len(d.passages) for d in documents))
    analyse = config.analyzer
    original_tokens = {
        p.chunk_id: analyse(indexed_text(d.title, p.section, p.text)) for d in documents for p in d.passages
    }
    out_passages, rows, tokens, chunk_ids, document_ids, vectors, years, pieces = [], [], [], [], [], [], [], []
    for clone in range(clones):
        mapping = _word_map(vocab, clone) if clone else {}
        for document in documents:
            if len(out_passages) >= passages:
                break
            new_id = document.document_id if clone == 0 else f"doc-{_digest('clone', document.document_id, clone):016x}"
            year = document.year if clone == 0 else YEARS[0] + _digest("year", new_id) % (YEARS[1] - YEARS[0] + 1)
            renamed = {}
            for passage in document.passages:
                ((start, end),) = passage.ranges
                new = (
                    passage
                    if clone == 0
                    else passage.model_copy(
                        update={
                            "document_id": new_id,  # text kept: lookups do not depend on the words
                            "chunk_id": chunk_id_for(new_id, start, end, CHUNKER_VERSION),
                        }
                    )
                )
                renamed[passage.chunk_id] = new.chunk_id
                out_passages.append(new)
                rows.append((new.chunk_id, new_id, f"#{len(tokens)}"))
                tokens.append([mapping.get(t, t) for t in original_tokens[passage.chunk_id]])
            ids, piece, matrix = embedded[document.document_id]
            if clone:
                rng = np.random.default_rng(_digest("noise", new_id))
                matrix = matrix + rng.normal(0.0, NOISE, matrix.shape).astype(np.float32)
                matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            chunk_ids += [renamed[c] for c in ids]
            document_ids += [new_id] * len(ids)
            years += [NO_YEAR if year is None else year] * len(ids)
            pieces.append(np.asarray(piece, dtype=np.int32))
            vectors.append(np.asarray(matrix, dtype=np.float32))
    view.close()
    chunks, chunk_index = np.unique(np.asarray(chunk_ids), return_inverse=True)
    docs, document_index = np.unique(np.asarray(document_ids), return_inverse=True)
    arrays = {
        "vectors": np.concatenate(vectors),
        "chunks": chunks,
        "chunk_index": chunk_index.astype(np.int32),
        "documents": docs,
        "document_index": document_index.astype(np.int32),
        "pieces": np.concatenate(pieces),
        "years": np.asarray(years, dtype=np.int32),
    }
    return {"passages": out_passages, "rows": rows, "analyzer": Pretokenised(analyse, tokens), "arrays": arrays}
