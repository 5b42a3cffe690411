"""What tools/list costs an agent's context: each tool's descriptor as the SDK sends it, in
characters of compact JSON, and its parts (description, input schema, output schema).

    QUANT_RAG_HOME=<state> HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/listing_size.py [--json]

A descriptor is `tool_descriptor(spec, context).model_dump(by_alias=True, exclude_none=True)`
(serving.mcp.listing), dumped with separators (",", ":") and ensure_ascii=False; `listing` is the
whole tools/list result ({"tools": [...]}) dumped the same way. Nothing is loaded but the
configuration: a description quotes configured values (default mode, per-document cap, session
limits), not the corpus.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import harness

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.config import ServedConfig  # noqa: E402
from corpus.state.layout import StateLayout  # noqa: E402
from serving.mcp.listing import tool_descriptor  # noqa: E402
from serving.mcp.server import ServingContext, tool_specs  # noqa: E402

PARTS = ("description", "input", "output", "descriptor")  # characters of each, per tool


def chars(value: object) -> int:
    """Characters of `value` as compact JSON (what a client puts in the model's context)."""
    return len(value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def main() -> None:
    args = harness.parser(__file__, __doc__).parse_args()
    home = Path(os.environ.get("QUANT_RAG_HOME", "var"))
    context = ServingContext(StateLayout(home), ServedConfig.from_env())
    tools, descriptors = {}, []
    for name, spec in tool_specs().items():
        descriptor = tool_descriptor(spec, context).model_dump(by_alias=True, exclude_none=True)
        descriptors.append(descriptor)
        tools[name] = {
            "description": chars(descriptor["description"]),
            "input": chars(descriptor["inputSchema"]),
            "output": chars(descriptor.get("outputSchema", {})),
            "descriptor": chars(descriptor),
        }
    totals = {part: sum(t[part] for t in tools.values()) for part in PARTS}
    totals["description_and_input"] = totals["description"] + totals["input"]
    totals["listing"] = chars({"tools": descriptors})
    width = max(map(len, tools))

    def row(label: str, figures: dict) -> str:
        return f"{label:<{width}}" + "".join(f"{figures[part]:>{len(part) + 2}}" for part in PARTS)

    lines = [f"{'tool':<{width}}" + "".join(f"{part:>{len(part) + 2}}" for part in PARTS)]
    lines += [row(name, figures) for name, figures in tools.items()] + [row("total", totals)]
    lines.append(
        f"descriptions + input schemas: {totals['description_and_input']:,} · "
        f"tools/list result: {totals['listing']:,} characters"
    )
    harness.emit(args, {"tools": tools, "totals": totals}, lines)


if __name__ == "__main__":
    main()
