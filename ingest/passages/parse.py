"""Parse stage: source file → canonical text + typed block spans, stored per document."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from corpus.ids import sha256_hex
from corpus.models import ParsedDocument
from corpus.state.layout import StateLayout, atomic_write_json, atomic_write_text, read_json, read_text_exact
from corpus.text.canonical import assemble_canonical
from ingest.parsing import MARKDOWN_PARSER, ParseOutput, parse_source, parser_version, pdf_parser_name
from ingest.parsing.beir import BEIR_FORMAT, BEIR_PARSER, BEIR_PARSER_VERSION, parse_beir
from ingest.sources.register import load_source


def parse_document(layout: StateLayout, document_id: str) -> ParsedDocument:
    """Parse one registered document and store its canonical text (rewritten only by a new parser version)."""
    record, path = load_source(layout, document_id)
    if record.format == BEIR_FORMAT:  # a benchmark's records: their text as written, no assembly
        canonical, blocks = parse_beir(path.read_bytes())
        output = ParseOutput([], BEIR_PARSER, BEIR_PARSER_VERSION, None, False, 0.0)
    else:
        output = parse_source(path, record.format)
        canonical, blocks = assemble_canonical(output.raw_blocks)
    if not canonical.strip():
        raise ValueError(output.no_text_reason())
    canonical_path = layout.canonical_text(document_id)
    same_version = is_parsed(layout, document_id, output.parser_version)
    if same_version and read_text_exact(canonical_path) != canonical:
        # Offsets are opposable: the same parser version must never produce another text.
        raise RuntimeError(f"{document_id}: {output.parser_version} is not deterministic on this file")
    parsed = ParsedDocument(
        document_id=document_id,
        parser=output.parser,
        parser_version=output.parser_version,
        canonical_sha256=sha256_hex(canonical),
        canonical_chars=len(canonical),
        pages=output.pages,
        garbled_text=output.garbled_text,
        garbled_score=output.garbled_score,
        text_quality=output.quality,
        ocr=output.ocr,
        blocks=blocks,
    )
    atomic_write_text(canonical_path, canonical)
    atomic_write_json(layout.parsed_blocks(document_id), parsed.model_dump(mode="json"))
    return parsed


def expected_parser_version(fmt: str) -> str:
    if fmt == BEIR_FORMAT:
        return BEIR_PARSER_VERSION
    return parser_version(MARKDOWN_PARSER if fmt == "markdown" else pdf_parser_name())


def parse_is_stale(layout: StateLayout, document_id: str) -> bool:
    """True when the document was parsed by another version of its parser than this code's (a
    PARSER_VERSION bump): its canonical text must be made again."""
    parsed = layout.parsed_blocks(document_id)
    if not parsed.exists():
        return False  # not parsed yet: the missing artefacts already make it incomplete
    record, _ = load_source(layout, document_id)
    return read_json(parsed).get("parser_version") != expected_parser_version(record.format)


def is_parsed(layout: StateLayout, document_id: str, version: str) -> bool:
    """True when the canonical text exists and was made by parser `version` (else re-parse)."""
    parsed = layout.parsed_blocks(document_id)
    return (
        parsed.exists()
        and layout.canonical_text(document_id).exists()
        and read_json(parsed).get("parser_version") == version
    )


# Parsing in worker processes pays a start-up (a fresh interpreter imports the parsers): only
# worth it for a batch of at least this many documents to parse.
PARALLEL_MIN_DOCUMENTS = 8
PARSE_WORKERS = 2  # the machine's two cores: pdfium parses on one core per process


def _parse_in_worker(layout: StateLayout, document_id: str) -> ParsedDocument:
    return parse_document(layout, document_id)


class ParsePool:
    """Documents parsed ahead in PARSE_WORKERS processes (pdfium is single-threaded and not
    thread-safe), in the order they will be asked for; `result(document_id)` waits for one. A
    document the pool was not given, or any document when the batch is too small, the configured
    parser is not pdfium, or workers=1, is parsed in this process."""

    def __init__(
        self,
        layout: StateLayout,
        document_ids: list[str],
        workers: int = PARSE_WORKERS,
        minimum: int = PARALLEL_MIN_DOCUMENTS,
    ):
        self.layout, self._futures, self._executor = layout, {}, None
        if workers > 1 and len(document_ids) >= minimum and pdf_parser_name() == "pdfium":
            self._executor = ProcessPoolExecutor(workers, mp_context=get_context("spawn"))
            self._futures = {d: self._executor.submit(_parse_in_worker, layout, d) for d in document_ids}

    def result(self, document_id: str) -> ParsedDocument:
        future = self._futures.pop(document_id, None)
        if future is not None:
            try:
                return future.result()  # a parse error is raised here, and the caller sets it aside
            except BrokenProcessPool:
                pass  # a worker died (one document crashed the parser): the rest are parsed here
        return parse_document(self.layout, document_id)

    def __enter__(self) -> ParsePool:
        return self

    def __exit__(self, *_exc) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
