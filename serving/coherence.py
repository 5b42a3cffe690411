"""State coherence: does every derived artefact come from the corpus state on disk?

The corpus signature is computed from the files (documents, passages, overlays) and compared
with the one the pipeline recorded and with the one each index (vectors, BM25, graph) was built
from. Any difference or missing artefact makes the state incoherent; the server then refuses
every call but corpus_status (which reports it) with the command that rebuilds it, and
`quant-rag doctor` prints the same report.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from corpus.config import ServedConfig
from corpus.state.layout import HOME_ENV, INGEST_COMMAND, StateLayout, read_json
from corpus.state.signature import compute_signature, recorded_signature

log = logging.getLogger(__name__)

Status = Literal["coherent", "stale", "missing", "unreadable"]


@dataclass(frozen=True)
class Artefact:
    name: str
    status: Status
    signature: str | None
    detail: str = ""
    rebuild: str = INGEST_COMMAND


@dataclass
class CoherenceReport:
    signature: str  # computed from the files on disk
    artefacts: list[Artefact] = field(default_factory=list)

    @property
    def coherent(self) -> bool:
        return bool(self.artefacts) and all(a.status == "coherent" for a in self.artefacts)

    @property
    def rebuild_commands(self) -> list[str]:
        return sorted({a.rebuild for a in self.artefacts if a.status != "coherent"})

    def problem(self) -> str:
        """One sentence naming each broken artefact, for error messages."""
        broken = [
            f"{a.name} is {a.status}" + (f" ({a.detail})" if a.detail else "")
            for a in self.artefacts
            if a.status != "coherent"
        ]
        return (
            "the corpus state is incoherent: "
            + "; ".join(broken)
            + ". Run `"
            + "`, `".join(self.rebuild_commands)
            + "` to rebuild it."
        )


def _vector_signature(layout: StateLayout, config: ServedConfig, computed: str) -> str | None:
    """Edge keeps its meta in a sidecar file (read without taking the shard's lock); the
    qdrant-client backends keep it in the collection, which needs the model's dimension."""
    from corpus.state.generations import current_generation
    from corpus.vectors.vector_store import edge_root, open_vector_store

    if config.vector_backend == "edge":
        from corpus.vectors.vector_store_edge import META_FILE

        meta = current_generation(edge_root(layout, config)) / META_FILE
        return read_json(meta).get("signature") if meta.exists() else None
    from corpus.encoding.embedder import load_embedder

    store = open_vector_store(layout, config, load_embedder(config).dimension, read_only=True)
    try:
        return store.get_meta().get("signature")
    finally:
        store.close()


def _bm25_signature(layout: StateLayout, config: ServedConfig, computed: str) -> str | None:
    """The signature of the BM25 build for `computed` if there is one, else of the newest build."""
    from corpus.indexes.bm25_store import MANIFEST

    wanted = layout.bm25 / computed / MANIFEST
    builds = [p for p in layout.bm25.glob(f"*/{MANIFEST}") if not p.parent.name.startswith(".")]
    manifests = [wanted] if wanted.exists() else sorted(builds, key=lambda p: p.stat().st_mtime)
    return read_json(manifests[-1]).get("signature") if manifests else None


def _graph_signature(layout: StateLayout, config: ServedConfig, computed: str) -> str | None:
    """The graph file's recorded signature, read from its `meta` table alone: loading the whole
    graph (GraphStore.open: entities, mentions, relations into memory) cost CPU on every server
    start for one string, before the first search could be answered (docs/measurements.md, Serving)."""
    if not layout.graph.exists():
        return None
    import duckdb

    from corpus.graph.graph_store import FORMAT_VERSION

    con = duckdb.connect(str(layout.graph), read_only=True)
    try:
        meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('signature', 'format_version')").fetchall())
    finally:
        con.close()
    if meta.get("format_version") != FORMAT_VERSION:  # what GraphStore.open would refuse
        raise ValueError(f"graph format {meta.get('format_version')!r}; this code reads {FORMAT_VERSION!r}")
    return meta.get("signature")


def _model_artefact(layout: StateLayout, config: ServedConfig) -> Artefact:
    """Was the vector index built with the configured embedding model (corpus.config.model_key:
    id, revision and a local folder's content fingerprint)? Edge keeps one folder per model key;
    the meta of each names the model it holds."""
    from corpus.state.generations import current_generation
    from corpus.vectors.vector_store_edge import META_FILE

    wanted = f"{config.embedding_model} ({config.model_key}" + (
        f", {config.embedding_model_path})" if config.embedding_model_path else ")"
    )
    if config.vector_backend != "edge":  # one collection per model key: the vector probe covers it
        return Artefact("embedding model", "coherent", config.model_key, wanted)
    metas = [
        read_json(current_generation(root) / META_FILE)
        for root in sorted((layout.vectors / "edge").glob("passages-*"))
        if (current_generation(root) / META_FILE).exists()
    ]
    built = {m.get("model_key"): m.get("model_id") for m in metas}
    if config.model_key in built:
        return Artefact("embedding model", "coherent", config.model_key)
    if not built:
        return Artefact("embedding model", "missing", None, f"no vector index for {wanted}")
    others = ", ".join(f"{model} ({key})" for key, model in sorted(built.items(), key=str))
    return Artefact(
        "embedding model",
        "stale",
        ",".join(sorted(map(str, built))),
        f"the vector index was built with {others}; configured {wanted}: re-embed with `{INGEST_COMMAND}`",
    )


PROBES: tuple[tuple[str, Callable[[StateLayout, ServedConfig, str], str | None]], ...] = (
    ("vector index", _vector_signature),
    ("BM25 index", _bm25_signature),
    ("entity graph", _graph_signature),
)


def check_state(layout: StateLayout, config: ServedConfig) -> CoherenceReport:
    """Compare the computed signature with the recorded one and each index's."""
    computed = compute_signature(layout)
    report = CoherenceReport(signature=computed)
    if not layout.registered_document_ids():
        report.artefacts.append(
            Artefact("corpus documents", "missing", None, f"no registered document in the state directory ({HOME_ENV})")
        )
    recorded = recorded_signature(layout)
    report.artefacts.append(_judge("recorded signature", recorded, computed))
    for name, probe in PROBES:
        try:
            signature = probe(layout, config, computed)
        except Exception as exc:  # an artefact that cannot be read is as good as missing
            log.warning("cannot read %s: %r", name, exc)
            report.artefacts.append(Artefact(name, "unreadable", None, type(exc).__name__))
            continue
        report.artefacts.append(_judge(name, signature, computed))
    try:
        report.artefacts.append(_model_artefact(layout, config))
    except Exception as exc:  # e.g. a configured model folder that vanished since start
        log.warning("cannot check the embedding model: %r", exc)
        report.artefacts.append(Artefact("embedding model", "unreadable", None, str(exc)))
    return report


def _judge(name: str, signature: str | None, computed: str) -> Artefact:
    if signature is None:
        return Artefact(name, "missing", None)
    if signature != computed:
        return Artefact(name, "stale", signature, f"built from {signature}, corpus is {computed}")
    return Artefact(name, "coherent", signature)


def token_index_state(layout: StateLayout, config: ServedConfig, signature: str) -> tuple[str, str]:
    """(status, detail) of the token index late interaction reads. It is optional (without it hybrid
    search keeps the fused order), so it never makes the state incoherent: doctor reports it apart."""
    if not config.late_interaction:
        return "off", "late interaction is off (QUANT_RAG_LATE_INTERACTION=false)"
    from corpus.indexes.token_index import TokenIndex

    try:
        index = TokenIndex.for_state(layout, config.weights_key, signature)
    except Exception as exc:  # noqa: BLE001 — a report must answer
        return "unreadable", f"{type(exc).__name__}: hybrid search keeps the fused order → run `{INGEST_COMMAND}`"
    if index is None:
        return "missing", f"hybrid search keeps the fused order → run `{INGEST_COMMAND}`"
    product = (
        "integer product" if index.product is not None else f"float product: `{INGEST_COMMAND}` adds its integer graph"
    )
    return "coherent", f"{len(index.spans)} passages, {index.codes.shape[0]:,} token rows ({product})"


def token_index_line(status: str, detail: str, signature: str) -> str:
    mark = "ok " if status == "coherent" else "-- "
    shown = f" [{signature}]" if status == "coherent" else ""
    return f"{mark}token index (optional): {status}{shown} — {detail}"


def doctor_text(report: CoherenceReport, optional: tuple[str, ...] = ()) -> str:
    """The human report `quant-rag doctor` prints; `optional` lines (artefacts the state may lack)
    come after the required ones, before the verdict."""
    lines = [f"corpus signature (computed): {report.signature}"]
    for a in report.artefacts:
        mark = "ok " if a.status == "coherent" else "!! "
        extra = f" — {a.detail}" if a.detail else ""
        fix = "" if a.status == "coherent" else f" → run `{a.rebuild}`"
        lines.append(f"{mark}{a.name}: {a.status} [{a.signature or '-'}]{extra}{fix}")
    lines.extend(optional)
    lines.append(
        "state is coherent"
        if report.coherent
        else "state is NOT coherent: " + ", ".join(f"`{c}`" for c in report.rebuild_commands)
    )
    return "\n".join(lines)
