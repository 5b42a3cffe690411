"""The one dynamic partitions definition: a partition per document, keyed by document_id."""

import warnings

import dagster as dg

from corpus.state.layout import StateLayout
from ingest.setaside import retire_set_aside

# The name on its own: the definition's `name` is optional in Dagster's types (a partitions
# function may stand in for it), and the instance's partition calls take a plain string.
DOCUMENTS_PARTITIONS = "documents"
documents_partitions = dg.DynamicPartitionsDefinition(name=DOCUMENTS_PARTITIONS)


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


def retire_set_aside_partitions(layout: StateLayout, instance: dg.DagsterInstance) -> dict[str, tuple[str, str]]:
    """Retire the documents a finished run set aside, with their partitions;
    {document_id: (file name, reason)}.

    Called between runs only (by the runner, and by the corpus refresh that follows a sensor's run)."""
    retired = retire_set_aside(layout)
    for document_id in retired:
        if instance.has_dynamic_partition(DOCUMENTS_PARTITIONS, document_id):
            instance.delete_dynamic_partition(DOCUMENTS_PARTITIONS, document_id)
    return retired
