"""A replay of wrong calls an agent makes, over the SDK's stdio client against the real server.

Each answer must name what was wrong (the argument, in `fields` and in the text a text-only
client shows) and the next valid call (the tool to call, and what a valid value looks like).
`$DOC` and `$CHUNK` stand for a served document id and chunk id, read from the server first.
"""

from __future__ import annotations

from mcp_stdio import error_of, error_text, run_calls

UNKNOWN_DOC, UNKNOWN_CHUNK = "doc-0000000000000000", "chunk-0000000000000000"
QUOTE = "a quote long enough to check"
CHUNK_SOURCES = ("search_documents", "timeline")

# (kind, tool, arguments, argument at fault, next call: groups of words, each group must have
# one word in the answer)
CASES = [
    ("malformed id", "get_passage", {"chunk_id": "chunk-12"}, "chunk_id", [CHUNK_SOURCES]),
    ("malformed id", "get_passage", {"chunk_id": "../../etc/passwd"}, "chunk_id", [CHUNK_SOURCES]),
    (
        "malformed id",
        "verify_citation",
        {"document_id": "doc-XYZ", "quote": QUOTE},
        "document_id",
        [("list_documents",)],
    ),
    (
        "malformed id",
        "search_documents",
        {"query": "var", "document_id": "12345"},
        "document_id",
        [("list_documents",)],
    ),
    ("malformed id", "timeline", {"query": "var", "document_id": "doc-"}, "document_id", [("list_documents",)]),
    (
        "malformed id",
        "verify_citations",
        {"citations": [{"document_id": "nope", "quote": QUOTE}]},
        "citations.0.document_id",
        [("list_documents",)],
    ),
    ("unknown id", "get_passage", {"chunk_id": UNKNOWN_CHUNK}, "chunk_id", [CHUNK_SOURCES]),
    (
        "unknown id",
        "verify_citation",
        {"document_id": UNKNOWN_DOC, "quote": QUOTE},
        "document_id",
        [("list_documents",)],
    ),
    (
        "unknown id",
        "search_documents",
        {"query": "var", "document_id": UNKNOWN_DOC},
        "document_id",
        [("list_documents",)],
    ),
    ("unknown id", "timeline", {"query": "var", "document_id": UNKNOWN_DOC}, "document_id", [("list_documents",)]),
    (
        "unknown id",
        "verify_citations",
        {"citations": [{"document_id": "$DOC", "chunk_id": UNKNOWN_CHUNK, "quote": QUOTE}]},
        "citations.0.chunk_id",
        [CHUNK_SOURCES],
    ),
    ("unknown id", "session_get", {"name": "nothing-here"}, "name", [("session_list",)]),
    (
        "unknown id",
        "search_documents",
        {"query": "var", "scope": {"session": "nothing-here"}},
        "scope",
        [("session_list",)],
    ),
    ("unknown id", "verify_citations", {"evidence": {"session": "nothing-here"}}, "evidence", [("session_list",)]),
    (
        "swapped",
        "get_passage",
        {"chunk_id": "$DOC"},
        "chunk_id",
        [("document id", "document_id"), ("search_documents",)],
    ),
    (
        "swapped",
        "verify_citation",
        {"document_id": "$CHUNK", "quote": QUOTE},
        "document_id",
        [("chunk id", "chunk_id"), ("get_passage",)],
    ),
    (
        "swapped",
        "search_documents",
        {"query": "var", "document_id": "$CHUNK"},
        "document_id",
        [("chunk id", "chunk_id"), ("get_passage",)],
    ),
    (
        "swapped",
        "verify_citation",
        {"document_id": "$DOC", "quote": QUOTE, "chunk_id": "$DOC"},
        "chunk_id",
        [("document id", "document_id"), ("search_documents",)],
    ),
    ("wrong type", "search_documents", {"query": 42}, "query", [("search_documents",), ("string",)]),
    ("wrong type", "search_documents", {"query": "var", "limit": "5"}, "limit", [("search_documents",), ("integer",)]),
    ("wrong type", "get_passage", {"chunk_id": "$CHUNK", "offset": "10"}, "offset", [("get_passage",), ("integer",)]),
    ("wrong type", "list_documents", {"year_min": "2015"}, "year_min", [("list_documents",), ("integer",)]),
    ("wrong type", "search_graph", {"query": ["var"]}, "query", [("search_graph",), ("string",)]),
    (
        "wrong type",
        "session_put",
        {"name": "s", "kind": "scope", "value": "2015", "provenance": "served"},
        "value",
        [("session_put",), ("object", "value={")],
    ),
    ("missing", "search_documents", {}, "query", [("search_documents",), ("required",)]),
    ("missing", "get_passage", {}, "chunk_id", [("get_passage",), ("required",)]),
    ("missing", "verify_citation", {"quote": QUOTE}, "document_id", [("verify_citation",), ("required",)]),
    ("missing", "connect_entities", {"entity_a": "VaR"}, "entity_b", [("connect_entities",), ("required",)]),
    ("missing", "expand_entity", {}, "entity_name", [("expand_entity",), ("required",)]),
    ("missing", "session_put", {"name": "s"}, "kind", [("session_put",), ("required",)]),
    ("missing", "verify_citations", {}, "citations", [("verify_citations",), ("evidence",)]),
    (
        "unknown argument",
        "search_documents",
        {"query": "var", "colour": "red"},
        "colour",
        [("search_documents",), ("query",)],
    ),
    (
        "unknown argument",
        "search_documents",
        {"query": "var", "top_k": 3},
        "top_k",
        [("search_documents",), ("limit",)],
    ),
    ("unknown argument", "corpus_status", {"verbose": True}, "verbose", [("corpus_status",), ("no arguments",)]),
    ("unknown argument", "session_list", {"limit": 5}, "limit", [("session_list",), ("no arguments",)]),
    ("unknown argument", "list_documents", {"document": "x"}, "document", [("list_documents",), ("title", "author")]),
    (
        "unknown argument",
        "get_passage",
        {"chunk_id": "$CHUNK", "window": 3},
        "window",
        [("get_passage",), ("offset", "neighbours")],
    ),
    ("out of range", "search_documents", {"query": "var", "limit": 1000}, "limit", [("search_documents",), ("20",)]),
    ("out of range", "list_documents", {"limit": 0}, "limit", [("list_documents",), ("200",)]),
    ("out of range", "get_passage", {"chunk_id": "$CHUNK", "neighbours": 9}, "neighbours", [("get_passage",), ("3",)]),
    (
        "out of range",
        "search_documents",
        {"query": "var", "year_min": 1500},
        "year_min",
        [("search_documents",), ("1900",)],
    ),
    (
        "out of range",
        "get_passage",
        {"chunk_id": "$CHUNK", "offset": 9_000_000},
        "offset",
        [("get_passage",), ("offset=0", "offset 0", "0 and", "0 to")],
    ),
    (
        "out of range",
        "search_documents",
        {"query": "var", "year_min": 2020, "year_max": 2010},
        "year_min",
        [("search_documents",), ("year_max",)],
    ),
    (
        "out of range",
        "search_graph",
        {"query": "var", "entity_type": "planet"},
        "entity_type",
        [("search_graph",), ("person",)],
    ),
    (
        "out of range",
        "search_documents",
        {"query": "var", "mode": "magic"},
        "mode",
        [("search_documents",), ("dense",)],
    ),
    (
        "out of range",
        "verify_citation",
        {"document_id": "$DOC", "quote": "short"},
        "quote",
        [("verify_citation",), ("12",)],
    ),
    ("empty string", "search_documents", {"query": ""}, "query", [("search_documents",), ("character",)]),
    ("empty string", "search_documents", {"query": "   "}, "query", [("search_documents",), ("text",)]),
    ("empty string", "search_graph", {"query": ""}, "query", [("search_graph",), ("character",)]),
    (
        "empty string",
        "connect_entities",
        {"entity_a": "", "entity_b": "VaR"},
        "entity_a",
        [("connect_entities",), ("character",)],
    ),
    ("empty string", "session_get", {"name": ""}, "name", [("session_list",)]),
    ("empty string", "verify_citation", {"document_id": "", "quote": QUOTE}, "document_id", [("list_documents",)]),
    ("empty string", "list_documents", {"author": ""}, "author", [("list_documents",), ("character",)]),
]


