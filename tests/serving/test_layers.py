"""Layers inside serving/: the modules below tools/ never reach up into a tool.

Tools import the shared modules (tool_spec, filters, sessions, contract...), never the other way
round; the one module that imports serving.tools is serving/mcp/toolset.py, which assembles the tool
set for the server and the CLI. Every import counts: at module level, inside a function, or under
TYPE_CHECKING. Also: one class in serving/ is named Scope.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVING = Path(__file__).resolve().parents[2] / "serving"
ASSEMBLER = "serving/mcp/toolset.py"


def _modules() -> list[Path]:
    return sorted(SERVING.rglob("*.py"))


def _imported(tree: ast.AST) -> set[str]:
    """Every module an import statement names (`from serving import tools` names serving.tools)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _is_tool(name: str) -> bool:
    return name == "serving.tools" or name.startswith("serving.tools.")


def test_only_the_toolset_imports_a_tool():
    reaching = {}
    for path in _modules():
        relative = path.relative_to(SERVING.parent).as_posix()
        if relative.startswith("serving/tools/") or relative == ASSEMBLER:
            continue
        tools = sorted(n for n in _imported(ast.parse(path.read_text(), relative)) if _is_tool(n))
        if tools:
            reaching[relative] = tools
    assert reaching == {}, f"modules below tools/ importing a tool: {reaching}"


def test_the_toolset_assembles_the_tools():
    path = SERVING.parent / ASSEMBLER
    assert any(_is_tool(n) for n in _imported(ast.parse(path.read_text())))


def test_the_walk_sees_every_serving_module():
    """The checks above read the files on disk: a guard against an empty or wrong folder."""
    names = {p.relative_to(SERVING.parent).as_posix() for p in _modules()}
    assert {"serving/mcp/server.py", ASSEMBLER, "serving/tools/search_documents.py"} <= names


def test_one_class_named_scope():
    homes = [
        path.relative_to(SERVING.parent).as_posix()
        for path in _modules()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and node.name == "Scope"
    ]
    assert homes == ["serving/retrieval/scope.py"]
