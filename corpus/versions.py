"""Version strings: the one home of every version that enters a signature or a trace."""

PARSER_VERSION = "parse-v3"   # v3: wrongly mapped glyphs restored, page-broken words rejoined (ingest.parsing.glyph_repair)
CHUNKER_VERSION = "chunk-v1"
CONTRACT_VERSION = "1.1.0"  # 1.1: corpus_status answers on a broken state (problem, rebuild; counts may be null)
SERVER_VERSION = "0.1.0"
