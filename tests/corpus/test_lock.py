"""The writer lock: exclusive across processes, re-entrant within one, released by a killed holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from corpus.state.lock import WriterBusyError, writer_lock

HOLD = (
    "import sys, time; from pathlib import Path; from corpus.state.lock import writer_lock\n"
    "with writer_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(60)\n"
)


def _holder(path):
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_second_process_is_refused_until_the_holder_is_killed(tmp_path):
    path = tmp_path / "writer.lock"
    process = _holder(path)
    try:
        with pytest.raises(WriterBusyError, match=str(process.pid)):
            with writer_lock(path):
                pass
        started = time.monotonic()
        with pytest.raises(WriterBusyError):
            with writer_lock(path, wait_seconds=0.5):
                pass
        assert time.monotonic() - started >= 0.5
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    with writer_lock(path):  # a dead holder never blocks the next writer
        pass


TRY = (
    "import sys; from pathlib import Path; from corpus.state.lock import WriterBusyError, writer_lock\n"
    "try:\n    with writer_lock(Path(sys.argv[1])):\n        print('acquired')\n"
    "except WriterBusyError:\n    print('busy')\n"
)


def test_the_lock_is_reentrant_within_a_process(tmp_path):
    path = tmp_path / "writer.lock"
    with writer_lock(path):
        with writer_lock(path):
            pass
        other = subprocess.run([sys.executable, "-c", TRY, str(path)], capture_output=True, text=True, timeout=30)
        assert other.stdout.strip() == "busy"  # the outer block still holds it for other processes
    other = subprocess.run([sys.executable, "-c", TRY, str(path)], capture_output=True, text=True, timeout=30)
    assert other.stdout.strip() == "acquired"
