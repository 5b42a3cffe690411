"""Published schemas: annotations dropped (generated titles; output descriptions and defaults),
a definition used twice shared in `$defs`, nullable `anyOf`s of output schemas folded into type
lists; every constraint kept, so they judge documents exactly as the tools' own model schemas do."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from pydantic import BaseModel

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from serving.mcp.listing import DEFS, enums_untyped, input_schema, output_schema, shared_defs, type_lists, without


def _validator(schema):
    return jsonschema.validators.validator_for(schema)(schema)  # resolves the local `$ref`s


def _resolved(schema: dict) -> dict:
    """`schema` with every `$ref` replaced by its definition (the models here are not recursive)."""
    defs = schema.get("$defs", {})

    def expand(node):
        if isinstance(node, list):
            return [expand(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return expand({**defs[node["$ref"][len(DEFS) :]], **{k: v for k, v in node.items() if k != "$ref"}})
        return {k: expand(v) for k, v in node.items() if k != "$defs"}

    return expand(schema)


def _constraints(schema: dict, model: type[BaseModel]) -> dict:
    """What a schema of `model` constrains: no annotation (StoredScope's own title aside), no reference."""
    return type_lists(_resolved(without(schema, frozenset({"title", "description", "default"}), model.__name__)))


def _keywords(node, key: str) -> list:
    """Every value of the keyword `key` in the schema `node` (a property named `key` is no keyword)."""
    if isinstance(node, list):
        return [found for item in node for found in _keywords(item, key)]
    if not isinstance(node, dict):
        return []
    found = [node[key]] if key in node and isinstance(node[key], str) else []
    for k, value in node.items():
        if k == "properties":
            found += [f for prop in value.values() for f in _keywords(prop, key)]
        elif k not in ("enum", "const", "default", "required"):
            found += _keywords(value, key)
    return found


def _breakages(document: dict, path: list) -> list[dict]:
    """Copies of `document` each broken at the object at `path`: a required key dropped, a
    value of the wrong type, an unknown enum value."""
    broken = []
    for edit in ("drop", "type", "enum"):
        doc = copy.deepcopy(document)
        node = doc
        for key in path[:-1]:
            node = node[key]
        leaf = path[-1]
        if edit == "drop":
            del node[leaf]
        elif edit == "type":
            node[leaf] = {"not": "what the schema says"}
        else:
            node[leaf] = "no-such-value"
        broken.append(doc)
    return broken


@pytest.fixture(scope="module")
def results(served_home):
    from serving.mcp.server import ServingContext, call_tool, tool_specs

    specs = tool_specs()
    context = ServingContext(StateLayout(served_home), ServedConfig())
    search = call_tool(specs["search_documents"], context, {"query": "variance", "limit": 3})
    chunk = search.structured_content["results"][0]["chunk_id"]
    passage = call_tool(specs["get_passage"], context, {"chunk_id": chunk, "neighbours": 1})
    return {
        "search_documents": (specs["search_documents"], search.structured_content),
        "get_passage": (specs["get_passage"], passage.structured_content),
    }


@pytest.mark.parametrize(
    "tool, paths",
    [
        (
            "search_documents",
            [
                ["results", 0, "cite", "year"],
                ["results", 0, "anchor", "granularity"],
                ["results", 0, "flags", "has_math"],
                ["trace", "window"],
                ["mode"],
            ],
        ),
        (
            "get_passage",
            [
                ["passage", "anchor", "ranges"],
                ["neighbours", 0, "passage", "cite"],
                ["neighbours", 0, "position"],
                ["passage", "anchor", "granularity"],
            ],
        ),
    ],
)
def test_published_schemas_judge_results_as_the_models_schemas_do(results, tool, paths):
    spec, document = results[tool]
    published, original = output_schema(spec), spec.output_model.model_json_schema()
    assert "'null'" in str(published) and "{'type': 'null'}" not in str(published)  # folded
    shared, model = _validator(published), _validator(original)
    assert not list(shared.iter_errors(document)) and not list(model.iter_errors(document))
    for path in paths:
        for edit, broken in zip(("drop", "type", "enum"), _breakages(document, path)):
            assert not model.is_valid(broken), (path, broken)  # each breakage breaks...
            # ...for the published schema, or for its rule that every property is there (a dropped
            # key, or an object in place of another object)
            missing = _missing_properties(published, published, broken)
            assert missing if edit == "drop" else (missing or not shared.is_valid(broken)), (path, broken)


def test_a_definition_used_twice_is_published_once_and_one_used_once_in_place():
    from serving.mcp.server import tool_specs

    passage = output_schema(tool_specs()["get_passage"])  # the passage and each neighbour's
    assert list(passage["$defs"]) == ["PassageOut"]
    assert str(passage).count("'$ref': '#/$defs/PassageOut'") == 2
    assert str(passage).count("'chunk_id'") == 1  # its properties, once
    search = output_schema(tool_specs()["search_documents"])  # PassageOut once: in place
    assert "$defs" not in search and "$ref" not in str(search)


def test_every_constraint_is_published_and_no_annotation_is():
    from serving.mcp.server import tool_specs

    for name, spec in tool_specs().items():
        for published, model in ((input_schema(spec), spec.input_model), (output_schema(spec), spec.output_model)):
            original = model.model_json_schema()
            if published is not None and model is spec.output_model:  # the stated rules stand for these
                original = enums_untyped(without(original, frozenset({"required"})))
            assert _constraints(published, model) == _constraints(original, model), name
            assert set(_keywords(published, "title")) <= {"Scope"}, name  # StoredScope's own title stays
            assert published.get("additionalProperties") == original.get("additionalProperties"), name
        assert _keywords(output_schema(spec), "description") == [], name
        assert all(
            _keywords(input_schema(spec)["properties"][p], "description") for p in input_schema(spec)["properties"]
        )
    listed = input_schema(tool_specs()["list_documents"])
    assert listed["properties"]["title"]["anyOf"][0]["maxLength"] == 300  # a property named "title" stays
    assert (
        "title"
        in output_schema(tool_specs()["search_documents"])["properties"]["results"]["items"]["properties"]["cite"][
            "properties"
        ]
    )


class Node(BaseModel):
    label: str
    children: list[Node]


def test_a_recursive_schema_keeps_its_references():
    schema = Node.model_json_schema()
    assert shared_defs(schema) == schema


def test_only_anyofs_of_bare_types_are_folded():
    bare = {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "d"}
    bounded = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}
    assert type_lists(bare) == {"type": ["integer", "null"], "description": "d"}
    assert type_lists(bounded) == bounded
    assert type_lists({"items": [bare]}) == {"items": [{"type": ["integer", "null"], "description": "d"}]}


