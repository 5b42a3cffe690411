"""The project's import graph, read from the source with `ast`: every import statement counts,
function-level ones included (they run too). The graph has no circle, and each package imports
only the packages docs/DESIGN.md §1 allows; the benchmark scripts, which import each other by
bare name, form no circle either."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("corpus", "ingest", "assets", "orchestration", "serving", "evaluation", "cli")


def module_files(packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages`."""
    modules = {}
    for package in packages:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _targets(node: ast.AST, module: str, is_package: bool, modules: dict[str, Path]) -> set[str]:
    """Project modules one import statement loads (a `from pkg import name` naming a submodule
    loads that submodule; otherwise it loads `pkg`)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
    found = set()
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            found.add(f"{base}.{alias.name}")
        elif base in modules:
            found.add(base)
    return found


def import_graph(packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """module -> the project modules it imports (anywhere in its body)."""
    modules = module_files(packages)
    graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= _targets(node, module, is_package, modules)
        edges.discard(module)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


BENCHMARKS = REPO / "benchmarks"


def benchmark_graph(folder: Path = BENCHMARKS) -> dict[str, set[str]]:
    """script -> the sibling scripts it imports. A script runs as `python benchmarks/X.py`, its
    folder first on the path, so siblings are imported by bare name (`from harness import ...`)."""
    scripts = {path.stem: path for path in sorted(folder.glob("*.py"))}
    graph = {}
    for name, path in scripts.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names if alias.name in scripts}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module in scripts:
                edges.add(node.module)
        edges.discard(name)
        graph[name] = edges
    return graph


def test_the_benchmark_scripts_import_each_other_without_a_circle():
    graph = benchmark_graph()
    assert "harness" in graph and graph["harness"] <= {"host"}  # the shared module leans on no script
    assert cycles(graph) == []


def test_the_benchmark_graph_sees_a_circle_between_two_scripts(tmp_path):
    (tmp_path / "scale.py").write_text("def main():\n    from scale_indexes import measure\n")
    (tmp_path / "scale_indexes.py").write_text("from scale import percentiles\n")
    (tmp_path / "harness.py").write_text("import numpy\n")
    assert cycles(benchmark_graph(tmp_path)) == [["scale", "scale_indexes"]]


# What each package may import among the project's packages (docs/DESIGN.md §1).
ALLOWED = {
    "corpus": {"corpus"},
    "ingest": {"ingest", "corpus"},
    "assets": {"assets", "ingest", "corpus", "evaluation"},
    "orchestration": {"orchestration", "assets", "ingest", "corpus"},
    "serving": {"serving", "corpus"},
    "evaluation": {"evaluation", "ingest", "serving", "corpus"},
    "cli": {"cli"},  # dispatches by module name (importlib), never by import statement
}


def test_the_import_graph_has_no_circle():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_circles_through_function_level_imports():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    # A function-level import is an edge like any other.
    tree = ast.parse("def f():\n    from corpus.state.layout import StateLayout\n")
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
    assert _targets(node, "corpus.reading.reader", False, module_files(("corpus",))) == {"corpus.state.layout"}


def test_each_package_imports_only_what_it_may():
    strays = sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        for target in targets
        if target.split(".")[0] not in ALLOWED[module.split(".")[0]]
    )
    assert strays == []


# corpus/ from the ground up (corpus/__init__.py): a room, or a top-level module, imports only what
# comes before it here, so the rooms form no circle and a reader can learn them in this order.
CORPUS_LAYERS = (
    "corpus.ids",
    "corpus.versions",
    "corpus.models",
    "corpus.text",
    "corpus.model_folder",
    "corpus.profiles",
    "corpus.config",
    "corpus.state",
    "corpus.indexes",
    "corpus.vectors",
    "corpus.graph",
    "corpus.encoding",
    "corpus.reading",
)
MAX_MODULES_PER_ROOM = 12


def corpus_node(module: str) -> str:
    """A corpus module's place in CORPUS_LAYERS: its room, or itself at the top level."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_corpus_rooms_import_only_the_rooms_below_them():
    rank = {node: i for i, node in enumerate(CORPUS_LAYERS)}
    graph = import_graph(("corpus",))
    unplaced = sorted({corpus_node(m) for m in graph} - set(rank) - {"corpus"})
    assert unplaced == [], "a new corpus room or top-level module needs its place in CORPUS_LAYERS"
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module != "corpus"
        for target in targets
        if corpus_node(target) != corpus_node(module) and rank[corpus_node(target)] > rank[corpus_node(module)]
    )
    assert upward == []


def test_corpus_rooms_are_small_and_say_what_they_hold():
    for room in (REPO / "corpus").iterdir():
        if room.is_dir() and room.name != "__pycache__":
            modules = [p for p in room.glob("*.py") if p.name != "__init__.py"]
            assert 0 < len(modules) <= MAX_MODULES_PER_ROOM, room.name
            docstring = ast.get_docstring(ast.parse((room / "__init__.py").read_text()))
            assert docstring and len(docstring) > 80, f"corpus/{room.name}/__init__.py needs its paragraph"
    top = [p for p in (REPO / "corpus").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= MAX_MODULES_PER_ROOM


# serving/ from the ground up (serving/__init__.py): a room, or a top-level module, imports only what
# comes before it here. A search's question climbs them once: tools -> toolkit (the search use case)
# -> retrieval -> abstention, and back.
SERVING_LAYERS = (
    "serving.coherence",
    "serving.periods",
    "serving.citation",
    "serving.sessions",
    "serving.answer",
    "serving.abstention",
    "serving.retrieval",
    "serving.toolkit",
    "serving.tools",
    "serving.mcp",
    "serving.server",
    "serving.cli",
)
MAX_SERVING_TOP_LEVEL = 10


def upward_imports(graph: dict[str, set[str]], layers: tuple[str, ...]) -> list[str]:
    """Imports from a room (or top-level module) to one placed after it in `layers`."""
    rank = {node: i for i, node in enumerate(layers)}
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if corpus_node(module) in rank
        for target in targets
        if corpus_node(target) in rank
        and corpus_node(target) != corpus_node(module)
        and rank[corpus_node(target)] > rank[corpus_node(module)]
    )


def test_serving_rooms_import_only_the_rooms_below_them():
    graph = import_graph(("serving",))
    unplaced = sorted({corpus_node(m) for m in graph} - set(SERVING_LAYERS) - {"serving"})
    assert unplaced == [], "a new serving room or top-level module needs its place in SERVING_LAYERS"
    assert cycles(graph) == []
    assert upward_imports(graph, SERVING_LAYERS) == []


def test_the_layer_check_sees_an_import_that_climbs_back_up():
    graph = {"serving.answer.served": {"serving.retrieval.engine"}, "serving.retrieval.engine": set()}
    assert upward_imports(graph, SERVING_LAYERS) == ["serving.answer.served -> serving.retrieval.engine"]


def test_serving_rooms_are_small_and_say_what_they_hold():
    root = REPO / "serving"
    rooms = [p for p in root.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert {f"serving.{room.name}" for room in rooms} <= set(SERVING_LAYERS)
    for room in rooms:
        modules = [p for p in room.glob("*.py") if p.name != "__init__.py"]
        assert 0 < len(modules) <= MAX_MODULES_PER_ROOM, room.name
        docstring = ast.get_docstring(ast.parse((room / "__init__.py").read_text()))
        assert docstring and len(docstring) > 80, f"serving/{room.name}/__init__.py needs its paragraph"
    top = [p for p in root.glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= MAX_SERVING_TOP_LEVEL, sorted(p.name for p in top)
