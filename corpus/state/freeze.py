"""Signature freeze: a drift detector with a written reason and a history of every change."""

from __future__ import annotations

import datetime as dt

from corpus.state.layout import StateLayout, atomic_write_json, read_json


class FreezeError(RuntimeError):
    """A freeze operation that cannot be done as asked."""


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def freeze_state(layout: StateLayout) -> dict:
    """{active, signature, reason, since, history} (inactive with empty history if never frozen)."""
    if not layout.freeze_file.exists():
        return {"active": False, "signature": None, "reason": None, "since": None, "history": []}
    return read_json(layout.freeze_file)


def freeze(layout: StateLayout, signature: str, reason: str) -> dict:
    if not reason.strip():
        raise FreezeError("a freeze needs a written reason")
    state = freeze_state(layout)
    if state["active"]:
        raise FreezeError(f"already frozen at {state['signature']} since {state['since']}: unfreeze first")
    state.update(active=True, signature=signature, reason=reason, since=_now())
    state["history"].append({"action": "freeze", "signature": signature, "reason": reason, "at": state["since"]})
    atomic_write_json(layout.freeze_file, state)
    return state


def unfreeze(layout: StateLayout, reason: str) -> dict:
    if not reason.strip():
        raise FreezeError("an unfreeze needs a written reason")
    state = freeze_state(layout)
    if not state["active"]:
        raise FreezeError("the signature is not frozen")
    state["history"].append({"action": "unfreeze", "signature": state["signature"], "reason": reason, "at": _now()})
    state.update(active=False, reason=None, since=None)
    atomic_write_json(layout.freeze_file, state)
    return state
