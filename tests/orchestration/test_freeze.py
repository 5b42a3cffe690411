"""Signature freeze: reasons required, one active freeze, the history kept, the frozen-signature
check failing on drift only while frozen, and the CLI's exit codes."""

from __future__ import annotations

import json

import pytest

from assets.signature import frozen_check
from corpus.state.freeze import FreezeError, freeze, freeze_state, unfreeze
from corpus.state.layout import StateLayout
from ingest.publication.publish import frozen_refusal
from orchestration.cli import freeze_command, remove


def test_freeze_unfreeze_history_and_refusals(tmp_path):
    layout = StateLayout(tmp_path).ensure()
    assert freeze_state(layout) == {"active": False, "signature": None, "reason": None, "since": None, "history": []}
    with pytest.raises(FreezeError, match="reason"):
        freeze(layout, "sig-a", "  ")
    with pytest.raises(FreezeError, match="not frozen"):
        unfreeze(layout, "nothing to undo")
    state = freeze(layout, "sig-a", "paper submitted")
    assert state["active"] and state["signature"] == "sig-a" and state["since"]
    with pytest.raises(FreezeError, match="already frozen at sig-a"):
        freeze(layout, "sig-b", "again")
    with pytest.raises(FreezeError, match="reason"):
        unfreeze(layout, "")
    state = unfreeze(layout, "review done")
    assert not state["active"] and state["reason"] is None
    freeze(layout, "sig-c", "second study")
    history = freeze_state(layout)["history"]  # read back from disk
    assert [(h["action"], h["signature"], h["reason"]) for h in history] == [
        ("freeze", "sig-a", "paper submitted"),
        ("unfreeze", "sig-a", "review done"),
        ("freeze", "sig-c", "second study"),
    ]


def test_frozen_check_fails_on_drift_only_while_frozen(tmp_path):
    layout = StateLayout(tmp_path).ensure()
    assert frozen_check(layout, "sig-a").passed  # never frozen
    freeze(layout, "sig-a", "baseline")
    assert frozen_check(layout, "sig-a").passed
    drifted = frozen_check(layout, "sig-b")
    assert not drifted.passed
    assert drifted.metadata["frozen_signature"].value == "sig-a"
    assert drifted.metadata["live_signature"].value == "sig-b"
    assert drifted.metadata["reason"].value == "baseline"
    unfreeze(layout, "accepted the change")
    assert frozen_check(layout, "sig-b").passed


def test_a_freeze_pins_what_readers_are_served(tmp_path):
    layout = StateLayout(tmp_path).ensure()
    assert frozen_refusal(layout, "sig-b") is None  # never frozen: publish
    freeze(layout, "sig-a", "paper submitted")
    assert frozen_refusal(layout, "sig-a") is None  # the frozen state itself
    refusal = frozen_refusal(layout, "sig-b")  # a drift: readers keep sig-a
    assert "frozen at sig-a" in refusal and "paper submitted" in refusal and "unfreeze" in refusal
    unfreeze(layout, "accepted")
    assert frozen_refusal(layout, "sig-b") is None


def test_cli_freeze_and_remove_exit_codes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path))
    StateLayout(tmp_path).ensure()
    assert freeze_command(["--reason", "  "], "freeze") == 2
    assert freeze_command(["--reason", "baseline"], "freeze") == 0
    assert json.loads(capsys.readouterr().out)["active"] is True
    assert freeze_command(["--reason", "twice"], "freeze") == 2
    assert freeze_command(["--reason", "done"], "unfreeze") == 0
    capsys.readouterr()
    # remove of a well-formed id that was never registered: non-zero, nothing run
    assert remove(["doc-0123456789abcdef"]) == 1
    assert "not registered" in capsys.readouterr().err
    journal = StateLayout(tmp_path).journal
    assert not (journal.exists() and any(journal.iterdir()))  # no intent opened, no run launched
    assert remove(["doc-bad"]) == 2
