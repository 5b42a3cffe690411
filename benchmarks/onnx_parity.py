"""ONNX vs torch vectors over every embedded piece of a real state (the torch ones are those stored).

    QUANT_RAG_HOME=<ingested state> python benchmarks/onnx_parity.py [--documents N] [--threads 2] [--json]

Exits 1 when the smallest cosine is under 0.999.

Rebuilds each document's piece strings exactly as the pipeline does (assets.embed), embeds them
with the state's ONNX export (exported first if absent) and compares with the vectors the pipeline
stored (sentence-transformers): min / p1 / median cosine, and ONNX CPU seconds per piece.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import harness
import numpy as np


def main(argv: list[str] | None = None) -> int:
    from corpus.config import ServedConfig
    from corpus.encoding.embedder import embedding_prefix, load_embedder, model_folder, passage_pieces
    from corpus.encoding.onnx_encoder import OnnxEncoder
    from corpus.encoding.onnx_export import ensure_exported
    from corpus.models import DocumentMetadata
    from corpus.state.layout import StateLayout, read_json
    from ingest.indexes.embed import load_document_embeddings
    from ingest.passages.integrity import load_passages
    from ingest.passages.overlays import consolidated_titles

    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, default=Path(os.environ.get("QUANT_RAG_HOME", "./var")))
    parser.add_argument("--documents", type=int, default=0, help="first N documents (0 = all)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    layout, config = StateLayout(args.home.resolve()), ServedConfig()
    graph = ensure_exported(layout, config)
    encoder = OnnxEncoder(graph, model_folder(config), config.embedding_model, None, threads=args.threads)
    embedder = load_embedder(config)  # its tokenizer cuts the pieces, as in the pipeline
    documents = layout.registered_document_ids()
    documents = [d for d in documents if layout.passages(d).exists()][: args.documents or None]
    cosines, cpu = [], 0.0
    for document_id in documents:
        meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
        title = consolidated_titles([meta]).get(document_id)
        texts = [
            piece
            for passage in load_passages(layout, document_id)
            for piece in passage_pieces(embedder, embedding_prefix(title, passage.section), passage.text)
        ]
        _, _, stored = load_document_embeddings(layout, config, document_id)
        assert len(texts) == len(stored), (document_id, len(texts), len(stored))
        start = time.process_time()
        vectors = encoder.embed_texts(texts) if texts else stored
        cpu += time.process_time() - start
        cosines.extend((vectors * stored).sum(axis=1).tolist())
    values = np.array(cosines)
    figures = {
        "documents": len(documents),
        "pieces": len(values),
        "threads": args.threads,
        "cosine_min": round(float(values.min()), 6),
        "cosine_p1": round(harness.percentile(values, 1), 6),
        "cosine_median": round(harness.percentile(values, 50), 6),
        "onnx_cpu_ms_per_piece": round(cpu / max(len(values), 1) * 1000),
    }
    harness.emit(
        args,
        figures,
        [
            f"{len(documents)} documents, {len(values)} pieces: cosine ONNX vs stored torch vectors "
            f"min {figures['cosine_min']:.6f} · p1 {figures['cosine_p1']:.6f} · median {figures['cosine_median']:.6f}; "
            f"ONNX {figures['onnx_cpu_ms_per_piece']} CPU-ms per piece ({args.threads} threads)"
        ],
    )
    return 0 if values.min() >= 0.999 else 1


if __name__ == "__main__":
    sys.exit(main())
