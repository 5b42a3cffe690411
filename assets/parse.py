"""Parse stage asset: source file → canonical text + typed block spans (one partition per document)."""


import dagster as dg

from assets.partitions import document_asset
from assets.progress import per_document
from assets.resources import StateResource
from corpus.models import ParsedDocument
from corpus.state import read_json
from corpus.versions import PARSER_VERSION
from ingest.parse import expected_parser_version, is_parsed, parse_document
from ingest.parsing import pdf_parser_name
from ingest.register import load_source


@document_asset(deps=["source_document"], group_name="documents", code_version=PARSER_VERSION,
                description="Canonical text and typed blocks (heading, paragraph, formula, table, …) with pages.")
def parsed_document(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    pdf_parser_name()  # an unknown configured parser fails the run here, before any document is blamed

    def parse(document_id: str) -> dict:
        record, _ = load_source(layout, document_id)
        if is_parsed(layout, document_id, expected_parser_version(record.format)):
            parsed = ParsedDocument(**read_json(layout.parsed_blocks(document_id)))
            reused = True
        else:
            parsed, reused = parse_document(layout, document_id), False
        return {"pages": parsed.pages or 0, "characters": parsed.canonical_chars, "parser": parsed.parser,
                "garbled_text": parsed.garbled_text, "reused": reused}

    per_document(context, layout, "parse", parse)
    return dg.MaterializeResult()
