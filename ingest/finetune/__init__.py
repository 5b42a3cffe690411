"""A library-adapted embedder: contrastive fine-tuning of the packaged MiniLM on pseudo-queries
mined from the library itself, validated on documents it never trained on.

`mining` turns passages into (pseudo-query, positive text) pairs and splits them by document;
`negatives` adds a BM25 hard negative to each training pair; `training` runs the in-batch-negatives
loop and saves a sentence-transformers folder; `validation` ranks held-out pseudo-queries' positives
among held-out passages; `pipeline` ties them together under a time budget. No Dagster here.
"""
