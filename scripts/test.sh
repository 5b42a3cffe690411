#!/usr/bin/env bash
# Sets up and runs the test suite (slow tests included; `-m long` runs the three long ones).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# One process. `-n 2 --dist loadfile` (pytest-xdist) is faster on a busy machine, and the ingested
# slice is then still built once (tests/shared_state.py), but the closest-passage search's 0.75 s
# wall-clock budget (serving/citation.py) can run out under two workers: test_citation failed once so.
.venv/bin/python -m pytest -q --durations=30 "$@"
