#!/usr/bin/env bash
# The main job on the bundled library: set up, ingest → index → evaluate → answer a sample question.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export QUANT_RAG_HOME=${QUANT_RAG_HOME:-$PWD/var} HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
.venv/bin/quant-rag ingest
.venv/bin/quant-rag eval --bench library --arms dense,bm25,hybrid,placebo
.venv/bin/quant-rag search "How is conditional value at risk estimated from historical returns?"
.venv/bin/quant-rag doctor
