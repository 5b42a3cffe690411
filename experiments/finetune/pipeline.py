"""Mine → split by document → BM25 negatives → train → validate base and tuned on held-out documents.

`finetune_embedder` writes the tuned model (a sentence-transformers folder) and `finetune.json`
beside it: the settings, the split, the pair counts, the seconds spent and the held-out figures
of both models per query, so a caller can compare them paired and decide whether to use it.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from experiments.finetune.mining import PseudoQuery, mine_document, split_documents
from experiments.finetune.negatives import hard_negatives
from experiments.finetune.training import TrainSettings, save_model, train
from experiments.finetune.validation import per_query_metrics, ranks
from ingest.indexes.corpus_view import IndexedDocument

REPORT_FILE = "finetune.json"
HELD_OUT_SHARE = 0.2
VALIDATION_QUERIES = 200


def mine(documents: list[IndexedDocument], seed: int) -> tuple[list[PseudoQuery], list[PseudoQuery], set[str]]:
    """(train pairs, held-out pairs, held-out document ids)."""
    train_ids, held_ids = split_documents([d.document_id for d in documents], HELD_OUT_SHARE, seed)
    pairs = [q for d in documents for q in mine_document(d.title, d.passages, seed)]
    return ([q for q in pairs if q.document_id in train_ids], [q for q in pairs if q.document_id in held_ids], held_ids)


def _load(folder: Path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), local_files_only=True)


def finetune_embedder(
    documents: list[IndexedDocument],
    base_folder: Path,
    target: Path,
    settings: TrainSettings = TrainSettings(),
    validation_queries: int = VALIDATION_QUERIES,
    identity: dict | None = None,
) -> dict:
    """Train a tuned copy of the model in `base_folder` into `target` (replaced atomically);
    returns the report also written to target/finetune.json. `identity` (corpus signature, base
    model key) is recorded as given."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(settings.threads)
    try:
        return _finetune(documents, base_folder, target, settings, validation_queries, identity)
    finally:
        torch.set_num_threads(threads)


def _finetune(
    documents: list[IndexedDocument],
    base_folder: Path,
    target: Path,
    settings: TrainSettings,
    validation_queries: int,
    identity: dict | None,
) -> dict:
    wall, cpu = time.perf_counter(), time.process_time()
    train_pairs, held_pairs, held_ids = mine(documents, settings.seed)
    titled = [(d.title, p) for d in documents for p in d.passages]
    triples = hard_negatives(train_pairs, [(t, p) for t, p in titled if p.document_id not in held_ids])
    rng = random.Random(settings.seed)
    held_sample = sorted(
        rng.sample(held_pairs, min(validation_queries, len(held_pairs))),
        key=lambda q: (q.document_id, q.chunk_id, q.kind),
    )
    held_titled = [(t, p) for t, p in titled if p.document_id in held_ids]
    mined_seconds = time.perf_counter() - wall

    model = _load(base_folder)
    base = per_query_metrics(ranks(model, held_sample, held_titled))
    trained = train(model, triples, settings)
    tuned = per_query_metrics(ranks(model, held_sample, held_titled))
    staging = target.with_name(f".{target.name}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    save_model(model, base_folder, staging)
    report = {
        "identity": identity or {},
        "base_folder": str(base_folder),
        "settings": asdict(settings),
        "documents": {"train": len(documents) - len(held_ids), "held_out": sorted(held_ids)},
        "pairs": {
            "train": _counts(train_pairs),
            "triples": len(triples),
            "held_out": _counts(held_pairs),
            "validation_queries": _counts(held_sample),
        },
        "seconds": {
            "mining": round(mined_seconds, 1),
            "training": round(trained.seconds, 1),
            "training_cpu": round(trained.cpu_seconds, 1),
            "total": round(time.perf_counter() - wall, 1),
            "total_cpu": round(time.process_time() - cpu, 1),
        },
        "losses": [round(v, 4) for v in trained.losses],
        "validation": {
            "queries": [[q.kind, q.chunk_id] for q in held_sample],
            "base": base,
            "tuned": tuned,
            "means": {
                arm: {m: float(np.mean(v)) for m, v in figures.items()}
                for arm, figures in (("base", base), ("tuned", tuned))
            },
        },
    }
    (staging / REPORT_FILE).write_text(json.dumps(report, indent=1), encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return report


def _counts(pairs: list[PseudoQuery]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for q in pairs:
        counts[q.kind] = counts.get(q.kind, 0) + 1
    return dict(sorted(counts.items()), total=len(pairs))
