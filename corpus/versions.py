"""Version strings: the one home of every version that enters a signature or a trace."""

# v4: wrong glyph maps restored, page-broken words rejoined; v3: page regions, formula flags
PARSER_VERSION = "parse-v4"
CHUNKER_VERSION = "chunk-v1"
PASSAGE_ROLES_VERSION = "roles-v1"  # ingest.passage_roles; outside chunk ids: a role never moves a passage
# 2.0: error results carry no structured content; searched_text lists the fused inputs; closest.document_offsets
CONTRACT_VERSION = "2.0.0"
SERVER_VERSION = "0.1.0"
# The int8 passage graph's recipe: in its file name (corpus.encoding.onnx_encoder) and in the key of int8
# passage vectors (ServedConfig.model_key). Change it whenever corpus.encoding.onnx_int8.quantise changes.
INT8_RECIPE = "int8-fused-ffnout-float-v1"
