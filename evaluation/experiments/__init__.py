"""Experiments that were measured and not kept: code the product never runs, kept so their figures
can be reproduced. `finetune` adapts the packaged MiniLM (and a cross-encoder) to the library;
`finetune_embedder` and `finetune_reranker` are the scripts that measured them
(`python -m evaluation.experiments.finetune_embedder --help`). Nothing in ingest, serving, corpus,
assets or orchestration imports this package (tests/evaluation/experiments/test_experiments_stay_out.py).
"""
