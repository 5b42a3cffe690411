"""Parse stage asset: source file → canonical text + typed block spans (one partition per document)."""

import dagster as dg

from assets.partitions import document_asset
from assets.progress import per_document
from assets.resources import StateResource
from corpus.models import ParsedDocument
from corpus.state.layout import read_json
from corpus.versions import PARSER_VERSION
from ingest.parsing import pdf_parser_name
from ingest.passages.parse import ParsePool, expected_parser_version, is_parsed
from ingest.sources.register import load_source
from ingest.sources.setaside import live


@document_asset(
    deps=["source_document"],
    group_name="documents",
    code_version=PARSER_VERSION,
    description="Canonical text and typed blocks (heading, paragraph, formula, table, …) with pages.",
)
def parsed_document(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    pdf_parser_name()  # an unknown configured parser fails the run here, before any document is blamed

    def needs_parsing(document_id: str) -> bool:
        try:
            record, _ = load_source(layout, document_id)
        except Exception:  # noqa: BLE001 — `parse` meets it again and sets the document aside
            return False
        return not is_parsed(layout, document_id, expected_parser_version(record.format))

    # Parsed ahead in two processes, so both cores work (ingest.passages.parse.ParsePool); a failure
    # surfaces in `parse` and sets its document aside as before.
    ahead = [d for d in live(layout, list(context.partition_keys)) if needs_parsing(d)]
    pooled = set(ahead)

    def parse(document_id: str) -> dict:
        if document_id in pooled or needs_parsing(document_id):
            parsed, reused = pool.result(document_id), False
        else:
            parsed, reused = ParsedDocument(**read_json(layout.parsed_blocks(document_id))), True
        return {
            "pages": parsed.pages or 0,
            "characters": parsed.canonical_chars,
            "parser": parsed.parser,
            "garbled_text": parsed.garbled_text,
            "reused": reused,
        }

    with ParsePool(layout, ahead) as pool:
        per_document(context, layout, "parse", parse)
    return dg.MaterializeResult()
