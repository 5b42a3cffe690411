"""Every id the next call needs is in the text rendering, not only in the structured content.

Many clients show the model the text alone. Over the real stdio server (the SDK's client), each
tool's text is parsed for the ids its structured content holds — chunk ids, document ids, anchors
(document + canonical ranges), entity keys, what corpus_status names — and a text-only client
chains search → get_passage → expand_entity → connect_entities on ids read from text alone."""

from __future__ import annotations

import re

from mcp_stdio import run_calls

CHUNK = re.compile(r"chunk-[0-9a-f]{16}")
DOCUMENT = re.compile(r"doc-[0-9a-f]{16}")
KEY = re.compile(r"\[key=([^\]]+)\]")
ANCHOR = re.compile(r"anchor: document_id=(\S+) ranges=(\S+)")
ANCHOR_KEYS = {"document_id", "ranges", "granularity", "sha256"}


def _walk(node, found: dict[str, set]) -> dict[str, set]:
    """The ids a structured answer holds, by kind."""
    if isinstance(node, dict):
        if set(node) == ANCHOR_KEYS:
            found["anchor"].add((node["document_id"], ",".join(f"{a}-{b}" for a, b in node["ranges"])))
        if "key" in node and "name" in node and "type" in node:  # an entity of the graph
            found["key"].add(node["key"])
        for value in node.values():
            _walk(value, found)
    elif isinstance(node, list):
        for value in node:
            _walk(value, found)
    elif isinstance(node, str):
        if CHUNK.fullmatch(node):
            found["chunk"].add(node)
        if DOCUMENT.fullmatch(node):
            found["document"].add(node)
    return found


def structured_ids(content: dict) -> dict[str, set]:
    return _walk(content, {"chunk": set(), "document": set(), "anchor": set(), "key": set()})


def text_ids(text: str) -> dict[str, set]:
    return {
        "chunk": set(CHUNK.findall(text)),
        "document": set(DOCUMENT.findall(text)),
        "anchor": set(ANCHOR.findall(text)),
        "key": set(KEY.findall(text)),
    }


# A search hit's text is compact: its anchor (canonical ranges) stays in the structured content,
# since no call takes it; get_passage's text shows it.
TEXT_OMITS = {"search_documents": {"anchor"}}
CALLS = [  # (tool, arguments, the id kinds its answer must hold: the check is never vacuous)
    ("search_documents", {"query": "conditional value at risk", "limit": 5}, {"chunk", "document"}),
    ("list_documents", {}, {"document"}),
    ("timeline", {"query": "variance", "limit": 8}, {"chunk", "document"}),
    ("search_graph", {"query": "variance", "limit": 4}, {"chunk", "document", "anchor", "key"}),
    ("expand_entity", {"entity_name": "CVaR", "limit": 10}, {"chunk", "key"}),
    ("connect_entities", {"entity_a": "CVaR", "entity_b": "VaR", "limit": 5}, {"chunk", "document", "anchor", "key"}),
]


def test_each_tool_text_holds_every_id_of_its_structured_content(served_home):
    async def scenario(c):
        answers = {}
        for name, arguments, _ in CALLS:
            answers[name] = await c(name, arguments)
        first = answers["search_documents"].structured_content["results"][0]["chunk_id"]
        answers["get_passage"] = await c("get_passage", {"chunk_id": first, "neighbours": 2})
        answers["corpus_status"] = await c("corpus_status", {})
        return {n: (r.structured_content, r.content[0].text) for n, r in answers.items()}

    answers = run_calls(served_home, scenario, warm_up=False)
    expected = {name: kinds for name, _, kinds in CALLS} | {"get_passage": {"chunk", "document", "anchor"}}
    for name, kinds in expected.items():
        content, text = answers[name]
        held, shown = structured_ids(content), text_ids(text)
        for kind in kinds:
            assert held[kind], (name, kind)  # the call did return such ids
        for kind, ids in held.items():
            if kind in TEXT_OMITS.get(name, ()):
                continue
            assert ids <= shown[kind], (name, kind, sorted(ids - shown[kind]))
        assert content["trace"]["request_id"] in text, name
    passage, text = answers["get_passage"]
    assert passage["neighbours"] and all(n["passage"]["chunk_id"] in text for n in passage["neighbours"])
    status, text = answers["corpus_status"]
    for value in [
        status["corpus_signature"],
        status["config_hash"],
        status["embedding_model"],
        *(i["name"] for i in status["indexes"]),
        *(i["signature"] for i in status["indexes"] if i["signature"]),
    ]:
        assert value in text, value


def _line_value(text: str, pattern: str) -> str:
    match = re.search(pattern, text)
    assert match, (pattern, text[:500])
    return match.group(1)


def test_a_text_only_client_chains_search_passage_entity_and_connection(served_home):
    """Each call's arguments come from the previous answers' text; the structured content is
    read only to check that what the text said was the truth."""

    async def scenario(c):
        search = await c("search_documents", {"query": "conditional value at risk", "limit": 3})
        chunk_id = _line_value(search.content[0].text, r"chunk_id=(chunk-[0-9a-f]{16})")
        passage = await c("get_passage", {"chunk_id": chunk_id, "neighbours": 1})
        text = passage.content[0].text
        assert not passage.is_error and passage.structured_content["passage"]["chunk_id"] == chunk_id
        assert "CVaR" in text  # the entity the client expands is one the passage names
        expand = await c("expand_entity", {"entity_name": "CVaR"})
        text = expand.content[0].text
        entity = _line_value(text, r"entity: \S+ \[key=([^\]]+)\]")
        other = _line_value(text, r"\n- \w+:[^\[]+\[key=([^\]]+)\] \((?:[2-9]|\d\d+),")  # shared ≥ 2
        example = _line_value(text.split(f"[key={other}]", 1)[1], r"\[chunk_id=(chunk-[0-9a-f]{16})\]")
        connect = await c("connect_entities", {"entity_a": entity, "entity_b": other})
        text = connect.content[0].text
        document_id = _line_value(text, r"document_id=(doc-[0-9a-f]{16})")
        met = CHUNK.findall(text)
        read = await c("get_passage", {"chunk_id": met[0]})
        scoped = await c("search_documents", {"query": entity, "document_id": document_id, "limit": 2})
        return expand.structured_content, connect.structured_content, example, met, read, scoped, document_id

    expand, connect, example, met, read, scoped, document_id = run_calls(served_home, scenario, warm_up=False)
    shared = {c["key"]: {e["chunk_id"] for e in c["examples"]} for c in expand["co_mentions"]}
    assert any(example in chunks for chunks in shared.values())
    assert met and set(met) >= {r["chunk_id"] for r in connect["results"]}
    assert document_id in {d["document_id"] for d in connect["documents"]}
    assert not read.is_error and read.structured_content["passage"]["chunk_id"] == met[0]
    assert not scoped.is_error and {r["document_id"] for r in scoped.structured_content["results"]} == {document_id}