def test_what_an_agent_reads_of_the_listing_stays_within_its_budget(tmp_path):
    """The tools' descriptions and input schemas, as compact JSON (benchmarks/listing_size.py):
    at most 15,000 characters, the issue's budget ("a lean listing")."""
    from serving.mcp.listing import tool_descriptor
    from serving.mcp.server import ServingContext, tool_specs

    context = ServingContext(StateLayout(tmp_path), ServedConfig())  # opens nothing
    read = 0
    descriptors = []
    for spec in tool_specs().values():
        descriptor = tool_descriptor(spec, context).model_dump(by_alias=True, exclude_none=True)
        descriptors.append(descriptor)
        read += len(descriptor["description"]) + len(
            json.dumps(descriptor["inputSchema"], separators=(",", ":"), ensure_ascii=False)
        )
    assert read <= 15_000, read
    whole = len(json.dumps({"tools": descriptors}, separators=(",", ":"), ensure_ascii=False))
    assert whole <= 40_000, whole  # the whole tools/list result, output schemas included


def _missing_properties(schema: dict, node, instance, path: str = "") -> list[str]:
    """Paths of properties an output schema names that `instance` lacks (the rule output schemas
    state instead of `required` lists)."""
    if isinstance(node, dict) and "$ref" in node:
        node = {**schema["$defs"][node["$ref"].split("/")[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
    if not isinstance(node, dict) or instance is None:
        return []
    missing = []
    if isinstance(instance, dict):
        for name, sub in node.get("properties", {}).items():
            if name not in instance:
                missing.append(f"{path}.{name}")
            else:
                missing += _missing_properties(schema, sub, instance[name], f"{path}.{name}")
    if isinstance(instance, list) and "items" in node:
        for i, item in enumerate(instance):
            missing += _missing_properties(schema, node["items"], item, f"{path}[{i}]")
    for branch in node.get("anyOf", []):
        missing += _missing_properties(schema, branch, instance, path) if isinstance(instance, dict) else []
    return missing


def test_results_hold_every_property_their_output_schema_names(results):
    """Output schemas carry no `required` lists: every property of every object is always there."""
    for name, (spec, content) in results.items():
        schema = output_schema(spec)
        assert not _keywords(schema, "required"), name
        assert content and not _missing_properties(schema, schema, content), (
            name,
            _missing_properties(schema, schema, content),
        )
