#!/usr/bin/env bash
# Creates .venv and installs the project: the CPU torch wheel first (a bare `torch` may pull CUDA).
# The install is skipped when pyproject.toml and this script are what the last install used (the
# project is installed editable, so code changes need none): a second command starts at once.
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
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q torch==2.13.0
.venv/bin/pip install -q -e '.[pipeline,test]'
echo "$WANTED" > "$STAMP"
