"""The walk of a search's question through the project's modules: one search_documents call in
process, traced with sys.setprofile from the tool's handler down to the stores and back.

    python benchmarks/search_walk.py --home S [--query Q] [--json]

Prints the rooms and modules entered in order (an entry is a call from one project module into
another) and the re-entries: a module called into while one of its frames is still on the stack
below (control left it for a deeper module and came back by a call, not by a return). The
search's path has none (tests/serving/test_search_walk.py holds it on the test state).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import harness

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("serving", "corpus")
DEFAULT_QUERY = "How is value at risk estimated from historical returns?"


def module_of(filename: str) -> str | None:
    """The project module a code object belongs to (serving and corpus), else None."""
    try:
        parts = Path(filename).resolve().relative_to(REPO).with_suffix("").parts
    except ValueError:
        return None
    if not parts or parts[0] not in PACKAGES:
        return None
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def walk(call, *args, **kwargs):
    """(result, entries, re-entries) of `call(*args, **kwargs)`: the modules entered in order,
    each as (caller module, entered module), and each re-entry as the stack it happened on."""
    stack: list[str | None] = []
    entries: list[tuple[str | None, str]] = []
    reentries: list[list[str]] = []

    def profile(frame, event, _arg):
        if event == "call":
            module = module_of(frame.f_code.co_filename)
            caller = next((m for m in reversed(stack) if m is not None), None)
            if module is not None and module != caller:
                entries.append((caller, module))
                if module in stack:
                    reentries.append([m for m in stack if m is not None] + [module])
            stack.append(module)
        elif event == "return" and stack:
            stack.pop()

    sys.setprofile(profile)
    try:
        result = call(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return result, entries, reentries


def rooms(entries: list[tuple[str | None, str]]) -> list[str]:
    """The serving rooms in the order the walk first enters them."""
    seen: list[str] = []
    for _, module in entries:
        room = ".".join(module.split(".")[:2])
        if room.startswith("serving") and room not in seen:
            seen.append(room)
    return seen


def search_walk(home: Path, query: str):
    """Warm a server context over `home`, then walk one search_documents call."""
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from serving.mcp.server import ServingContext
    from serving.tools import search_documents as tool

    context = ServingContext(StateLayout(home), ServedConfig.from_env())
    context.ensure_coherent()
    context.engine.parts.warm_up()
    args = tool.SearchDocumentsInput(query=query)
    tool.handle(context, args)  # once, so that every lazily built part is there
    return walk(tool.handle, context, args)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, required=True, help="state dir (read only)")
    parser.add_argument("--query", default=DEFAULT_QUERY)
    args = parser.parse_args(argv)
    _, entries, reentries = search_walk(args.home, args.query)
    counts = Counter(module for _, module in entries)
    figures = {"rooms": rooms(entries), "modules": dict(counts), "reentries": reentries}
    lines = ["rooms entered, in order: " + " -> ".join(r.removeprefix("serving.") for r in figures["rooms"])]
    lines += [f"{module}: entered {n} time(s)" for module, n in counts.items()]
    lines.append(f"re-entries (a module called into while on the stack): {len(reentries)}")
    lines += [" -> ".join(stack) for stack in reentries]
    harness.emit(args, figures, lines)
    return 1 if reentries else 0


if __name__ == "__main__":
    sys.exit(main())
