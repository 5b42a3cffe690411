"""A synthetic large state: the ingested library cloned until it holds ~N passages, no model run.

    python benchmarks/synthetic_state.py --source var --target /tmp/qr26k --passages 26000

Clone 0 of every document is the source document as ingested (same ids); a target smaller than
the source keeps a sample of its documents. Each further clone is a new document, built directly
in the state layout:

- source bytes: the original bytes + a clone marker (a PDF comment / an HTML comment), so
  document_id changes;
- canonical text: a deterministic substitution of ~SUBSTITUTED of the ASCII words (case kept),
  each by another word of the same length drawn from the library's own vocabulary (keyed by
  clone and offset). Lengths are unchanged, so every block offset and passage range stays valid,
  and 8-word shingles of a clone overlap the original's by ~(1 - SUBSTITUTED)^8, far below the
  near-duplicate threshold, so the overlay does not collapse the clones;
- passages: the same ranges, text re-sliced, chunk ids re-derived with the new document_id;
- metadata: the year moved to one spread over YEARS (so year filters are selective);
- embeddings: the original piece vectors + Gaussian noise (NOISE per dimension), renormalised,
  in the format of ingest/indexes/embed.py.

Then the corpus-level assets (overlays, catalogue, signature, Qdrant Edge, BM25, graph) and their
checks run through the real pipeline, and the state's coherence is printed as `quant-rag doctor`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import io
import math
import os
import re
import shutil
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import harness
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.config import ServedConfig  # noqa: E402
from corpus.ids import chunk_id_for, document_id_for_bytes, sha256_hex  # noqa: E402
from corpus.models import DocumentMetadata, ParsedDocument, Passage, SourceRecord  # noqa: E402
from corpus.state.layout import (  # noqa: E402
    StateLayout,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_jsonl,
    atomic_write_text,
    read_json,
    read_jsonl,
    read_text_exact,
)
from corpus.versions import CHUNKER_VERSION  # noqa: E402

SUBSTITUTED = 0.30  # share of eligible words replaced in each clone
NOISE = 0.015  # per-dimension sigma: cosine to the original piece ~0.96 at 384 dims
YEARS = (1995, 2026)
_WORD_RE = re.compile(r"(?<![\\\w])[A-Za-z][a-z]+(?!\w)")  # ASCII words (not \commands, not ALLCAPS)


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest(), "big")


def vocabulary(texts: list[str]) -> dict[int, list[str]]:
    """Word length -> sorted distinct lower-case words of that length in `texts`."""
    by_length: dict[int, set[str]] = defaultdict(set)
    for text in texts:
        for word in _WORD_RE.findall(text):
            by_length[len(word)].add(word.lower())
    return {n: sorted(words) for n, words in by_length.items()}


def perturb(text: str, clone: int, vocab: dict[int, list[str]]) -> str:
    """Replace ~SUBSTITUTED of the words by same-length vocabulary words; length is preserved."""
    threshold = int(SUBSTITUTED * 2**64)

    def swap(match: re.Match) -> str:
        word = match.group(0)
        lower = word.lower()
        if _digest("pick", clone, match.start()) >= threshold:
            return word
        pool = vocab.get(len(word), [lower])
        choice = pool[_digest("word", clone, match.start()) % len(pool)]
        if choice == lower and len(pool) > 1:
            choice = pool[(pool.index(lower) + 1) % len(pool)]
        return choice.capitalize() if word[0].isupper() else choice

    out = _WORD_RE.sub(swap, text)
    assert len(out) == len(text)
    return out


def noisy(vectors: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    moved = vectors + rng.normal(0.0, NOISE, vectors.shape).astype(vectors.dtype)
    return (moved / np.linalg.norm(moved, axis=1, keepdims=True)).astype(np.float32)


def cloned_passage(old: Passage, new_id: str, canonical: str, clone: int, vocab: dict[int, list[str]]) -> Passage:
    """`old` as a passage of the clone `new_id` whose canonical text is `canonical`. An "exact"
    passage is its range of that text, its chunk id derived as the chunker does. A "block" one (a
    part of a table too long to serve whole, anchored on the whole table) keeps its anchor; its
    own text is perturbed like the canonical text, and its chunk id, which the chunker derives from
    the part's place and the passage does not record, is derived from the original's instead."""
    ((start, end),) = old.ranges  # the chunker writes single-range passages only
    if old.granularity == "exact":
        text, chunk_id = canonical[start:end], chunk_id_for(new_id, start, end, CHUNKER_VERSION)
    else:
        text = perturb(old.text, clone, vocab)
        chunk_id = "chunk-" + sha256_hex(f"{new_id}\x00{old.chunk_id}")[:16]
    return old.model_copy(update={"document_id": new_id, "text": text, "chunk_id": chunk_id})


def clone_document(
    source: StateLayout,
    target: StateLayout,
    config: ServedConfig,
    document_id: str,
    clone: int,
    vocab: dict[int, list[str]],
    now: str,
) -> int:
    """Write clone `clone` of `document_id` into `target`; returns its passage count."""
    record = SourceRecord(**read_json(source.registry_entry(document_id)))
    suffix = ".pdf" if record.format == "pdf" else ".md"
    data = (source.sources / f"{document_id}{suffix}").read_bytes()
    marker = (
        f"\n%quant-rag synthetic clone {clone}\n"
        if suffix == ".pdf"
        else f"\n<!-- quant-rag synthetic clone {clone} -->\n"
    )
    data += marker.encode()
    new_id = document_id_for_bytes(data)
    canonical = perturb(read_text_exact(source.canonical_text(document_id)), clone, vocab)
    parsed = ParsedDocument(**read_json(source.parsed_blocks(document_id)))
    parsed = parsed.model_copy(update={"document_id": new_id, "canonical_sha256": sha256_hex(canonical)})
    passages, chunk_of = [], {}
    for row in read_jsonl(source.passages(document_id)):
        old = Passage(**row)
        new = cloned_passage(old, new_id, canonical, clone, vocab)
        chunk_of[old.chunk_id] = new.chunk_id
        passages.append(new.model_dump(mode="json"))
    meta = DocumentMetadata(**read_json(source.metadata(document_id)))
    year = YEARS[0] + _digest("year", document_id, clone) % (YEARS[1] - YEARS[0] + 1)
    meta = meta.model_copy(update={"document_id": new_id, "year": meta.year.model_copy(update={"value": year})})
    with np.load(source.embeddings(document_id, config.model_key)) as npz:
        chunk_ids = np.array([chunk_of[c] for c in npz["chunk_ids"]])
        pieces, vectors = npz["pieces"], noisy(npz["vectors"], _digest("noise", document_id, clone))
    buffer = io.BytesIO()
    np.savez(buffer, chunk_ids=chunk_ids, pieces=pieces, vectors=vectors)

    atomic_write_bytes(target.sources / f"{new_id}{suffix}", data)
    atomic_write_text(target.canonical_text(new_id), canonical)
    atomic_write_json(target.parsed_blocks(new_id), parsed.model_dump(mode="json"))
    atomic_write_jsonl(target.passages(new_id), passages)
    atomic_write_json(
        target.passages_meta(new_id), {"canonical_sha256": parsed.canonical_sha256, "chunker_version": CHUNKER_VERSION}
    )
    atomic_write_json(target.metadata(new_id), meta.model_dump(mode="json"))
    atomic_write_bytes(target.embeddings(new_id, config.model_key), buffer.getvalue())
    atomic_write_json(
        target.registry_entry(new_id),
        record.model_copy(
            update={
                "document_id": new_id,
                "source_sha256": sha256_hex(data),
                "bytes": len(data),
                "original_name": f"{record.original_name} (clone {clone})",
                "library_file": None,
                "registered_at": now,
            }
        ).model_dump(mode="json"),
    )
    return len(passages)


def copy_original(source: StateLayout, target: StateLayout, document_id: str) -> int:
    """Clone 0: the ingested document's files as they are (registry, source, document folder)."""
    shutil.copy2(source.registry_entry(document_id), target.registry_entry(document_id))
    for path in source.sources.glob(f"{document_id}.*"):
        shutil.copy2(path, target.sources / path.name)
    shutil.copytree(source.document_dir(document_id), target.document_dir(document_id), dirs_exist_ok=True)
    return len(read_jsonl(source.passages(document_id)))


