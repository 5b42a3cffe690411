"""The partition bookkeeping costs a bounded number of instance queries however many documents the
instance holds: one read of the key set, never a query per document (docs/measurements.md, "The R
vignettes of Debian": a query per document cost seconds at each ingest's start)."""

from __future__ import annotations

from collections import Counter

import dagster as dg
import pytest

from assets.partitions import (
    DOCUMENTS_PARTITIONS,
    add_document_partitions,
    consecutive_blocks,
    documents_partitions,
    drop_document_partitions,
    range_tags,
    retire_set_aside_partitions,
)
from corpus.state.layout import StateLayout

MANY = 600
QUERIES = ("get_dynamic_partitions", "has_dynamic_partition", "add_dynamic_partitions", "delete_dynamic_partition")


def _ids(start: int, count: int) -> list[str]:
    return [f"doc-{n:016x}" for n in range(start, start + count)]


@pytest.fixture()
def counted(monkeypatch):
    """A temporary instance holding MANY document partitions, and the count of its partition queries."""
    calls: Counter[str] = Counter()
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS, _ids(0, MANY))
        for name in QUERIES:
            real = getattr(instance, name)

            def counting(*args, _real=real, _name=name, **kwargs):
                calls[_name] += 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(instance, name, counting)
        yield instance, calls


def test_adding_partitions_reads_the_key_set_once(counted):
    instance, calls = counted
    wanted = _ids(MANY // 2, MANY)  # half already known, half new
    added = add_document_partitions(instance, wanted)
    assert added == _ids(MANY, MANY // 2)
    assert calls == Counter(get_dynamic_partitions=1, add_dynamic_partitions=1)
    keys = instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS)
    assert keys == _ids(0, MANY + MANY // 2)  # appended in the order asked


def test_adding_nothing_new_writes_nothing(counted):
    instance, calls = counted
    assert add_document_partitions(instance, _ids(0, MANY)) == []
    assert calls == Counter(get_dynamic_partitions=1)


def test_dropping_partitions_reads_the_key_set_once(counted):
    instance, calls = counted
    gone = _ids(MANY - 100, 200)  # 100 held, 100 never added
    drop_document_partitions(instance, gone)
    assert calls == Counter(get_dynamic_partitions=1, delete_dynamic_partition=100)
    assert instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS) == _ids(0, MANY - 100)


def test_retiring_with_nothing_set_aside_queries_nothing(counted, tmp_path):
    instance, calls = counted
    assert retire_set_aside_partitions(StateLayout(tmp_path / "state").ensure(), instance) == {}
    assert calls == Counter()


def test_a_range_of_new_keys_resolves_to_exactly_them(counted):
    """The inbox sensor's one run over the new documents: their keys follow the known ones, so the
    range from the first to the last is exactly them, however many partitions come before."""
    instance, _ = counted
    new = _ids(MANY, 3)
    add_document_partitions(instance, new)
    tags = range_tags(new)
    with dg.partition_loading_context(dynamic_partitions_store=instance):
        resolved = documents_partitions.get_partition_keys_in_range(
            dg.PartitionKeyRange(tags["dagster/asset_partition_range_start"], tags["dagster/asset_partition_range_end"])
        )
    assert list(resolved) == new


def test_consecutive_blocks_keep_the_key_order():
    keys = _ids(0, 10)
    assert consecutive_blocks(keys, [keys[7], keys[1], keys[2], keys[9]]) == [keys[1:3], [keys[7]], [keys[9]]]
    assert consecutive_blocks(keys, []) == []


def test_repair_queries_partitions_a_bounded_number_of_times(state_copy, monkeypatch):
    """A repair that drops MANY partitions (a remove intent) and restores the partitions of the
    registered documents makes no query per document from this project's code; Dagster's own
    queries per run do not depend on the number of documents either."""
    import sys
    from pathlib import Path

    from corpus.state.journal import open_intent, open_intents
    from orchestration.runner import instance_for, repair

    layout = StateLayout(state_copy)
    instance = instance_for(layout)
    registered = layout.registered_document_ids()
    ghosts = _ids(0, MANY)
    instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS, ghosts)
    for document_id in registered:  # their partitions lost: the repair must add them back
        instance.delete_dynamic_partition(DOCUMENTS_PARTITIONS, document_id)
    open_intent(layout, "remove", ghosts)
    ours: Counter[str] = Counter()
    repo = str(Path(__file__).resolve().parents[2])
    for name in QUERIES:
        real = getattr(instance, name)

        def counting(*args, _real=real, _name=name, **kwargs):
            caller = sys._getframe(1).f_code.co_filename
            if caller.startswith(repo) and "site-packages" not in caller:
                ours[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(instance, name, counting)
    assert repair(layout, instance) == 1
    assert open_intents(layout) == []
    assert instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS) == registered
    assert ours["has_dynamic_partition"] == 0
    assert ours["delete_dynamic_partition"] == MANY  # Dagster deletes one key at a time
    assert ours["get_dynamic_partitions"] + ours["add_dynamic_partitions"] <= 8
