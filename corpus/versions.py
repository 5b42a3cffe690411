"""Version strings: the one home of every version that enters a signature or a trace."""

PARSER_VERSION = "parse-v3"   # v3: blocks keep their page regions and formula flags; v2: control characters dropped
CHUNKER_VERSION = "chunk-v1"
CONTRACT_VERSION = "1.1.0"  # 1.1: corpus_status answers on a broken state (problem, rebuild; counts may be null)
SERVER_VERSION = "0.1.0"
