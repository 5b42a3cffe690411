"""Version strings: the one home of every version that enters a signature or a trace."""

# Bump on any change to what a parse yields: it enters the signature, so every document is re-parsed
# (the history of each version: CHANGELOG.md).
PARSER_VERSION = "parse-v7"
CHUNKER_VERSION = "chunk-v2"  # v2: a caption travels with its table or figure (ingest.passages.chunker)
PASSAGE_ROLES_VERSION = "roles-v1"  # ingest.passages.passage_roles; outside chunk ids: a role never moves a passage
# Semantic version of the output contract: major on a change a client must handle (CHANGELOG.md).
CONTRACT_VERSION = "2.1.0"
SERVER_VERSION = "0.1.0"
# The int8 passage graph's recipe: in its file name (corpus.encoding.onnx_encoder) and in the key of int8
# passage vectors (ServedConfig.model_key). Change it whenever corpus.encoding.onnx_int8.quantise changes.
INT8_RECIPE = "int8-fused-ffnout-float-v1"
