"""A package reaches another package only through its public names: no `x._name` where `_name` is
a private attribute or function another package defines, and no import of another package's
private name or module. Read from the source with `ast`: a private name is one with a leading
underscore that is not a dunder; where it is defined is where a class, function, module-level
name, class attribute or `self._name` / `cls._name` assignment introduces it."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Every package's private names are guarded, and every package's accesses checked.
PACKAGES = ("corpus", "ingest", "assets", "orchestration", "serving", "evaluation", "cli", "benchmarks")
ATTRIBUTE_FUNCTIONS = ("getattr", "setattr", "hasattr", "delattr")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _files(package: str) -> list[Path]:
    return sorted(p for p in (REPO / package).rglob("*.py") if "__pycache__" not in p.parts)


def _package(path: Path) -> str:
    return path.relative_to(REPO).parts[0]


@cache
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _self_attribute(node: ast.AST) -> str | None:
    """`_name` of `self._name` / `cls._name`, else None."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("self", "cls")
        and _is_private(node.attr)
    ):
        return node.attr
    return None


def _defined(tree: ast.Module) -> set[str]:
    """The private names a module introduces."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _is_private(node.name):
            names.add(node.name)
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name) and _is_private(leaf.id):
                    names.add(leaf.id)
                elif (own := _self_attribute(leaf)) is not None:
                    names.add(own)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in ("self", "cls")
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _is_private(node.args[1].value)
        ):
            names.add(node.args[1].value)
    return names


def private_names() -> dict[str, set[str]]:
    """Private name -> the packages that define it."""
    owners: dict[str, set[str]] = defaultdict(set)
    for package in PACKAGES:
        for path in _files(package):
            for name in _defined(_parse(path)):
                owners[name].add(package)
    return owners


def _class_names(tree: ast.Module) -> dict[ast.AST, set[str]]:
    """Each node inside a class -> the private names that class defines (its own instances' names
    may be read on another instance of it: `other._key` in `__eq__`)."""
    inside: dict[ast.AST, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            own = _defined(ast.Module(body=node.body, type_ignores=[]))
            for child in ast.walk(node):
                inside.setdefault(child, set()).update(own)
    return inside


def _imported_module(node: ast.ImportFrom, path: Path) -> str:
    if not node.level:
        return node.module or ""
    anchor = list(path.relative_to(REPO).with_suffix("").parts)
    anchor = anchor[: len(anchor) - node.level]
    return ".".join(anchor + ([node.module] if node.module else []))


def violations(path: Path, owners: dict[str, set[str]]) -> list[str]:
    """`file:line name` for each reach into another package's private names."""
    package, tree = _package(path), _parse(path)
    inside = _class_names(tree)
    where = path.relative_to(REPO).as_posix()
    found = []

    def foreign(name: str, node: ast.AST) -> bool:
        return bool(owners.get(name, set()) - {package}) and name not in inside.get(node, set())

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr) and _self_attribute(node) is None:
            if foreign(node.attr, node):
                found.append(f"{where}:{node.lineno} .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ATTRIBUTE_FUNCTIONS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _is_private(node.args[1].value)
            and not (isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls"))
        ):
            if foreign(node.args[1].value, node):
                found.append(f"{where}:{node.lineno} {node.func.id}(…, {node.args[1].value!r})")
        elif isinstance(node, ast.ImportFrom):
            module = _imported_module(node, path)
            if module.split(".")[0] not in PACKAGES or module.split(".")[0] == package:
                continue
            private = [part for part in module.split(".") if _is_private(part)]
            private += [alias.name for alias in node.names if _is_private(alias.name)]
            found.extend(f"{where}:{node.lineno} from {module} import {name}" for name in private)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in PACKAGES and parts[0] != package and any(map(_is_private, parts)):
                    found.append(f"{where}:{node.lineno} import {alias.name}")
    return found


@cache
def _all_violations() -> dict[str, list[str]]:
    owners = private_names()
    return {
        path.relative_to(REPO).as_posix(): found
        for package in PACKAGES
        for path in _files(package)
        if (found := violations(path, owners))
    }


def test_no_package_reaches_into_another_packages_private_names():
    assert _all_violations() == {}


def test_the_walk_sees_attributes_string_attributes_and_imports(tmp_path, monkeypatch):
    monkeypatch.setattr("tests.test_private_access.REPO", tmp_path)
    (tmp_path / "serving").mkdir()
    (tmp_path / "serving" / "engine.py").write_text(
        "class Engine:\n    def __init__(self):\n        self._vectors = None\n\ndef _helper():\n    pass\n"
    )
    (tmp_path / "evaluation").mkdir()
    probe = tmp_path / "evaluation" / "probe.py"
    probe.write_text(
        "from serving.retrieval.engine import Engine, _helper\n"
        "class Own:\n    def __init__(self):\n        self._key = 1\n"
        "    def __eq__(self, other):\n        return self._key == other._key\n"
        "engine = Engine()\nengine._vectors = 1\ngetattr(engine, '_vectors')\nengine._unknown\n"
    )
    owners = {"_vectors": {"serving"}, "_helper": {"serving"}, "_key": {"evaluation"}}
    assert violations(probe, owners) == [
        "evaluation/probe.py:1 from serving.retrieval.engine import _helper",
        "evaluation/probe.py:8 ._vectors",
        "evaluation/probe.py:9 getattr(…, '_vectors')",
    ]
