"""Parse stage: source file → canonical text + typed block spans (one partition per document)."""


import time

import dagster as dg

from assets.parsing import MARKDOWN_PARSER, parse_source, parser_version, pdf_parser_name
from assets.partitions import documents_partitions
from assets.progress import track
from assets.register import load_source, quarantine
from assets.resources import StateResource
from assets.retire import retire_document
from corpus.canonical import assemble_canonical
from corpus.ids import sha256_hex
from corpus.models import ParsedDocument
from corpus.versions import PARSER_VERSION
from corpus.state import read_text_exact, StateLayout, atomic_write_json, atomic_write_text, read_json


def parse_document(layout: StateLayout, document_id: str) -> ParsedDocument:
    """Parse one registered document and store its canonical text (rewritten only by a new parser version)."""
    record, path = load_source(layout, document_id)
    output = parse_source(path, record.format)
    canonical, blocks = assemble_canonical(output.raw_blocks)
    if not canonical.strip():
        raise ValueError("no text could be extracted (scanned or empty document)")
    canonical_path = layout.canonical_text(document_id)
    same_version = is_parsed(layout, document_id, output.parser_version)
    if same_version and read_text_exact(canonical_path) != canonical:
        # Offsets are opposable: the same parser version must never produce another text.
        raise RuntimeError(f"{document_id}: {output.parser_version} is not deterministic on this file")
    parsed = ParsedDocument(document_id=document_id, parser=output.parser, parser_version=output.parser_version,
                            canonical_sha256=sha256_hex(canonical), canonical_chars=len(canonical),
                            pages=output.pages, garbled_text=output.garbled_text,
                            garbled_score=output.garbled_score, blocks=blocks)
    atomic_write_text(canonical_path, canonical)
    atomic_write_json(layout.parsed_blocks(document_id), parsed.model_dump(mode="json"))
    return parsed


def expected_parser_version(fmt: str) -> str:
    return parser_version(MARKDOWN_PARSER if fmt == "markdown" else pdf_parser_name())


def is_parsed(layout: StateLayout, document_id: str, version: str) -> bool:
    """True when the canonical text exists and was made by parser `version` (else re-parse)."""
    parsed = layout.parsed_blocks(document_id)
    return (parsed.exists() and layout.canonical_text(document_id).exists()
            and read_json(parsed).get("parser_version") == version)


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
