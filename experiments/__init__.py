"""Experiments that were measured and not kept: code the product never runs, kept so their figures
can be reproduced. `finetune` adapts the packaged MiniLM (and a cross-encoder) to the library;
`finetune_embedder` and `finetune_reranker` are the scripts that measured them
(`python -m experiments.finetune_embedder --help`). It sits outside the installed packages (the
wheel does not ship it) and no product package imports it (tests/experiments/test_experiments_stay_out.py).
"""