@contextlib.contextmanager
def one_sync_at_the_end() -> Iterator[None]:
    """The state's atomic writes without a flush to the disk each (a million files would wait on
    the disk one by one), then one sync of everything: the refresh that follows reads it."""
    fsync = os.fsync
    os.fsync = lambda fd: None
    try:
        yield
    finally:
        os.fsync = fsync
        os.sync()


def build(source_root: Path, target_root: Path, passages: int) -> dict:
    with one_sync_at_the_end():
        return write_state(source_root, target_root, passages)


def write_state(source_root: Path, target_root: Path, passages: int) -> dict:
    source, target = StateLayout(source_root), StateLayout(target_root).ensure()
    config = ServedConfig.from_env()
    # A fixed order that mixes the source's collections: a target smaller than the source takes
    # a sample of its documents (whole, as ingested) rather than the first ones registered.
    ids = sorted(
        (d for d in source.registered_document_ids() if source.passages(d).exists()),
        key=lambda d: _digest("order", d),
    )
    counts = {d: len(read_jsonl(source.passages(d))) for d in ids}
    clones = math.ceil(passages / sum(counts.values()))
    vocab = vocabulary([read_text_exact(source.canonical_text(d)) for d in ids])
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    if (source.root / "models").is_dir():  # the query encoder's ONNX export, keyed by model
        shutil.copytree(source.root / "models", target.root / "models", dirs_exist_ok=True)
    total = made = 0
    for document_id in ids:
        if total >= passages:
            break
        total += copy_original(source, target, document_id)
        made += 1
    for clone in range(1, clones):
        for document_id in ids:
            if total >= passages:
                break
            total += clone_document(source, target, config, document_id, clone, vocab, now)
            made += 1
    return {"documents": made, "passages": total, "clone_rounds": clones}


