"""Session store: kinds, provenance, names, ids, LRU eviction."""

from __future__ import annotations

import pytest

from serving.sessions.store import DEFAULT_MAX_ITEMS, MAX_ITEMS_ENV, SessionError, SessionStore

DOC = "doc-0123456789abcdef"
CHUNK = "chunk-0123456789abcdef"


def test_each_kind_round_trips_with_its_provenance():
    store = SessionStore(8)
    scope = store.put(
        "scope.2010s",
        "scope",
        {"year_min": 2010, "year_max": 2019, "authors": [" Pav,  S. "], "document_ids": [DOC, DOC]},
        "user_pasted",
    )
    assert scope.value.authors == ["Pav, S."] and scope.value.document_ids == [DOC] and scope.size == 4
    evidence = store.put(
        "evidence_1",
        "evidence",
        [
            {"document_id": DOC, "quote": "a quoted sentence", "chunk_id": CHUNK},
            {"document_id": DOC, "quote": "another quoted one"},
        ],
        "session",
    )
    assert [i.chunk_id for i in evidence.value.items] == [CHUNK, None] and evidence.size == 2
    assert store.get("scope.2010s").provenance == "user_pasted"
    assert store.get("evidence_1", "evidence").provenance == "session"
    assert store.resolve({"session": "evidence_1"}, "evidence").value.items[1].quote == "another quoted one"
    with pytest.raises(SessionError, match="is a 'evidence', not a 'scope'"):
        store.resolve({"session": "evidence_1"}, "scope")
    with pytest.raises(SessionError, match="nothing else"):
        store.resolve({"session": "evidence_1", "extra": 1}, "evidence")


@pytest.mark.parametrize("provenance", ["recalled", "invented", "model", "", None, "SERVED"])
def test_unknown_provenance_is_refused(provenance):
    with pytest.raises(SessionError, match="provenance"):
        SessionStore(4).put("x", "scope", {"year_min": 2000}, provenance)


@pytest.mark.parametrize(
    "kind, value, message",
    [
        ("scope", {}, "at least one"),
        ("scope", {"year_min": 2015, "year_max": 2010}, "after year_max"),
        ("scope", {"year_min": 1800}, "year_min"),
        ("scope", {"year_min": 2000, "colour": "red"}, "colour"),
        ("scope", {"document_ids": ["doc-XYZ"]}, "malformed document_id"),
        ("scope", "2010", "must be an object"),
        ("evidence", [], "items"),
        ("evidence", [{"document_id": "../../etc", "quote": "q"}], "malformed document_id"),
        ("evidence", [{"document_id": DOC, "quote": "q", "chunk_id": "chunk-1"}], "malformed chunk_id"),
        ("evidence", [{"document_id": DOC}], "quote"),
        ("reading_list", [CHUNK], "unknown kind"),  # no tool would read one (serving/sessions/store.py)
        ("notes", ["x"], "unknown kind"),
    ],
)
def test_invalid_values_are_refused_with_a_clear_message(kind, value, message):
    with pytest.raises(SessionError, match=message):
        SessionStore(4).put("entry", kind, value, "served")


@pytest.mark.parametrize("name", ["", "a b", "x" * 65, "../etc", "naïve", None, "semi;colon"])
def test_bad_names_are_refused(name):
    store = SessionStore(4)
    with pytest.raises(SessionError, match="invalid session name"):
        store.put(name, "scope", {"year_min": 2000}, "served")
    with pytest.raises(SessionError, match="invalid session name"):
        store.get(name)


def test_least_recently_used_entry_is_evicted():
    store = SessionStore(3)
    for name in ("a", "b", "c"):
        store.put(name, "scope", {"year_min": 2000}, "served")
    store.get("a")  # a becomes the most recent; b is now the oldest
    store.put("d", "scope", {"year_min": 2000}, "served")
    assert store.evicted == ["b"]
    assert [e.name for e in store.list()] == ["d", "a", "c"]
    store.put("c", "scope", {"year_max": 2010}, "user_file")  # replacing refreshes c
    store.put("e", "scope", {"year_min": 2000}, "served")
    assert store.evicted == ["a"] and len(store) == 3
    with pytest.raises(SessionError, match="no session entry named 'b'"):
        store.get("b")
    assert store.delete("c") and not store.delete("c")
    assert [e.name for e in store.list()] == ["e", "d"]


def test_capacity_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(MAX_ITEMS_ENV, raising=False)
    assert SessionStore().max_items == DEFAULT_MAX_ITEMS
    monkeypatch.setenv(MAX_ITEMS_ENV, "2")
    store = SessionStore()
    for name in ("a", "b", "c"):
        store.put(name, "scope", {"year_min": 2000}, "served")
    assert [e.name for e in store.list()] == ["c", "b"]
    monkeypatch.setenv(MAX_ITEMS_ENV, "zero")
    with pytest.raises(SessionError, match=MAX_ITEMS_ENV):
        SessionStore()
