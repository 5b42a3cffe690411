"""Jobs: per-document ingestion, corpus-level refresh, evaluation, and symmetric removal."""

import dagster as dg

DOCUMENT_ASSETS = ["source_document", "parsed_document", "passages", "document_metadata", "passage_embeddings"]
CORPUS_ASSETS = [
    "overlays",
    "catalogue",
    "corpus_signature",
    "vector_index",
    "bm25_index",
    "passage_store",
    "token_index",
    "entity_graph",
    "published_state",
]
EVALUATION_ASSETS = ["benchmarks", "evaluation_runs"]

document_job = dg.define_asset_job(
    "ingest_documents",
    selection=dg.AssetSelection.assets(*DOCUMENT_ASSETS),
    description="Parse, chunk, describe and embed documents (one partition per document).",
)
# The dbt models (assets/sql_models.py) are built right after the catalogue they read.
CATALOGUE_MODELS = dg.AssetSelection.key_prefixes("sql")

corpus_job = dg.define_asset_job(
    "refresh_corpus",
    selection=dg.AssetSelection.assets(*CORPUS_ASSETS) | CATALOGUE_MODELS,
    description="Overlays, catalogue and its dbt models, signature and the three indexes, with their checks; "
    "then publish them.",
)
evaluation_job = dg.define_asset_job(
    "evaluate",
    selection=dg.AssetSelection.assets(*EVALUATION_ASSETS),
    description="Benchmarks and paired evaluation runs logged to MLflow.",
)
