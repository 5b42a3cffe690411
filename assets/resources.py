"""Dagster resources the assets need: where the state lives and what configuration is served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import PrivateAttr

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout, state_home
from corpus.state.lock import writer_lock
from corpus.state.profile import state_config

# A step launched by the daemon (sensor, schedule, UI) waits this long for another writer to finish.
STEP_LOCK_WAIT_SECONDS = 1800


class StateResource(dg.ConfigurableResource):
    """The corpus state directory (QUANT_RAG_HOME); empty `home` means the environment's.

    Every step that uses it holds the writer lock, so runs started by the sensor, the schedule,
    the UI or the CLI never write the state at the same time."""

    home: str = ""
    _lock: Any = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._lock = writer_lock(self.layout.lock_file, wait_seconds=STEP_LOCK_WAIT_SECONDS)
        self._lock.__enter__()

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._lock is not None:
            self._lock.__exit__(None, None, None)
            self._lock = None

    @property
    def layout(self) -> StateLayout:
        return StateLayout(Path(self.home).resolve() if self.home else state_home()).ensure()

    @property
    def config(self) -> ServedConfig:
        """The environment's configuration over the state's recorded ranking profile (a benchmark's
        state: its index settings are built as its evaluation and its server read them)."""
        return state_config(self.layout)
