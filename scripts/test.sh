#!/usr/bin/env bash
# Sets up and runs the test suite (slow tests included; `-m long` runs the three long ones).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
.venv/bin/python -m pytest -q --durations=30 "$@"
