#!/usr/bin/env bash
# Creates .venv and installs the project: the CPU torch wheel first (a bare `torch` may pull CUDA).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q torch==2.13.0
.venv/bin/pip install -q -e '.[pipeline,test]'
