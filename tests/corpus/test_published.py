"""Published generations on a hand-made working state (no model, no pipeline): one atomic switch,
hard links that keep the published bytes when the writer rewrites a file, leases that keep a
generation until its last reader leaves, and leftovers of a killed publish cleaned up."""

from __future__ import annotations

import os

from corpus.reading.published import open_published, prune, publish
from corpus.state.generations import point_at, pointed_generation
from corpus.state.layout import StateLayout, atomic_write_json, atomic_write_text, read_json

DOC = "doc-" + "1" * 16


def _working_state(root) -> StateLayout:
    layout = StateLayout(root).ensure()
    atomic_write_json(layout.registry_entry(DOC), {"document_id": DOC})
    atomic_write_text(layout.passages(DOC), '{"text": "first"}\n')
    atomic_write_text(layout.canonical_text(DOC), "first")
    atomic_write_json(layout.titles_file, {DOC: "A title"})
    atomic_write_json(layout.signature_file, {"signature": "sig-one"})
    atomic_write_json(layout.bm25 / "sig-one" / "manifest.json", {"signature": "sig-one"})
    collection = layout.vectors / "edge" / "passages-test"
    atomic_write_json(collection / "g2" / "meta.json", {"signature": "sig-zero"})  # superseded
    atomic_write_json(collection / "g3" / "meta.json", {"signature": "sig-one"})
    point_at(collection, collection / "g3")
    return layout


def test_publish_switches_once_and_keeps_the_published_bytes(tmp_path):
    work = _working_state(tmp_path)
    assert open_published(work).generation is None  # never published: read in place
    first = publish(work, "sig-one")
    view = open_published(work)
    served = view.layout
    assert view.generation == first.name == pointed_generation(work.published).name
    assert view.manifest["signature"] == "sig-one" and served.root == work.root
    assert served.passages(DOC).stat().st_ino == work.passages(DOC).stat().st_ino  # a link, not a copy
    assert read_json(served.signature_file) == {"signature": "sig-one"}
    assert (served.bm25 / "sig-one" / "manifest.json").exists()
    edge = served.vectors / "edge" / "passages-test"
    assert read_json(edge / "g3" / "meta.json") == {"signature": "sig-one"}
    assert pointed_generation(edge) == edge / "g3" and not (edge / "g2").exists()
    writer_edge = work.vectors / "edge" / "passages-test"  # readers open published folders only:
    assert sorted(p.name for p in writer_edge.iterdir()) == ["CURRENT", "g3"]  # superseded one gone
    assert served.onnx_model("m") == work.onnx_model("m")  # not served: stays under root
    # The writer moves on: atomic rewrites make new inodes, the published generation is untouched.
    atomic_write_text(work.passages(DOC), '{"text": "second"}\n')
    atomic_write_json(work.signature_file, {"signature": "sig-two"})
    assert served.passages(DOC).read_text() == '{"text": "first"}\n'
    assert read_json(served.signature_file) == {"signature": "sig-one"}
    second = publish(work, "sig-two")
    assert (work.published / first.name).exists()  # `view` still holds it
    latest = open_published(work)
    assert latest.generation == second.name
    assert latest.layout.passages(DOC).read_text() == '{"text": "second"}\n'
    latest.close()
    view.close()
    assert prune(work) == [first.name]
    assert sorted(p.name for p in work.published.iterdir()) == ["CURRENT", second.name]


def test_a_killed_publish_leaves_nothing_a_reader_can_open(tmp_path):
    work = _working_state(tmp_path)
    current = publish(work, "sig-one")
    staging = work.published / ".g9.staging"  # killed while snapshotting
    staging.mkdir()
    orphan = work.published / "g7"  # killed after the rename, before the switch
    orphan.mkdir()
    deleting = work.published / ".g2.deleting"  # killed while deleting
    deleting.mkdir()
    probe = open_published(work)
    assert probe.generation == current.name
    probe.close()
    newest = publish(work, "sig-one")
    assert newest.name == "g8"  # numbered after every generation seen, the orphan included
    left = sorted(p.name for p in work.published.iterdir())
    assert left == ["CURRENT", "g8"], left
    assert not os.path.exists(staging) and not os.path.exists(deleting)