def _filled(value, ids: dict):
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, dict):
        return {k: _filled(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, ids) for v in value]
    return value


def judge(result, field: str, next_groups) -> tuple[bool, bool]:
    """(names the fault, names the next valid call) of one answer."""
    if not result.is_error:
        return False, False
    text, error = error_text(result), error_of(result)
    at_fault = field in error["fields"] and field in text
    return at_fault, all(any(word in text for word in group) for group in next_groups)


def replay(home) -> list[tuple]:
    async def scenario(c):
        listed = await c("list_documents", {})
        document_id = listed.structured_content["documents"][0]["document_id"]
        found = await c("search_documents", {"query": "value at risk", "document_id": document_id})
        ids = {"$DOC": document_id, "$CHUNK": found.structured_content["results"][0]["chunk_id"]}
        answers = []
        for kind, tool, arguments, field, next_groups in CASES:
            result = await c(tool, _filled(arguments, ids))
            answers.append((kind, tool, arguments, judge(result, field, next_groups), error_text(result)))
        return answers

    return run_calls(home, scenario, warm_up=False)


def test_every_wrong_call_names_the_fault_and_the_next_valid_call(served_home):
    answers = replay(served_home)
    assert len(answers) >= 30 and {a[0] for a in answers} == {c[0] for c in CASES}
    fault = sum(a[3][0] for a in answers)
    following = sum(a[3][1] for a in answers)
    both = sum(all(a[3]) for a in answers)
    missed = [
        (tool, arguments, verdict, text[:300]) for _, tool, arguments, verdict, text in answers if not all(verdict)
    ]
    summary = f"{len(answers)} wrong calls: fault named {fault}, next call named {following}, both {both}"
    print(f"\nwrong-call replay: {summary}")
    assert not missed, summary + "\n" + "\n".join(map(str, missed))
