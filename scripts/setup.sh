#!/usr/bin/env bash
# Creates .venv and installs the project: the CPU torch wheel first (a bare `torch` may pull CUDA).
# The install is skipped when pyproject.toml and this script are what the last install used (the
# project is installed editable, so code changes need none): a second command starts at once.
# pip's own output (hundreds of lines on a machine whose pip configuration names absent indexes)
# goes to .venv/install.log; the terminal gets one line, and the log's end if the install fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
STAMP=.venv/.quant-rag-installed
WANTED=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" = "$WANTED" ]; then
  exit 0
fi
LOG=.venv/install.log
echo "setting up .venv: torch 2.13.0 (CPU wheel), then quant-rag with its extras (a few minutes the first time; pip's log: $LOG)"
started=$SECONDS
if ! {
  .venv/bin/pip install -q --upgrade pip &&
  .venv/bin/pip install -q torch==2.13.0 &&
  .venv/bin/pip install -q -e '.[pipeline,test]'
} > "$LOG" 2>&1; then
  tail -n 30 "$LOG" >&2
  echo "setup failed (the whole pip log: $LOG)" >&2
  exit 1
fi
echo "installed in $((SECONDS - started)) s"
echo "$WANTED" > "$STAMP"
