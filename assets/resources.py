"""Dagster resources the assets need: where the state lives and what configuration is served."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from corpus.config import ServedConfig
from corpus.state import StateLayout, state_home


class StateResource(dg.ConfigurableResource):
    """The corpus state directory (QUANT_RAG_HOME); empty `home` means the environment's."""

    home: str = ""

    @property
    def layout(self) -> StateLayout:
        return StateLayout(Path(self.home).resolve() if self.home else state_home()).ensure()

    @property
    def config(self) -> ServedConfig:
        return ServedConfig.from_env()
