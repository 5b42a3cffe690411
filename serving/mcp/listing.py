"""What the server publishes: each tool's descriptor (tools/list) and the prompt (prompts/*).

A published schema is its model's JSON schema less what only annotates it: the titles pydantic
generates, `default: null`, and in output schemas every description and default too (the tool's
description and its text rendering say what an answer means). Input schemas keep every
constraint: types, bounds, enums, patterns, `required`, `additionalProperties`. Output schemas
state one rule instead of a `required` list per object: a result holds every property of every
object its schema names (the server dumps its output models whole, null where empty; tested),
and a string enum names no `type` beside it (its values are strings). A definition used twice or more is
one shared `$defs` entry (get_passage's PassageOut), one used once is written in place, and output
schemas fold each nullable `anyOf: [{type: X}, {type: null}]` into `type: [X, null]`.
Trade: sharing keeps the listing small; a client validating a result resolves each shared `$ref`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mcp_types import GetPromptResult, Prompt, PromptArgument, PromptMessage, TextContent, Tool, ToolAnnotations
from pydantic import ValidationError, validate_call

from serving.mcp import prompt
from serving.toolkit.context import ToolContext
from serving.toolkit.tool_spec import ToolSpec

DEFS = "#/$defs/"
# Keywords whose value is a map of names to schemas, a list of schemas, or one schema (or a
# boolean): the places a walk descends into. Anything else (enum, const, default, required, …)
# is data, never a schema: a property or a value named "title" is not the title keyword.
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
SCHEMA_ONE = frozenset(
    {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems"}
    | {"unevaluatedProperties", "additionalItems"}
)
INPUT_ANNOTATIONS = frozenset({"title"})
OUTPUT_ANNOTATIONS = frozenset({"title", "description", "default", "required"})


def _generated(title: Any, name: str | None) -> bool:
    """Whether `title` is the one pydantic writes for `name` (a property's name, a definition's
    key, the model's class name) rather than one set by hand (StoredScope's "Scope")."""
    return name is not None and title in (name, name.replace("_", " ").title())


def without(node: Any, keywords: frozenset[str], name: str | None = None) -> Any:
    """The schema `node` less the `keywords` wherever they are keywords of a (sub)schema (`title`
    only where pydantic generated it from `name`), and less every `default: null` (an optional
    property says no more with it)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if (key in keywords and (key != "title" or _generated(value, name))) or (key == "default" and value is None):
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {child: without(schema, keywords, child) for child, schema in value.items()}
        elif key in SCHEMA_LISTS and isinstance(value, list):
            out[key] = [without(schema, keywords) for schema in value]
        elif key in SCHEMA_ONE:
            out[key] = [without(s, keywords) for s in value] if isinstance(value, list) else without(value, keywords)
        else:
            out[key] = value
    return out


def _refs(node: Any) -> Counter[str]:
    """How many times each local definition is referred to within `node`."""
    counts: Counter[str] = Counter()
    if isinstance(node, list):
        for item in node:
            counts += _refs(item)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(DEFS):
            counts[ref[len(DEFS) :]] += 1
        for key, value in node.items():
            counts += _refs(value)
    return counts


def _replace(node: Any, name: str, definition: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_replace(item, name, definition) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("$ref") == DEFS + name:  # a reference's own keywords (e.g. its description) kept
        return {**definition, **{k: _replace(v, name, definition) for k, v in node.items() if k != "$ref"}}
    return {k: _replace(v, name, definition) for k, v in node.items()}


def shared_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each definition referred to once written in place of its reference: `$defs`
    keeps only the definitions used more than once (or by themselves), each once."""
    schema = dict(schema)
    while True:
        defs = dict(schema.get("$defs", {}))
        counts = _refs({k: v for k, v in schema.items() if k != "$defs"}) + _refs(defs)
        once = next((n for n in defs if counts[n] == 1 and not _refs(defs[n])[n]), None)
        if once is None:
            return schema
        definition = defs.pop(once)
        schema = _replace({k: v for k, v in schema.items() if k != "$defs"}, once, definition)
        if defs:
            schema["$defs"] = _replace(defs, once, definition)


def type_lists(node: Any) -> Any:
    """`node` with every `anyOf` whose branches each only name a type, or that is a nullable
    object or array, folded into one `type` list (the same set of instances)."""
    if isinstance(node, list):
        return [type_lists(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: type_lists(v) for k, v in node.items()}
    branches = out.get("anyOf")
    if not isinstance(branches, list) or not branches or "type" in out:
        return out
    if all(isinstance(b, dict) and set(b) == {"type"} and isinstance(b["type"], str) for b in branches):
        del out["anyOf"]
        out["type"] = [b["type"] for b in branches]
        return out
    # `X | None` with X an object or array: X's keywords only constrain instances of X's type, so
    # ["object", "null"] with them judges every instance as the anyOf did (not so for enum/const).
    rest = [b for b in branches if b != {"type": "null"}]
    if (
        len(branches) == 2
        and len(rest) == 1
        and isinstance(rest[0].get("type"), str)
        and rest[0]["type"] in ("object", "array")
        and not {"anyOf", "oneOf", "allOf", "enum", "const", "not"} & set(rest[0])
    ):
        del out["anyOf"]
        return {**rest[0], **out, "type": [rest[0]["type"], "null"]}
    return out


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    model = spec.input_model
    return shared_defs(without(model.model_json_schema(), INPUT_ANNOTATIONS, model.__name__))


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    model = spec.output_model
    return enums_untyped(
        type_lists(shared_defs(without(model.model_json_schema(), OUTPUT_ANNOTATIONS, model.__name__)))
    )


def enums_untyped(node: Any) -> Any:
    """`node` without the `type: string` beside an enum of strings (the enum alone admits the same
    instances)."""
    if isinstance(node, list):
        return [enums_untyped(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: enums_untyped(v) for k, v in node.items()}
    if (
        out.get("type") == "string"
        and isinstance(out.get("enum"), list)
        and all(isinstance(v, str) for v in out["enum"])
    ):
        del out["type"]
    return out


def tool_descriptor(spec: ToolSpec, context: ToolContext) -> Tool:
    annotations = ToolAnnotations(  # the title is the tool's own (one copy in the listing)
        read_only_hint=spec.read_only,
        destructive_hint=spec.destructive if not spec.read_only else None,
        idempotent_hint=spec.idempotent,
        open_world_hint=False,
    )
    return Tool(
        name=spec.name,
        title=spec.title,
        description=spec.describe(context),
        input_schema=input_schema(spec),
        output_schema=output_schema(spec),
        annotations=annotations,
    )


PROMPT = Prompt(
    name=prompt.PROMPT_NAME,
    title=prompt.PROMPT_TITLE,
    description=prompt.PROMPT_DESCRIPTION,
    arguments=[
        PromptArgument(
            name="question", required=False, description=("The research question to answer from the library.")
        )
    ],
)
_render = validate_call(prompt.research_protocol)  # its bounds (question ≤ 2,000 characters) apply


def get_prompt(name: str, arguments: dict[str, str] | None) -> GetPromptResult:
    """The rendered prompt; ValueError for an unknown prompt or arguments outside its bounds."""
    if name != prompt.PROMPT_NAME:
        raise ValueError(f"unknown prompt {name!r}; prompts/list names the prompts")
    try:
        text = _render(**(arguments or {}))
    except ValidationError as exc:
        raise ValueError(
            f"invalid arguments for prompt {name}: "
            + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        )
    return GetPromptResult(
        description=prompt.PROMPT_DESCRIPTION,
        messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
    )
