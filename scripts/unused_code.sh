#!/usr/bin/env bash
# What the code in ingest/ and serving/ holds that neither the test suite nor the main job runs:
# the suite and the main job's steps (on a fresh temporary state) under coverage, then one report.
# Extra arguments go to pytest (e.g. `-m ""` to include the long tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false COVERAGE_RCFILE=$PWD/pyproject.toml
coverage=(.venv/bin/python -m coverage)
rm -rf .coverage-data && mkdir .coverage-data
"${coverage[@]}" run -m pytest -q -n 2 --dist loadfile -p no:cacheprovider "$@" || echo "the suite failed: the report still follows"
home=$(mktemp -d)
main_job() { QUANT_RAG_HOME=$home "${coverage[@]}" run -m cli.main "$@" > /dev/null; }
main_job ingest
main_job eval --bench library --arms dense,bm25,hybrid,placebo
main_job search "How is conditional value at risk estimated from historical returns?"
main_job doctor
rm -rf "$home"
"${coverage[@]}" combine -q
"${coverage[@]}" report --include='ingest/*,serving/*' | tee .coverage-data/unused.txt | tail -n 40
