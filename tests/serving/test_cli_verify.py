"""`quant-rag verify`: exit 0 for a quote the document holds, 1 for one it does not (scripts gate
on it), 2 for an argument the tool refuses; `--json` prints the structured result."""

from __future__ import annotations

import json

from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from serving.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, verify


def test_verify_exits_by_what_it_found(served_home, monkeypatch, capsys):
    monkeypatch.setenv("QUANT_RAG_HOME", str(served_home))
    reader = CorpusReader.open(StateLayout(served_home))
    passage = next(p for p in reader.passages.values() if p.role == "body" and len(p.text) > 200)
    quote = " ".join(passage.text.split()[:12])
    capsys.readouterr()
    assert verify([passage.document_id, quote, "--json"]) == EXIT_OK
    found = json.loads(capsys.readouterr().out)
    assert found["status"] in ("verified", "verified_normalised") and found["document_id"] == passage.document_id
    assert verify([passage.document_id, "a sentence no document in this library ever wrote, zyzzyva"]) == EXIT_FAILED
    assert "not_found" in capsys.readouterr().out
    assert verify(["doc-not-a-real-id", quote]) == EXIT_USAGE
