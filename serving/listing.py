"""What the server publishes: each tool's descriptor (tools/list) and the prompt (prompts/*).

Output schemas are the tools' output models' JSON schemas with their `$ref`s inlined and each
nullable field's `anyOf: [{type: X}, {type: null}]` written `type: [X, null]`: the same
constraints, but a client that validates every result against the schema (the SDK's client does,
with jsonschema) no longer resolves a reference per nested object nor tries one branch after the
other — ≈ 40 % less of its time per search or get_passage result (benchmarks/serving_profile.py:
client_validate against client_validate_refs).
"""

from __future__ import annotations

from typing import Any

from mcp_types import GetPromptResult, Prompt, PromptArgument, PromptMessage, TextContent, Tool, ToolAnnotations
from pydantic import ValidationError, validate_call

from serving import prompt
from serving.context import ToolContext
from serving.tool_spec import ToolSpec

DEFS = "#/$defs/"


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every local `$ref` replaced by its definition (a reference's own keywords,
    e.g. its description, kept beside it); unchanged when a definition refers to itself."""
    defs = schema.get("$defs", {})

    def expand(node: Any, within: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [expand(item, within) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(DEFS) and ref[len(DEFS) :] in defs:
            name = ref[len(DEFS) :]
            if name in within:
                raise RecursionError(name)
            return {
                **expand(defs[name], within | {name}),
                **{k: expand(v, within) for k, v in node.items() if k != "$ref"},
            }
        return {k: expand(v, within) for k, v in node.items() if k != "$defs"}

    try:
        return expand(schema, frozenset())
    except RecursionError:  # a recursive model keeps its references
        return schema


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


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    return type_lists(inline_refs(spec.output_model.model_json_schema()))


def tool_descriptor(spec: ToolSpec, context: ToolContext) -> Tool:
    annotations = ToolAnnotations(
        title=spec.title,
        read_only_hint=spec.read_only,
        destructive_hint=spec.destructive if not spec.read_only else None,
        idempotent_hint=spec.idempotent,
        open_world_hint=False,
    )
    return Tool(
        name=spec.name,
        title=spec.title,
        description=spec.describe(context),
        input_schema=spec.input_model.model_json_schema(),
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
