"""The corpus model shared by the writer (assets) and the reader (serving).

Never imports dagster or mcp; model and index libraries are imported lazily.
"""
