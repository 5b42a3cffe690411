#!/usr/bin/env bash
# Lint, format and type checks (configured in pyproject.toml); CI runs them before the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
