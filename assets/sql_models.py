"""The catalogue's dbt project (dbt_like_sql/) as Dagster assets, through dagster-dbt.

Each dbt model is an asset `sql/<model>` downstream of `catalogue` (every dbt source is that asset:
it loads the raw tables); each dbt data test is an asset check on its model. dbt runs offline (the
project has no packages) and writes its target/ and logs under the state (`StateLayout.dbt_target`),
so nothing lands in the repository.

`@dbt_assets` needs the project's manifest when the definitions load. It depends only on the project
files, so it is parsed once per content hash into a cache folder outside the repository.
No `from __future__ import annotations` here: Dagster rejects string annotations on `context`.
"""

import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, redirect_stdout
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DagsterDbtTranslatorSettings, DbtCliResource, dbt_assets
from packaging import version

from assets.resources import StateResource

PROJECT_DIR = Path(__file__).resolve().parent.parent / "dbt_like_sql"
# The profile reads the catalogue's path from here; its one home is StateLayout.catalogue.
CATALOGUE_ENV = "CATALOGUE_DUCKDB_PATH"
KEY_PREFIX = "sql"
# dbt sends usage statistics by default: this project runs offline.
DBT_ENV = {"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_PARTIAL_PARSE": "true"}


def dbt_executable() -> str:
    """The dbt beside this interpreter: tests and scripts run the venv's python without activating it."""
    beside = Path(sys.executable).parent / "dbt"
    return str(beside) if beside.exists() else (shutil.which("dbt") or "dbt")


def _project_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in PROJECT_DIR.rglob("*") if p.is_file() and p.suffix in (".sql", ".yml")):
        digest.update(path.relative_to(PROJECT_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    digest.update(metadata.version("dbt-core").encode() + metadata.version("dbt-duckdb").encode())
    return digest.hexdigest()[:16]


def manifest_path() -> Path:
    """The parsed manifest of dbt_like_sql/, made by `dbt parse` the first time this content is seen."""
    cache = Path(os.environ.get("QUANT_RAG_DBT_CACHE") or Path(tempfile.gettempdir()) / "quant-rag-dbt")
    target = cache / _project_hash()
    manifest = target / "manifest.json"
    if manifest.exists():
        return manifest
    cache.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="parse-", dir=cache))
    parsed = subprocess.run(
        [
            dbt_executable(),
            "parse",
            "--quiet",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target-path",
            str(scratch),
            "--log-path",
            str(scratch),
        ],
        env={**os.environ, **DBT_ENV, CATALOGUE_ENV: str(scratch / "catalogue.duckdb")},  # never opened
        capture_output=True,
        text=True,
    )
    if parsed.returncode != 0:
        raise RuntimeError(f"dbt parse of {PROJECT_DIR} failed: {(parsed.stdout + parsed.stderr)[-2000:]}")
    try:
        scratch.rename(target)  # atomic: a concurrent parse of the same content simply loses the race
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
    return manifest


class CatalogueTranslator(DagsterDbtTranslator):
    """Models become `sql/<name>` in the corpus group; every source is the `catalogue` asset."""

    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
        if dbt_resource_props["resource_type"] == "source":
            return dg.AssetKey("catalogue")
        return dg.AssetKey([KEY_PREFIX, dbt_resource_props["name"]])

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        return "corpus"


TRANSLATOR = CatalogueTranslator(settings=DagsterDbtTranslatorSettings(enable_duplicate_source_asset_keys=True))


@cache
def _dbt_version(executable: str) -> version.Version:
    """The version of `executable`: the installed dbt-core's when it is the one beside this
    interpreter (as dbt_executable() prefers), else asked once per process."""
    if Path(executable).parent == Path(sys.executable).parent:
        return version.parse(metadata.version("dbt-core"))
    output = subprocess.run([executable, "--version"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"(\d+\.\d+\.\d+)", output)
    if found is None:
        raise RuntimeError(f"{executable} --version printed no version: {output!r}")
    return version.parse(found.group(1))


class CatalogueDbt(DbtCliResource):
    """DbtCliResource without two costs of every run (the resource is made anew per run): it asked
    the dbt executable its version in a subprocess (a large share of the catalogue step) and opened
    an in-process dbt adapter, which serves only row counts and column metadata, never fetched
    here (docs/measurements.md, *Ingestion*). dagster-dbt skips that metadata when the adapter is None."""

    @property
    def _cli_version(self) -> version.Version:
        return _dbt_version(self.dbt_executable)

    def _initialize_dbt_core_adapter(self, args):
        return None


def dbt_resource() -> DbtCliResource:
    return CatalogueDbt(project_dir=str(PROJECT_DIR), profiles_dir=str(PROJECT_DIR), dbt_executable=dbt_executable())


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """dagster-dbt hands dbt a copy of os.environ when the subprocess starts: set, start, restore."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


class _LogLines(io.TextIOBase):
    """A text sink that sends each line to the run's event log at DEBUG level."""

    def __init__(self, log) -> None:
        self._log, self._pending = log, ""

    def write(self, text: str) -> int:
        *lines, self._pending = (self._pending + text).split("\n")
        for line in filter(None, lines):
            self._log.debug(line)
        return len(text)


def _quietly(events: Iterable, sink: io.TextIOBase) -> Iterator:
    """dagster-dbt echoes every dbt event on stdout: in process that is the user's terminal. Each step
    of the stream writes into `sink` instead (the run's event log, where `--verbose` and the UI show it)."""
    iterator = iter(events)
    while True:
        with redirect_stdout(sink):
            event = next(iterator, _END)
        if event is _END:
            return
        yield event


_END = object()


@dbt_assets(manifest=manifest_path(), dagster_dbt_translator=TRANSLATOR, name="catalogue_models")
def catalogue_models(context: dg.AssetExecutionContext, dbt: DbtCliResource, state: StateResource):
    """`dbt build` of the selected models and their tests on the state's catalogue."""
    layout = state.layout
    with _environment({CATALOGUE_ENV: str(layout.catalogue), **DBT_ENV}):
        invocation = dbt.cli(["build"], context=context, target_path=layout.dbt_target)
    yield from _quietly(invocation.stream(), _LogLines(context.log))
