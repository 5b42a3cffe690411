"""The MCP side: the stdio server with its coherence gate and error results (`server`), the stdio
transport (`stdio`), process settings applied before the SDK loads (`process`), what tools/list
and prompts/* publish (`listing`, `prompt`), and the tool set in its order (`toolset`, the only
module that imports the tools). `python -m serving.server` starts it (docs/DESIGN.md §4, §6).
"""
