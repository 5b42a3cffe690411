"""The inbox sensor registers new files, requests one run over them and sets bad files aside."""

import os
import subprocess
import sys

import dagster as dg

from assets.partitions import range_tags
from corpus.state.layout import StateLayout, read_json
from ingest.sources.intake import DANGLING, OUTSIDE_INBOX
from ingest.sources.library import LIBRARY_ROOT
from orchestration.sensors import inbox_sensor
from tests.corpus.test_lock import HOLD


def test_inbox_sensor_adds_partitions_and_requests_one_run_over_them(tmp_path, monkeypatch):
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "state"))
    layout = StateLayout(tmp_path / "state").ensure()
    names = [f"quantopian_lecture{n}.md" for n in ("07_variance", "06_means", "40_var_and_cvar")]
    for name in names:
        (layout.inbox / name).write_bytes((LIBRARY_ROOT / "markdown" / name).read_bytes())
    (layout.inbox / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("documents", [f"doc-{n:016x}" for n in range(600)])  # a library before
        result = inbox_sensor(dg.build_sensor_context(instance=instance))
        registered = layout.registered_document_ids()
        assert len(registered) == len(names)
        [request] = result.run_requests  # one run (one model load, one refresh after it), not one per file
        [added] = result.dynamic_partitions_requests
        assert sorted(added.partition_keys) == registered
        assert request.partition_key is None and request.tags == range_tags(list(added.partition_keys))
        assert (layout.quarantine / "broken.pdf.reason.json").exists()
        assert list(layout.inbox.iterdir()) == []
        # The same file dropped again is known: no new partition, no new run.
        instance.add_dynamic_partitions("documents", list(added.partition_keys))
        good = LIBRARY_ROOT / "markdown" / names[0]
        (layout.inbox / good.name).write_bytes(good.read_bytes())
        again = inbox_sensor(dg.build_sensor_context(instance=instance))
        assert isinstance(again, dg.SkipReason) and "no new document" in again.skip_message


def test_inbox_sensor_refuses_links_out_and_sets_odd_entries_aside_with_reasons(tmp_path, monkeypatch):
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "state"))
    layout = StateLayout(tmp_path / "state").ensure()
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (layout.inbox / "x.md").symlink_to(secret)
    (layout.inbox / "gone.md").symlink_to(tmp_path / "nowhere.md")
    (layout.inbox / "y.pdf").mkdir()
    os.mkfifo(layout.inbox / "pipe.pdf")
    with dg.instance_for_test() as instance:
        result = inbox_sensor(dg.build_sensor_context(instance=instance))
    assert isinstance(result, dg.SkipReason) and layout.registered_document_ids() == []
    reasons = {
        p.name.removesuffix(".reason.json"): read_json(p)["reason"] for p in layout.quarantine.glob("*.reason.json")
    }
    assert reasons == {
        "x.md": OUTSIDE_INBOX,
        "gone.md": DANGLING,
        "y.pdf": "a folder, not a regular file",
        "pipe.pdf": "a FIFO (named pipe), not a regular file",
    }
    assert not (layout.quarantine / "x.md").exists()  # the link's target is never copied
    assert secret.read_text().startswith("root:")  # nor touched
    assert list(layout.inbox.iterdir()) == []  # reported once, not at every tick


def test_inbox_sensor_registers_under_the_writer_lock_and_journal(tmp_path, monkeypatch):
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "state"))
    layout = StateLayout(tmp_path / "state").ensure()
    good = LIBRARY_ROOT / "markdown/quantopian_lecture07_variance.md"
    (layout.inbox / good.name).write_bytes(good.read_bytes())
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(layout.lock_file)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with dg.instance_for_test() as instance:
            skipped = inbox_sensor(dg.build_sensor_context(instance=instance))
        assert isinstance(skipped, dg.SkipReason) and "another writer" in skipped.skip_message
        assert layout.registered_document_ids() == [] and (layout.inbox / good.name).exists()
    finally:
        holder.kill()
        holder.wait()
    with dg.instance_for_test() as instance:
        result = inbox_sensor(dg.build_sensor_context(instance=instance))
    [request] = result.run_requests
    assert request.tags == range_tags(layout.registered_document_ids())
    [intent] = (layout.journal / "done").glob("*.json")
    assert read_json(intent)["action"] == "ingest"
    assert read_json(intent)["detail"]["files"] == [str((layout.inbox / good.name).resolve())]
