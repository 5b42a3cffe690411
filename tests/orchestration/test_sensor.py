"""The inbox sensor registers new files, requests their runs and sets bad files aside."""

import dagster as dg

from ingest.library import LIBRARY_ROOT
from corpus.state import StateLayout
from orchestration.sensors import inbox_sensor


def test_inbox_sensor_adds_partitions_and_requests_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "state"))
    layout = StateLayout(tmp_path / "state").ensure()
    good = LIBRARY_ROOT / "markdown/quantopian_lecture07_variance.md"
    (layout.inbox / good.name).write_bytes(good.read_bytes())
    (layout.inbox / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    with dg.instance_for_test() as instance:
        result = inbox_sensor(dg.build_sensor_context(instance=instance))
        registered = layout.registered_document_ids()
        assert len(registered) == 1
        assert [r.partition_key for r in result.run_requests] == registered
        assert result.dynamic_partitions_requests[0].partition_keys == registered
        assert (layout.quarantine / "broken.pdf.reason.json").exists()
        assert list(layout.inbox.iterdir()) == []
        # The same file dropped again is known: no new partition, no new run.
        instance.add_dynamic_partitions("documents", registered)
        (layout.inbox / good.name).write_bytes(good.read_bytes())
        again = inbox_sensor(dg.build_sensor_context(instance=instance))
        assert again.run_requests == [] and not again.dynamic_partitions_requests
