"""The pipeline's assets and asset checks, loaded once: the Definitions object and the in-process
runner both take them from here (so neither imports the other)."""

import dagster as dg

from assets import (
    bm25,
    catalogue,
    chunk,
    embed,
    graph,
    metadata,
    overlays,
    parse,
    passage_store,
    publish,
    register,
    signature,
    sql_models,
    tokens,
    vectors,
)
from assets import evaluation as evaluation_assets
from assets.checks import CORPUS_CHECKS

ASSETS = dg.load_assets_from_modules(
    [
        register,
        parse,
        chunk,
        metadata,
        embed,
        overlays,
        catalogue,
        sql_models,
        signature,
        vectors,
        bm25,
        passage_store,
        tokens,
        graph,
        publish,
        evaluation_assets,
    ]
)
ASSET_CHECKS = list(CORPUS_CHECKS)
