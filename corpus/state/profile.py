"""The ranking profile a state was built for, recorded in the state so that serving it applies it.

A benchmark's ingest records its corpus's profile (corpus.profiles) before its steps run: every
step, and every server later started on that state, reads it, so the indexes are built and
searched with the same settings. QUANT_RAG_PROFILE still wins (ServedConfig.from_env).
"""

from __future__ import annotations

from corpus.config import ServedConfig
from corpus.profiles import profile_overrides
from corpus.state.layout import StateLayout, atomic_write_json, read_json


def record_profile(layout: StateLayout, name: str) -> None:
    """Record profile `name` for the state ("" removes the record); an unknown name is refused."""
    profile_overrides(name)
    if name:
        atomic_write_json(layout.profile_file, {"profile": name})
    else:
        layout.profile_file.unlink(missing_ok=True)


def recorded_profile(layout: StateLayout) -> str:
    """The profile recorded for the state, "" when none is."""
    if not layout.profile_file.exists():
        return ""
    return str(read_json(layout.profile_file)["profile"])


def state_config(layout: StateLayout) -> ServedConfig:
    """What the state is served with: the environment's configuration over its recorded profile."""
    return ServedConfig.from_env(recorded_profile(layout))
