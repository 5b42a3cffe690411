"""The next valid call, for every error answer (`next_call`).

An argument the schema refuses gets its hint from the tool's input schema: what the argument must
be, which arguments the tool takes, where its ids come from, and a document id passed where a
chunk id belongs (or the reverse) is named as such. Other errors get theirs from their code and
the arguments at fault, unless the place that raised them said more.
"""

from __future__ import annotations

import difflib
import re
from functools import cache

from pydantic import BaseModel

from corpus.ids import CHUNK_ID_RE, DOCUMENT_ID_RE

CHUNK_SOURCE = (
    "chunk ids look like chunk-0123456789abcdef: take one from a search_documents, timeline or graph tool result"
)
DOCUMENT_SOURCE = (
    "document ids look like doc-0123456789abcdef: call list_documents for the valid "
    "ones (search results carry them too)"
)
SESSION_SOURCE = "call session_list for the stored session names"
BY_CODE = {
    "incoherent_state": "call corpus_status for what is wrong and tell the user to run the `rebuild` "
    "commands; every tool but corpus_status refuses until then",
    "unavailable": "tell the user to run the `rebuild` commands (corpus_status reports each store), then call again",
    "internal": "call again once; if it fails again, tell the user (the server logged the details)",
}
SESSION_FIELDS = {"session", "evidence", "scope"}
WHOLE = "(arguments)"  # what a rule on several arguments is reported at when it names none


@cache
def input_schema(model: type[BaseModel]) -> dict:
    """A tool input model's JSON schema (as tools/list publishes it), computed once."""
    return model.model_json_schema()


def _options(root: dict, node: dict) -> list[dict]:
    """The concrete shapes a value may take: references followed, null dropped, unions flattened."""
    if "$ref" in node:
        node = root.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[1], {})
    subs = node.get("anyOf") or node.get("oneOf")
    if subs:
        return [o for sub in subs for o in _options(root, sub) if o.get("type") != "null"]
    return [node]


def _walk(root: dict, loc: tuple, unknown: bool) -> tuple[list[str], list[dict], int | None]:
    """(argument path, its schemas, index in `loc` of the first union-member tag or None)."""
    nodes, parts, tag = [root], [], None
    for i, part in enumerate(loc):
        if unknown and i == len(loc) - 1:
            parts.append(str(part))
            break
        children = []
        for option in (o for n in nodes for o in _options(root, n)):
            if isinstance(part, int) and "items" in option:
                children.append(option["items"])
            elif isinstance(part, str) and part in option.get("properties", {}):
                children.append(option["properties"][part])
        if children:
            nodes, parts = children, parts + [str(part)]
        elif tag is None:
            tag = i
    return parts, nodes, tag


def locate(root: dict, loc: tuple, unknown: bool = False) -> tuple[str, list[dict]]:
    """(dotted argument path, the schemas it may have) of a pydantic error location; the tags
    pydantic adds for union members are not arguments and are dropped. With `unknown` the last
    part is an unknown argument, and the schemas are those of the object it was passed in."""
    if "properties" not in root:  # no schema to read: the location as pydantic gives it
        return ".".join(str(part) for part in loc) or WHOLE, []
    parts, nodes, _ = _walk(root, loc, unknown)
    return ".".join(parts) or WHOLE, nodes


def requirement(root: dict, nodes: list[dict]) -> str:
    """What a valid value looks like, in words, from its schema."""
    shapes = []
    for o in (o for n in nodes for o in _options(root, n)):
        if "enum" in o:
            shapes.append("one of " + ", ".join(map(str, o["enum"])))
        elif o.get("type") == "string":
            low, high = o.get("minLength", 0), o.get("maxLength")
            size = f" of {low} to {high} characters" if high else f" of at least {low} characters" if low else ""
            like = f" matching {o['pattern']}" if "pattern" in o else ""
            shapes.append(f"a string{size}{like}")
        elif o.get("type") == "integer":
            shapes.append(f"an integer from {o.get('minimum', '…')} to {o.get('maximum', '…')}")
        elif o.get("type") == "boolean":
            shapes.append("true or false")
        elif o.get("type") == "array":
            shapes.append(f"a list of {o.get('minItems', 0)} to {o.get('maxItems', '…')} items")
        elif "properties" in o:
            required = set(o.get("required", ()))
            keys = ", ".join(k if k in required else f"{k}?" for k in o["properties"])
            shapes.append(f"an object {{{keys}}}")
    return " or ".join(dict.fromkeys(shapes)) or "a value its description allows"


def _value_at(arguments, loc: tuple):
    for part in loc:
        try:
            arguments = arguments[part]
        except (KeyError, IndexError, TypeError):
            return None
    return arguments


