"""A client that reads only the text rendering can chain calls: every id the structured content of
the verify and session tools holds (document_id, chunk_id, the closest window's chunk_id and
offset, session names and kinds) appears in the text, read back by parsing it."""

from __future__ import annotations

import re

ID_RE = re.compile(r"\b(?:doc|chunk)-[0-9a-f]{16}\b")
NAMED = {"name", "kind", "session", "evidence_session", "continues_in"}  # ids that are not doc-/chunk- shaped


def structured_ids(content) -> set[str]:
    """Every doc-/chunk- id anywhere in the structured content (trace aside), and the values of
    the keys in NAMED."""
    found: set[str] = set()

    def walk(value, key=None):
        if isinstance(value, dict):
            for k, v in value.items():
                if k != "trace":
                    walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str):
            found.update(ID_RE.findall(value))
            if key in NAMED:
                found.add(value)

    walk(content)
    return found


def closest_calls(text: str) -> set[tuple[str, int]]:
    return {(c, int(o)) for c, o in re.findall(r'get_passage\(chunk_id="(chunk-[0-9a-f]{16})", offset=(\d+)\)', text)}


def check(answer) -> str:
    assert not answer.is_error, answer.content[0].text
    text, content = answer.content[0].text, answer.structured_content
    words = set(re.findall(r"[\w.-]+", text))
    missing = {i for i in structured_ids(content) if i not in words}
    assert not missing, (missing, text)
    closest = [r["closest"] for r in content.get("results", [content]) if r.get("closest")]
    assert {(c["chunk_id"], c["offset"]) for c in closest} <= closest_calls(text), text
    return text


def test_verify_tools_render_every_id(context, invoke):
    reader = context.engine.parts.reader
    doc = max(reader.documents, key=lambda d: len(reader.canonical_text(d)))
    passages = reader.by_document[doc]
    first, late = passages[0], passages[-1]
    words = late.text.split()[10:24]
    miss = " ".join(words[:6] + ["zqxjv"] + words[7:])
    stitched = " ".join(first.text.split()[:6]) + " … " + " ".join(words)
    cases = [
        {"document_id": doc, "quote": " ".join(words)},
        {"document_id": doc, "quote": miss},
        {"document_id": doc, "quote": stitched},
        {"document_id": doc, "quote": miss, "chunk_id": late.chunk_id},
    ]
    outs = [invoke("verify_citation", case) for case in cases]
    assert [o.structured_content["status"] for o in outs] == ["verified", "not_found", "not_found", "not_found"]
    assert outs[1].structured_content["closest"] and outs[2].structured_content["reason_code"] == "stitched"
    texts = [check(o) for o in outs]
    assert "stitched" in texts[2]
    batch = invoke("verify_citations", {"citations": cases})
    assert len(closest_calls(check(batch))) >= 1
    invoke("session_put", {"name": "ev-render", "kind": "evidence", "provenance": "served", "value": {"items": cases}})
    check(invoke("verify_citations", {"evidence": {"session": "ev-render"}}))


def test_session_tools_render_every_name_kind_and_id(context, invoke):
    reader = context.engine.parts.reader
    chunk = next(iter(reader.passages.values()))
    item = {"document_id": chunk.document_id, "quote": chunk.text[:40].strip(), "chunk_id": chunk.chunk_id}
    put = invoke(
        "session_put",
        {"name": "ev.render-2", "kind": "evidence", "provenance": "user_pasted", "value": {"items": [item]}},
    )
    assert "ev.render-2" in check(put)
    scope = invoke(
        "session_put",
        {
            "name": "scope_render",
            "kind": "scope",
            "provenance": "derived_from_question",
            "value": {"year_max": 2011, "document_ids": sorted(reader.documents)},
        },
    )
    check(scope)
    got = check(invoke("session_get", {"name": "scope_render"}))
    assert all(d in got for d in reader.documents)
    assert chunk.chunk_id in check(invoke("session_get", {"name": "ev.render-2"}))
    listing = check(invoke("session_list", {}))
    assert "scope_render" in listing and "derived_from_question" in listing
    assert "ev.render-2" in check(invoke("session_delete", {"name": "ev.render-2"}))
