"""A missing PDF parser is a configuration error: the run fails and no good source is set aside."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from corpus.state.layout import StateLayout
from ingest.parsing import PDF_PARSER_SETTING
from orchestration.runner import ingest

PDF = Path(__file__).resolve().parents[2] / "library" / "pdf" / "pav_using_markowitzr.pdf"


def test_missing_parser_fails_the_run_and_quarantines_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(PDF_PARSER_SETTING, "mineru")
    monkeypatch.setitem(sys.modules, "docvortex", None)  # as if not installed
    layout = StateLayout(tmp_path / "state")
    with pytest.raises(Exception, match="configuration error") as failed:
        ingest(layout, [(PDF, None)])
    assert "docvortex" in str(failed.value)
    assert not (layout.quarantine.exists() and any(layout.quarantine.iterdir()))
    (document_id,) = layout.registered_document_ids()  # still registered: a fixed install resumes
    assert list(layout.sources.glob(f"{document_id}*"))
