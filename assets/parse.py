"""Parse stage asset: source file → canonical text + typed block spans (one partition per document)."""


import time

import dagster as dg

from assets.partitions import documents_partitions
from assets.progress import track
from assets.resources import StateResource
from corpus.versions import PARSER_VERSION
from ingest.parse import expected_parser_version, is_parsed, parse_document
from ingest.parsing.mineru import ParserUnavailable
from ingest.register import load_source, quarantine
from ingest.retire import retire_document


@dg.asset(partitions_def=documents_partitions, backfill_policy=dg.BackfillPolicy.single_run(),
          deps=["source_document"], group_name="documents", code_version=PARSER_VERSION,
          description="Canonical text and typed blocks (heading, paragraph, formula, table, …) with pages.")
def parsed_document(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    pages = parsed = 0
    garbled: list[str] = []
    rejected: dict[str, str] = {}
    started = time.perf_counter()
    for document_id in track(context, context.partition_keys, "parsed"):
        record, _ = load_source(layout, document_id)
        if is_parsed(layout, document_id, expected_parser_version(record.format)):
            continue
        try:
            result = parse_document(layout, document_id)
        except ParserUnavailable as exc:  # the installation, not the file: fail, set nothing aside
            raise dg.Failure(description=f"configuration error: {exc}") from exc
        except Exception as exc:  # one bad document must not sink the batch
            record, path = load_source(layout, document_id)
            reason = f"parse failed: {type(exc).__name__}: {exc}"
            quarantine(layout, path, reason, name=record.original_name)
            retire_document(layout, document_id)
            context.instance.delete_dynamic_partition(documents_partitions.name, document_id)
            rejected[record.original_name] = reason
            context.log.warning(f"{document_id} ({record.original_name}) set aside: {reason}")
            continue
        parsed += 1
        pages += result.pages or 0
        if result.garbled_text:
            garbled.append(document_id)
    elapsed = time.perf_counter() - started
    return dg.MaterializeResult(metadata={
        "parsed": parsed, "pages": pages, "seconds": round(elapsed, 2),
        "pages_per_second": round(pages / elapsed, 1) if elapsed and pages else 0.0,
        "garbled_text": garbled, "set_aside": rejected})
