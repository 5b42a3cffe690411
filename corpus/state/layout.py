"""The state directory: one layout for everything the pipeline writes and the server reads.

Writes are atomic (temp file in the same folder, fsync, rename), so a reader never sees half a
file and a kill -9 leaves either the old or the new version.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from corpus.ids import validate_document_id

HOME_ENV = "QUANT_RAG_HOME"
# The command that builds a state or rebuilds what it lacks (orchestration.cli); the server names it.
INGEST_COMMAND = "quant-rag ingest"
DEFAULT_HOME = "./var"
SOURCE_SUFFIX = {"pdf": ".pdf", "markdown": ".md", "beir": ".json"}


def state_home() -> Path:
    """The state directory named by QUANT_RAG_HOME (default ./var), absolute."""
    return Path(os.environ.get(HOME_ENV, DEFAULT_HOME)).resolve()


@dataclass(frozen=True)
class StateLayout:
    """Paths of the materialised corpus state under one root.

    `view`: a published generation (corpus.reading.published). The served artefacts - registry, documents,
    overlays, signature, catalogue and the three indexes - are then read from it; everything else
    (sources, journal, lock, models, caches, MLflow, Dagster) stays under root. The writer's layout
    has no view: it works on the state directory itself and publishes from it.
    """

    root: Path
    view: Path | None = None

    @classmethod
    def from_env(cls) -> StateLayout:
        return cls(state_home())

    @property
    def served_root(self) -> Path:
        """Where the served artefacts live: the published generation viewed, else root."""
        return self.view or self.root

    def viewing(self, generation: Path) -> StateLayout:
        """The same state with its served artefacts read from `generation`."""
        return replace(self, view=generation)

    # publishing (corpus.reading.published)
    @property
    def published(self) -> Path:
        return self.root / "published"

    @property
    def readers_lock(self) -> Path:
        """Readers of a published generation hold this shared; the writer deletes it exclusively."""
        return self.served_root / "readers.lock"

    # inputs and bookkeeping
    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def sources(self) -> Path:
        return self.root / "sources"

    @property
    def registry(self) -> Path:
        return self.served_root / "registry"

    @property
    def quarantine(self) -> Path:
        return self.root / "quarantine"

    @property
    def journal(self) -> Path:
        return self.root / "journal"

    @property
    def lock_file(self) -> Path:
        return self.root / "writer.lock"

    # per-document outputs (served)
    @property
    def documents(self) -> Path:
        return self.served_root / "documents"

    # corpus-level outputs
    @property
    def overlays(self) -> Path:
        return self.served_root / "overlays"

    @property
    def near_duplicates_file(self) -> Path:
        return self.overlays / "near_duplicates.json"

    @property
    def titles_file(self) -> Path:
        return self.overlays / "titles.json"

    @property
    def overlay_files(self) -> tuple[Path, ...]:
        """Every overlay file, in the order their hashes enter the signature."""
        return (self.near_duplicates_file, self.titles_file)

    @property
    def catalogue(self) -> Path:
        return self.served_root / "catalogue.duckdb"

    @property
    def dbt_target(self) -> Path:
        return self.root / "dbt"  # dbt's target/ and logs (assets/sql_models.py)

    @property
    def signature_file(self) -> Path:
        return self.served_root / "signature.json"

    @property
    def freeze_file(self) -> Path:
        return self.root / "freeze.json"

    @property
    def embedding_cache(self) -> Path:
        return self.root / "embedding_cache"

    @property
    def vectors(self) -> Path:
        return self.served_root / "vectors"

    @property
    def bm25(self) -> Path:
        return self.served_root / "bm25"

    @property
    def token_indexes(self) -> Path:
        return self.served_root / "token_index"  # corpus.indexes.token_index

    @property
    def graph(self) -> Path:
        return self.served_root / "graph.duckdb"

    @property
    def profile_file(self) -> Path:
        return self.root / "profile.json"  # the ranking profile a state was built for (corpus.state.profile)

    @property
    def benchmarks(self) -> Path:
        return self.root / "benchmarks"

    @property
    def scratch(self) -> Path:
        return self.root / "scratch"

    @property
    def mlflow(self) -> Path:
        return self.root / "mlflow"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    @property
    def page_images(self) -> Path:
        return self.root / "page_images"  # corpus.reading.page_images cache

    def benchmark_home(self, key: str) -> Path:
        """The state directory of a benchmark's corpus (`key`: its name and corpus hash), written
        by the same ingestion jobs as the library (ingest.publication.benchmark)."""
        return self.benchmarks / key

    def onnx_model(self, model_key: str) -> Path:
        """The embedding model exported to ONNX (the server's torch-free query encoder)."""
        return self.root / "models" / model_key / "model.onnx"

    def registry_entry(self, document_id: str) -> Path:
        return self.registry / f"{validate_document_id(document_id)}.json"

    def source_file(self, document_id: str, fmt: str) -> Path:
        """The registered source bytes of a document (`fmt`: its SourceRecord.format)."""
        return self.sources / f"{validate_document_id(document_id)}{SOURCE_SUFFIX[fmt]}"

    def document_dir(self, document_id: str) -> Path:
        return self.documents / validate_document_id(document_id)

    def canonical_text(self, document_id: str) -> Path:
        return self.document_dir(document_id) / "canonical.txt"

    def parsed_blocks(self, document_id: str) -> Path:
        return self.document_dir(document_id) / "parsed.json"

    def passages(self, document_id: str) -> Path:
        return self.document_dir(document_id) / "passages.jsonl"

    def metadata(self, document_id: str) -> Path:
        return self.document_dir(document_id) / "metadata.json"

    def passages_meta(self, document_id: str) -> Path:
        """What the stored passages were made from (chunker version, canonical text hash)."""
        return self.document_dir(document_id) / "passages.meta.json"

    def embeddings(self, document_id: str, model_key: str) -> Path:
        """One document's piece vectors under one embedding model."""
        return self.document_dir(document_id) / f"embeddings-{model_key}.npz"

    def ensure(self) -> StateLayout:
        for folder in (
            self.inbox,
            self.sources,
            self.registry,
            self.quarantine,
            self.journal,
            self.documents,
            self.overlays,
            self.embedding_cache,
            self.bm25,
            self.benchmarks,
            self.scratch,
            self.mlflow,
            self.dagster_home,
        ):
            folder.mkdir(parents=True, exist_ok=True)
        return self

    def registered_document_ids(self) -> list[str]:
        """Document ids with a registry entry, sorted."""
        if not self.registry.exists():
            return []
        return sorted(p.stem for p in self.registry.glob("doc-*.json"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1) + "\n")


def atomic_write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows))


def read_text_exact(path: Path) -> str:
    """UTF-8 text exactly as stored: no newline translation (offsets depend on every character)."""
    return path.read_bytes().decode("utf-8")


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_jsonl(path: Path) -> list[Any]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