def swapped_id(tool: str, leaf: str, value) -> str | None:
    """A document id given for a chunk id, or the reverse: the call that turns one into the other."""
    if not isinstance(value, str):
        return None
    if leaf == "chunk_id" and DOCUMENT_ID_RE.fullmatch(value):
        return (
            f"{tool} takes a chunk id like chunk-0123456789abcdef in `chunk_id`; {value} is a "
            f"document id: call search_documents with document_id={value} for its passages' "
            "chunk ids"
        )
    if leaf == "document_id" and CHUNK_ID_RE.fullmatch(value):
        return (
            f"{tool} takes a document id like doc-0123456789abcdef in `document_id`; {value} is "
            f"a chunk id: call get_passage with chunk_id={value}, whose passage names its "
            "document_id"
        )
    return None


def argument_hint(tool: str, root: dict, error: dict, arguments: dict) -> tuple[str, str, str, str]:
    """(argument at fault, what is wrong, how to pass it, what else to do) of one pydantic error:
    the third is a clause of "call TOOL with ...", the fourth a sentence; either may be empty."""
    loc, kind, msg = tuple(error.get("loc", ())), error.get("type", ""), error.get("msg", "invalid value")
    rule = msg.removeprefix("Value error, ")
    if not loc:  # a rule over several arguments: it names those it is about
        names = [p for p in root.get("properties", {}) if re.search(rf"\b{re.escape(p)}\b", msg)]
        field = ", ".join(names) or WHOLE
        return field, f"{field}: {msg}", f"{' and '.join(names) or 'arguments'} such that {rule}", ""
    field, nodes = locate(root, loc, unknown=kind == "extra_forbidden")
    parent, _, leaf = field.rpartition(".")
    if kind == "extra_forbidden":
        allowed = [k for n in nodes for o in _options(root, n) for k in o.get("properties", {})]
        close = difflib.get_close_matches(leaf, allowed, n=1, cutoff=0.6)
        guess = f" (did you mean `{close[0]}`?)" if close else ""
        if not allowed:
            return field, f"{field}: unknown argument", "", f"{tool} takes no arguments: call it with {{}}"
        owner = f"`{parent}` takes" if parent else f"{tool} takes"
        return field, f"{field}: unknown argument", "", f"{owner} only {', '.join(allowed)}{guess}"
    swap = swapped_id(tool, leaf, _value_at(arguments, loc))
    if swap:
        return field, f"{field}: {msg}", "", swap
    source = {"chunk_id": CHUNK_SOURCE, "document_id": DOCUMENT_SOURCE}.get(leaf, "")
    if not source and (leaf in SESSION_FIELDS or (leaf == "name" and tool != "session_put")):
        source = SESSION_SOURCE
    if "url" not in error:  # a validator's own error type: its words are the advice, not the schema's
        return field, f"{field}: {msg}", f"{field} ({rule})", source
    needed = "(required) " if kind == "missing" else ""
    why = f" ({rule})" if kind == "value_error" else ""
    return field, f"{field}: {msg}", f"{field} {needed}{requirement(root, nodes)}{why}", source


def next_call(tool: str, clauses: list[str], sentences: list[str]) -> str:
    """One hint: the argument fixes in one call of `tool`, then what else to do."""
    call = [f"call {tool} with " + "; ".join(dict.fromkeys(clauses))] if clauses else []
    return "; ".join(call + list(dict.fromkeys(s for s in sentences if s)))


def matching_members(root: dict, errors: list[dict]) -> list[dict]:
    """The errors of the union member the value was meant for: pydantic reports every member's
    errors (a scope's refusal of `items` beside an evidence list's refusal of its bad id); the
    member with the fewest unknown or missing keys of its own is the one the caller meant."""
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for error in errors:
        loc = tuple(error.get("loc", ()))
        unknown = error.get("type") == "extra_forbidden"
        tag = _walk(root, loc, unknown)[2] if "properties" in root else None
        if tag is not None:
            groups.setdefault(loc[:tag], {}).setdefault(loc[tag], []).append(error)

    def misfit(depth: int, member: list[dict]) -> int:  # unknown or missing keys of the member's own
        return sum(e.get("type") in ("extra_forbidden", "missing") and len(e["loc"]) <= depth + 2 for e in member)

    dropped = set()
    for key, members in groups.items():
        best = min(misfit(len(key), m) for m in members.values())
        dropped |= {id(e) for m in members.values() if misfit(len(key), m) > best for e in m}
    return [e for e in errors if id(e) not in dropped]


def default_next_call(tool: str | None, code: str, fields: list[str]) -> str:
    """The next call for an error raised without one: by code, then by the arguments at fault."""
    if code in BY_CODE:
        return BY_CODE[code]
    leaves = {f.rsplit(".", 1)[-1] for f in fields}
    if "chunk_id" in leaves:
        return CHUNK_SOURCE
    if "document_id" in leaves:
        return DOCUMENT_SOURCE
    if code == "not_found" and leaves & {"scope"}:
        return "call list_documents for the valid document ids and store the scope again with session_put"
    if leaves & SESSION_FIELDS or (code == "not_found" and "name" in leaves):
        return SESSION_SOURCE
    named = " and ".join(fields) or "the arguments"
    return f"call {tool or 'the tool'} again with {named} fixed; tools/list gives its input schema"
