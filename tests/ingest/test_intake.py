"""What a batch reads: the files the user meant; every other path reported with its reason."""

from __future__ import annotations

import json
import os
from pathlib import Path

from corpus.state.layout import StateLayout, read_json
from ingest.sources.intake import DANGLING, OUTSIDE_INBOX, collect_inbox, collect_paths, register_batch
from ingest.sources.library import LIBRARY_ROOT

LECTURE = LIBRARY_ROOT / "markdown/quantopian_lecture07_variance.md"


def _odd_entries(folder: Path, outside: Path) -> None:
    """A folder named like a PDF, a dangling link, a FIFO and a link to a file outside `folder`."""
    (folder / "y.pdf").mkdir()
    (folder / "gone.md").symlink_to(folder / "nowhere.md")
    os.mkfifo(folder / "pipe.md")
    (folder / "x.md").symlink_to(outside)


def test_the_inbox_refuses_a_link_out_of_itself_and_reports_every_odd_entry(tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    _odd_entries(inbox, secret)
    (inbox / "good.md").write_bytes(LECTURE.read_bytes())
    (inbox / "alias.md").symlink_to(inbox / "good.md")  # a link inside the inbox may be read
    intake = collect_inbox(inbox)
    assert [p for p, _ in intake.files] == [(inbox / "good.md").resolve()]
    reasons = {Path(p).name: r for p, r in intake.skipped.items()}
    assert reasons == {
        "x.md": OUTSIDE_INBOX,
        "gone.md": DANGLING,
        "y.pdf": "a folder, not a regular file",
        "pipe.md": "a FIFO (named pipe), not a regular file",
    }


def test_the_cli_follows_a_link_it_is_given_and_records_the_resolved_path(tmp_path):
    real = tmp_path / "real" / "lecture.md"
    real.parent.mkdir()
    real.write_bytes(LECTURE.read_bytes())
    batch = tmp_path / "batch"
    batch.mkdir()
    _odd_entries(batch, real)
    intake = collect_paths([batch, tmp_path / "missing.pdf"])
    assert intake.files == [(real.resolve(), None)]
    assert intake.met[real.resolve()] == batch / "x.md"
    assert {Path(p).name: r for p, r in intake.skipped.items()} == {
        "gone.md": DANGLING,
        "pipe.md": "a FIFO (named pipe), not a regular file",
        "missing.pdf": "no such file",
    }
    layout = StateLayout(tmp_path / "state").ensure()
    [registration] = register_batch(layout, intake)
    assert registration.name == "x.md" and registration.new  # the name the user gave
    record = read_json(layout.registry_entry(registration.document_id))
    assert record["original_name"] == "x.md" and record["bytes"] == real.stat().st_size


def test_the_cli_reports_each_path_it_cannot_read_and_touches_no_state(tmp_path, monkeypatch, capsys):
    from orchestration.cli import ingest

    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "state"))
    (tmp_path / "y.pdf").mkdir()
    (tmp_path / "gone.md").symlink_to(tmp_path / "nowhere.md")
    os.mkfifo(tmp_path / "pipe.pdf")
    paths = [str(tmp_path / name) for name in ("y.pdf", "gone.md", "pipe.pdf")]
    assert ingest([*paths, "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["skipped"] == {
        str(tmp_path / "y.pdf"): "a folder with no file in it",
        str(tmp_path / "gone.md"): DANGLING,
        str(tmp_path / "pipe.pdf"): "a FIFO (named pipe), not a regular file",
    }
    assert f"skipped {tmp_path / 'pipe.pdf'}: a FIFO" in captured.err and "no file to ingest" in captured.err
    assert not (tmp_path / "state").exists()
