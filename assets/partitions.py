"""The one dynamic partitions definition: a partition per document, keyed by document_id."""

import warnings

import dagster as dg

from corpus.state.layout import StateLayout
from ingest.sources.setaside import retire_set_aside

# The name on its own: the definition's `name` is optional in Dagster's types (a partitions
# function may stand in for it), and the instance's partition calls take a plain string.
DOCUMENTS_PARTITIONS = "documents"
documents_partitions = dg.DynamicPartitionsDefinition(name=DOCUMENTS_PARTITIONS)
# Dagster's documented run tags for one run over a partition range (single-run backfill policy).
PARTITION_RANGE_START_TAG = "dagster/asset_partition_range_start"
PARTITION_RANGE_END_TAG = "dagster/asset_partition_range_end"


def document_asset(**kwargs):
    """`@dg.asset` for a per-document stage: a partition per document, and a batch of documents
    materialised in one run (one model load). The single-run backfill policy is a beta parameter
    of Dagster's; its BetaWarning is silenced here, for this use only, not process-wide."""

    def decorate(fn):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dg.BetaWarning)
            return dg.asset(
                partitions_def=documents_partitions, backfill_policy=dg.BackfillPolicy.single_run(), **kwargs
            )(fn)

    return decorate


def consecutive_blocks(keys: list[str], wanted: list[str]) -> list[list[str]]:
    """`wanted` keys grouped into runs of consecutive positions in `keys` (order of `keys`)."""
    wanted_set, blocks, current = set(wanted), [], []
    for key in keys:
        if key in wanted_set:
            current.append(key)
        elif current:
            blocks.append(current)
            current = []
    return blocks + ([current] if current else [])


def range_tags(block: list[str]) -> dict[str, str]:
    """The tags of one run over a block of consecutive partitions (first and last key)."""
    return {PARTITION_RANGE_START_TAG: block[0], PARTITION_RANGE_END_TAG: block[-1]}


def add_document_partitions(instance: dg.DagsterInstance, document_ids: list[str]) -> list[str]:
    """Add the partitions of `document_ids` the instance lacks, in their order; returns those added.

    One read of the key set and one write, whatever the number of documents: a query per document
    made each ingest's start grow with the corpus."""
    known = set(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS))
    new = list(dict.fromkeys(d for d in document_ids if d not in known))
    if new:
        instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS, new)
    return new


def drop_document_partitions(instance: dg.DagsterInstance, document_ids: list[str]) -> None:
    """Delete the partitions of `document_ids` the instance holds (one read of the key set, then a
    delete per partition that exists: Dagster deletes dynamic partitions one key at a time)."""
    if not document_ids:
        return
    known = set(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS))
    for document_id in dict.fromkeys(document_ids):
        if document_id in known:
            instance.delete_dynamic_partition(DOCUMENTS_PARTITIONS, document_id)


def retire_set_aside_partitions(layout: StateLayout, instance: dg.DagsterInstance) -> dict[str, tuple[str, str]]:
    """Retire the documents a finished run set aside, with their partitions;
    {document_id: (file name, reason)}.

    Called between runs only (by the runner, and by the corpus refresh that follows a sensor's run)."""
    retired = retire_set_aside(layout)
    drop_document_partitions(instance, list(retired))
    return retired
