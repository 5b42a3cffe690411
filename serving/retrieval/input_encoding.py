"""How a search's inputs are embedded: the question by the float32 token graph (a bare search is
unchanged by what a caller may send), the caller's rephrasings and hypothetical passage by the
caller graph (ServedConfig.caller_runtime: the token graph's int8 quantisation by default; about
nine in ten of a cooperative search's tokens are the caller's), and a hypothetical passage as a
passage when the model gives its queries an instruction."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from serving.coherence import INGEST_COMMAND

if TYPE_CHECKING:
    from corpus.config import ServedConfig
    from corpus.encoding.token_encoder import TokenEncoder
    from corpus.state.layout import StateLayout
    from serving.retrieval.cooperative import QueryInput

log = logging.getLogger(__name__)


class EncodingParts(Protocol):
    """What these functions read of the search's parts (serving.retrieval.parts.Parts, which
    opens the caller's encoder with `load_caller_encoder`)."""

    config: ServedConfig

    @property
    def tokens(self) -> Any: ...

    @property
    def caller_encoder(self) -> TokenEncoder | None: ...

    @property
    def embedder(self) -> Any: ...


def load_caller_encoder(layout: StateLayout, config: ServedConfig, question_encoder: TokenEncoder) -> TokenEncoder:
    """The encoder of the caller's inputs; the question's own when `caller_runtime` is "onnx" or
    when a state ingested before the caller graph existed lacks it (said once, with the fix)."""
    from corpus.encoding.embedder import model_folder
    from corpus.encoding.onnx_encoder import caller_graph_file
    from corpus.encoding.token_encoder import load_token_encoder

    if config.caller_runtime == "onnx":  # the question's own graph
        return question_encoder
    path, encoder = caller_graph_file(layout, config), None
    if path.exists():
        encoder = load_token_encoder(layout, config, model_folder(config), question_encoder.query_prompt, graph=path)
    if encoder is None:
        log.warning(
            "no %s graph for callers' inputs in this state (run `%s`): they are embedded as the question is",
            config.caller_runtime,
            INGEST_COMMAND,
        )
        return question_encoder
    return encoder


def encode_inputs(parts: EncodingParts, inputs: list[QueryInput]) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """(vector, token vectors) of every input, the question first; a hypothetical passage
    embedded as a passage has no token vectors (MaxSim never scores it)."""
    tokens = parts.tokens
    assert tokens  # late interaction is on
    found: list[tuple[np.ndarray, np.ndarray | None]] = [*tokens[1].queries([inputs[0].text])]
    if len(inputs) == 1:  # a bare search never opens the caller's graph
        return found
    callers = parts.caller_encoder
    assert callers is not None
    as_passages = {k: hypothetical_vector(parts, i.text) for k, i in enumerate(inputs) if i.kind == "hypothetical"}
    rest = [k for k in range(1, len(inputs)) if as_passages.get(k) is None]
    encoded = dict(zip(rest, callers.queries([inputs[k].text for k in rest])))
    for k in range(1, len(inputs)):
        vector = as_passages.get(k)
        found.append((vector, None) if vector is not None else encoded[k])
    return found


def hypothetical_vector(parts: EncodingParts, text: str) -> np.ndarray | None:
    """The vector a caller's hypothetical passage is searched with when the model embeds queries
    with an instruction: the passage's own, as the library's passages were embedded (an
    answer-shaped paragraph meets them passage to passage, the hypothetical-document technique).
    None for a model without a query instruction: its query vector is that one."""
    encoder: Any = parts.caller_encoder if parts.config.late_interaction and parts.tokens else parts.embedder
    # the full Embedder names it embed_passages, the ONNX encoders embed_texts
    embed = getattr(encoder, "embed_passages", None) or getattr(encoder, "embed_texts", None)
    if not getattr(encoder, "query_prompt", None) or embed is None:
        return None
    return np.asarray(embed([text])[0], dtype=np.float32)
