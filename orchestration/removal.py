"""A job that removes one document symmetrically (launchable from the Dagster UI)."""

import dagster as dg

from assets.resources import StateResource


class RemoveConfig(dg.Config):
    document_id: str


@dg.op(description="Retire the document's files and partition, then refresh the corpus and indexes.")
def remove_document_op(context: dg.OpExecutionContext, config: RemoveConfig, state: StateResource) -> None:
    from corpus.ids import validate_document_id
    from orchestration.runner import remove

    signature = remove(state.layout, validate_document_id(config.document_id))
    context.log.info(f"removed {config.document_id}; corpus signature now {signature}")


@dg.job(description="Remove one document (config: document_id) and roll the indexes back symmetrically.")
def remove_document_job():
    remove_document_op()
