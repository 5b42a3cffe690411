#!/usr/bin/env bash
# Sets up and runs the test suite (slow tests included; `-m long` runs the three long ones).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# Two workers (pytest-xdist), one test file each at a time: most tests wait on subprocesses, dbt or
# I/O, so two workers take little more than half the time of one process. The ingested slice is still built once
# (tests/shared_state.py). Tests that assert what a wall-clock-bounded search finds give it time
# (tests/serving/test_citation.py); `-n 0` runs everything in one process.
.venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=30 "$@"
