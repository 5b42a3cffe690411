"""Published output schemas: `$ref`s inlined and nullable `anyOf`s folded into type lists (cheaper
for a client to validate every result), judging documents exactly as the tool's own model schema
does."""

from __future__ import annotations

import copy

import jsonschema
import pytest
from pydantic import BaseModel

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from serving.listing import inline_refs, output_schema, type_lists


def _validator(schema):
    return jsonschema.validators.validator_for(schema)(schema)


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
    from serving.server import ServingContext, call_tool, tool_specs

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
def test_inlined_schemas_judge_results_as_the_models_schemas_do(results, tool, paths):
    spec, document = results[tool]
    published, original = output_schema(spec), spec.output_model.model_json_schema()
    assert "$defs" in original and "$ref" in str(original)  # there was something to inline
    assert "$ref" not in str(published) and "$defs" not in published
    assert "'null'" in str(published) and "{'type': 'null'}" not in str(published)  # folded
    inlined, model = _validator(published), _validator(original)
    assert not list(inlined.iter_errors(document)) and not list(model.iter_errors(document))
    for path in paths:
        for broken in _breakages(document, path):
            assert not model.is_valid(broken), (path, broken)  # each breakage breaks...
            assert not inlined.is_valid(broken), (path, broken)  # ...for the published schema too


class Node(BaseModel):
    label: str
    children: list[Node]


def test_a_recursive_schema_keeps_its_references():
    schema = Node.model_json_schema()
    assert inline_refs(schema) == schema


def test_only_anyofs_of_bare_types_are_folded():
    bare = {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "d"}
    bounded = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}
    assert type_lists(bare) == {"type": ["integer", "null"], "description": "d"}
    assert type_lists(bounded) == bounded
    assert type_lists({"items": [bare]}) == {"items": [{"type": ["integer", "null"], "description": "d"}]}
