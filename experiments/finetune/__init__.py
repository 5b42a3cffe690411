"""A library-adapted embedder: contrastive fine-tuning of the packaged MiniLM on pseudo-queries
mined from the library itself, validated on documents it never trained on.

`mining` turns passages into (pseudo-query, positive text) pairs and splits them by document;
`negatives` adds a BM25 hard negative to each training pair; `training` runs the in-batch-negatives
loop and saves a sentence-transformers folder; `validation` ranks held-out pseudo-queries' positives
among held-out passages; `pipeline` ties them together under a time budget. `cross_encoder` trains
a [query, passage] reranker on the same pairs, and `rerank_validation` rescores held-out hybrid pools
with it (tried, not kept: experiments/finetune_reranker.py). No Dagster here.
"""
