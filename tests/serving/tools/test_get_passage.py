"""get_passage: a served passage with its neighbours, the passage window, offsets, bad ids."""

from __future__ import annotations

from mcp_stdio import assert_error, error_of, run_calls


def test_get_passage_over_stdio(served_home):
    async def scenario(c):
        hit = (
            await c("search_documents", {"query": "How is value at risk estimated from past returns?", "limit": 4})
        ).structured_content["results"][0]
        passage = (await c("get_passage", {"chunk_id": hit["chunk_id"], "neighbours": 1})).structured_content
        assert_error(await c("get_passage", {"chunk_id": "chunk-0000000000000000"}), "not_found", "chunk_id")
        assert_error(await c("get_passage", {"chunk_id": "../../etc/passwd"}), "invalid_argument", "chunk_id")
        return hit, passage

    hit, passage = run_calls(served_home, scenario)
    assert passage["passage"]["chunk_id"] == hit["chunk_id"]
    assert passage["neighbours"] and passage["trace"]["window"] == 15_000


def test_get_passage_neighbours_and_offset(context, invoke):
    reader = context.engine.parts.reader
    document_id, passages = next((d, ps) for d, ps in reader.by_document.items() if len(ps) > 4)
    middle = passages[2]
    out = invoke("get_passage", {"chunk_id": middle.chunk_id, "neighbours": 2}).structured_content
    assert [n["position"] for n in out["neighbours"]] == [-2, -1, 1, 2]
    assert [n["passage"]["chunk_id"] for n in out["neighbours"]] == [passages[i].chunk_id for i in (0, 1, 3, 4)]
    assert out["ordinal"] == 2 and out["document_passages"] == len(passages)
    space = middle.text.index(" ", len(middle.text) // 2)
    later = invoke("get_passage", {"chunk_id": middle.chunk_id, "offset": space, "neighbours": 0}).structured_content[
        "passage"
    ]
    assert middle.text[later["offset"] :].rstrip() == later["text"] and later["offset"] <= space
    past = invoke("get_passage", {"chunk_id": middle.chunk_id, "offset": len(middle.text) + 1})
    assert past.is_error and error_of(past)["fields"] == ["offset"]


def test_a_long_passage_is_read_in_windows_by_next_offset(context, invoke, monkeypatch):
    """The description's paging: `truncated`, `remaining_chars`, `next_offset` as the next
    `offset`, `continuation` spelling that call; the windows together are the passage. The window
    is shrunk (every fixture passage fits the real one)."""
    import serving.tools.get_passage as tool

    monkeypatch.setattr(tool, "PASSAGE_WINDOW", 300)
    passage = max(context.engine.parts.reader.passages.values(), key=lambda p: len(p.text))
    assert len(passage.text) > 700
    offset, windows = 0, []
    while True:
        served = invoke(
            "get_passage", {"chunk_id": passage.chunk_id, "offset": offset, "neighbours": 0}
        ).structured_content["passage"]
        assert served["offset"] == offset and len(served["text"]) <= 300
        assert passage.text[offset:].startswith(served["text"])
        windows.append(served)
        if not served["truncated"]:
            assert served["next_offset"] is None and served["remaining_chars"] == 0
            break
        offset = served["next_offset"]
        assert served["remaining_chars"] == len(passage.text) - offset
        assert served["continuation"] == f'get_passage(chunk_id="{passage.chunk_id}", offset={offset})'
    assert len(windows) >= 3
    assert "".join("".join(w["text"].split()) for w in windows) == "".join(passage.text.split())
