"""`python -m serving.server`: the MCP stdio server's entry point (README, tests and MCP clients
start it so); the server itself is serving.mcp.server."""

from serving.mcp.server import serve

if __name__ == "__main__":
    serve()
