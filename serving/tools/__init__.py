"""The fourteen MCP tools: one module each (graph and session tools share a module by family).

Each module defines its tool's `ToolSpec` (serving.toolkit.tool_spec). Only serving.mcp.toolset imports this
package: the modules below tools/ never reach up into a tool (tests/serving/test_layers.py).
"""
