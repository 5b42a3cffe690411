"""Speed of citation verification on a ~200k-character document (docs/DESIGN.md §5 goal: ≤ 10 ms warm).

Builds a throw-away corpus state in a temp folder from the bundled Markdown lectures (one
concatenated document), then times: normalise_with_map cold, verify_quote warm for a raw quote,
a normalised quote, a one-word alteration (closest search) and an ellipsis quote.

    .venv/bin/python benchmarks/citation_speed.py [--chars 200000] [--repeat 50] [--json] [--hog]
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import harness  # noqa: E402

from corpus.ids import chunk_id_for, document_id_for_bytes, sha256_hex  # noqa: E402
from corpus.models import BlockKind, DocumentMetadata, ParsedDocument, Passage, RawBlock, SourceRecord  # noqa: E402
from corpus.reading.reader import CorpusReader  # noqa: E402
from corpus.state.layout import StateLayout, atomic_write_text  # noqa: E402
from corpus.text.canonical import assemble_canonical  # noqa: E402
from corpus.text.normalise import normalise_with_map  # noqa: E402
from corpus.versions import CHUNKER_VERSION, PARSER_VERSION  # noqa: E402
from serving.citation.verify import verify_quote  # noqa: E402


def build_reader(root: Path, target_chars: int) -> tuple[CorpusReader, str]:
    """One document made of lecture paragraphs, passages of ~1,500 characters, in memory."""
    paragraphs: list[str] = []
    for path in sorted((ROOT / "library" / "markdown").glob("*.md")):
        paragraphs += [p for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip()]
        if sum(map(len, paragraphs)) > target_chars:
            break
    text, blocks = assemble_canonical([RawBlock(kind=BlockKind.paragraph, text=p) for p in paragraphs])
    document_id = document_id_for_bytes(text.encode())
    layout = StateLayout(root)
    atomic_write_text(layout.canonical_text(document_id), text)
    reader = CorpusReader(layout)
    passages, group = [], []
    for block in blocks + [None]:
        if group and (block is None or block.end - group[0].start > 1500):
            start, end = group[0].start, group[-1].end
            passages.append(
                Passage(
                    chunk_id=chunk_id_for(document_id, start, end, CHUNKER_VERSION),
                    document_id=document_id,
                    ordinal=len(passages),
                    text=text[start:end],
                    ranges=[(start, end)],
                    granularity="exact",
                )
            )
            group = []
        if block is not None:
            group.append(block)
    reader.documents[document_id] = _entry(document_id, text, blocks)
    reader.by_document[document_id] = passages
    reader.passages.update((p.chunk_id, p) for p in passages)
    return reader, document_id


def _entry(document_id: str, text: str, blocks: list):
    from corpus.reading.reader import DocumentEntry

    sha = sha256_hex(text)
    return DocumentEntry(
        source=SourceRecord(
            document_id=document_id,
            format="markdown",
            source_sha256=sha,
            bytes=len(text.encode()),
            original_name="bench.md",
            registered_at=datetime.now(UTC).isoformat(),
        ),
        parsed=ParsedDocument(
            document_id=document_id,
            parser="bench",
            parser_version=PARSER_VERSION,
            canonical_sha256=sha,
            canonical_chars=len(text),
            blocks=blocks,
        ),
        metadata=DocumentMetadata(document_id=document_id),
    )


def median_ms(fn, repeat: int) -> float:
    """Median milliseconds of `repeat` calls."""
    return harness.percentiles_ms(harness.seconds_each(lambda _: fn(), range(repeat)), digits=3)["p50"]


def measure(chars: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        reader, doc = build_reader(Path(tmp), chars)
        text = reader.canonical_text(doc)
        rng = random.Random(7)
        sentences = [s for s in re.findall(r"[A-Z][a-z][^.\n$|`]{60,200}\.", text) if " " in s]
        raw = rng.choice(sentences)
        loose = " ".join(raw.upper().split()).replace("'", "\u2019")
        words = raw.split()
        words[len(words) // 2] = "zyxwvut"
        altered = " ".join(words)
        ellipsis = " ".join(raw.split()[:5]) + " … " + " ".join(raw.split()[-5:])
        cold = median_ms(lambda: normalise_with_map(text), 5)
        verify_quote(reader, doc, raw)  # warm the cache
        rows = {"normalise_with_map (cold, per call)": cold}
        for label, quote in (
            ("verify raw", raw),
            ("verify normalised", loose),
            ("verify one word changed (closest)", altered),
            ("verify ellipsis", ellipsis),
        ):
            status = verify_quote(reader, doc, quote).status
            rows[f"{label} → {status}"] = median_ms(lambda q=quote: verify_quote(reader, doc, q), repeat)
    return {"document_chars": len(text), "passages": len(reader.by_document[doc]), "median_ms": rows}


def main() -> None:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--chars", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    meter = harness.StealMeter()
    figures = harness.with_hog(args, lambda: measure(args.chars, args.repeat))
    lines = [f"document: {figures['document_chars']:,} chars, {figures['passages']} passages"]
    for suffix, run in (("", figures), (" [hog]", figures.get("hog"))):
        medians = (run or {}).get("median_ms", {})
        lines += [f"{label + suffix:<61} {ms:8.2f} ms (median)" for label, ms in medians.items()]
    harness.emit(args, figures, lines, meter=meter)


if __name__ == "__main__":
    main()
