#!/usr/bin/env bash
# The main job on the bundled library: set up, ingest → index → evaluate → answer a sample question.
# Each step prints one line per stage; Dagster's event log stays in Dagster (`quant-rag ingest --verbose`
# brings it to the terminal). The last lines say where the state is and the three commands to go on.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export QUANT_RAG_HOME=${QUANT_RAG_HOME:-$PWD/var} HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
.venv/bin/quant-rag ingest
.venv/bin/quant-rag eval --bench library --arms dense,bm25,hybrid,placebo
.venv/bin/quant-rag search "How is conditional value at risk estimated from historical returns?"
.venv/bin/quant-rag doctor
echo
.venv/bin/python -m orchestration.console
