"""Per-tool tests: each module drives its tool through the real stdio server on the served state
(tests/serving/conftest.py), and in process through `call_tool` where a test needs the reader."""

from __future__ import annotations

import pytest

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout


@pytest.fixture(scope="module")
def context(served_home):
    from serving.mcp.server import ServingContext

    return ServingContext(StateLayout(served_home), ServedConfig())


@pytest.fixture(scope="module")
def invoke(context):
    """`invoke(name, arguments)`: one tool call in process, through the server's `call_tool`."""
    from serving.mcp.server import call_tool
    from serving.mcp.toolset import all_tools

    specs = {s.name: s for s in all_tools()}
    return lambda name, arguments: call_tool(specs[name], context, arguments)
