"""One loop for every per-document stage: a progress bar on a terminal, failure isolation, and each
partition's own metadata (never the batch's totals)."""

import time
from collections.abc import Callable

import dagster as dg
from tqdm import tqdm

from corpus.state.layout import StateLayout
from ingest.sources.register import load_source
from ingest.sources.setaside import CONFIGURATION_ERRORS, live, mark_set_aside

StageWork = Callable[[str], dict]


def per_document(
    context: dg.AssetExecutionContext, layout: StateLayout, stage: str, work: StageWork
) -> dict[str, dict]:
    """Run `work(document_id) -> that document's metadata` over the run's live partitions.

    A document whose work raises is set aside with its reason (retired after the run) and the loop
    goes on; configuration errors still fail the step. The bar shows only on a terminal (tqdm's
    `disable=None`), so `dagster dev` compute logs stay clean.
    """
    keys = list(context.partition_keys)
    documents = live(layout, keys)
    done: dict[str, dict] = {}
    for document_id in tqdm(documents, desc=stage, unit="doc", leave=False, disable=None):
        started = time.perf_counter()
        record, _ = load_source(layout, document_id)
        try:
            own = work(document_id)
        except CONFIGURATION_ERRORS as exc:  # the installation, not the file: fail, set nothing aside
            raise dg.Failure(description=f"configuration error: {exc}") from exc
        except Exception as exc:  # one bad document must not sink the batch
            own = {"set_aside": mark_set_aside(layout, document_id, stage, exc)}
            context.log.warning(f"{document_id} ({record.original_name}) set aside: {own['set_aside']}")
        else:
            done[document_id] = own
        own = {"file": record.original_name, **own, "seconds": round(time.perf_counter() - started, 3)}
        context.add_asset_metadata(own, partition_key=document_id)
    for document_id in set(keys) - set(documents):
        context.add_asset_metadata({"set_aside": "failed in an earlier stage"}, partition_key=document_id)
    context.log.info(f"{stage}: {len(done)} of {len(keys)} documents")
    return done