def refresh(target_root: Path) -> dict[str, bool]:
    from orchestration.runner import instance_for, refresh_corpus

    layout = StateLayout(target_root)
    return refresh_corpus(layout, instance_for(layout))


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--source", type=Path, required=True, help="an ingested state (read only)")
    parser.add_argument("--target", type=Path, required=True, help="new state folder (must be empty)")
    parser.add_argument("--passages", type=int, default=26000)
    args = parser.parse_args(argv)
    target = args.target.resolve()
    if target.exists() and any(target.iterdir()):
        parser.error(f"{target} is not empty")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # The scale states measure the vector, BM25 and passage-store paths: a token index of 100k cloned
    # passages would be computed from nothing (hours here) and take ≈ 12 GB.
    os.environ.setdefault("QUANT_RAG_LATE_INTERACTION", "false")
    meter = harness.StealMeter()
    stats, written_s = harness.timed(build, args.source.resolve(), target, args.passages)
    harness.say(args, f"written: {stats} in {written_s:.0f} s")
    checks, refresh_s = harness.timed(refresh, target)
    harness.say(
        args,
        f"refresh_corpus: {refresh_s:.0f} s; checks "
        + ", ".join(f"{k}={'ok' if v else 'FAILED'}" for k, v in sorted(checks.items())),
    )
    overlays = {path.name: len(read_json(path)) for path in StateLayout(target).overlay_files}
    from serving.coherence import check_state, doctor_text

    report = check_state(StateLayout(target), ServedConfig.from_env())
    figures = {
        "target": str(target),
        "written": stats,
        "write_s": round(written_s),
        "refresh_s": round(refresh_s),
        "checks": checks,
        "overlays": overlays,
        "coherent": report.coherent,
    }
    harness.emit(args, figures, [f"overlays: {overlays}", f"state: {target}\n" + doctor_text(report)], meter=meter)
    return 0 if report.coherent and all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
