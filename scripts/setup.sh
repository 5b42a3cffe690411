#!/usr/bin/env bash
# Creates .venv and installs the project: the CPU torch wheel first (a bare `torch` may pull CUDA).
# The install is skipped when pyproject.toml and this script are what the last install used (the
# project is installed editable, so code changes need none): a second command starts at once.
# pip's own output (hundreds of lines on a machine whose pip configuration names absent indexes)
# goes to .venv/install.log; the terminal gets one line, and the log's end if the install fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Scanned PDFs are read by Tesseract (ingest/parsing/ocr.py): installed where it is missing and
# apt-get runs as root. Without it such files are set aside at ingest, so a failure only warns.
if ! command -v tesseract >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  APT_LOG=${TMPDIR:-/tmp}/quant-rag-apt.log
  echo "installing tesseract-ocr for scanned PDFs (apt-get's log: $APT_LOG)"
  apt_install() { DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q tesseract-ocr; }
  if ! { apt_install || { timeout 300 apt-get update -q && apt_install; }; } > "$APT_LOG" 2>&1; then
    echo "warning: tesseract-ocr not installed (see $APT_LOG): scanned PDFs will be set aside" >&2
  fi
fi
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
