"""Experiments stay out of the product: the wheel does not ship them, no product module imports
them, and each experiment script's imports resolve (they run rarely)."""

from __future__ import annotations

import importlib
import tomllib

import pytest
from test_import_graph import PACKAGES, REPO, import_graph

FOLDER = REPO / "experiments"
SCRIPTS = sorted(p.stem for p in FOLDER.glob("*.py") if p.name != "__init__.py")


def test_the_wheel_ships_no_experiment():
    from setuptools import find_packages

    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    shipped = find_packages(str(REPO), include=settings["packages"]["find"]["include"])
    assert "evaluation" in shipped and not [p for p in shipped if "experiments" in p.split(".")]


def test_no_product_module_imports_the_experiments():
    graph = import_graph((*PACKAGES, "experiments"))
    assert graph["experiments.finetune.pipeline"]  # the experiments are in the graph read
    strays = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0] in PACKAGES
        for target in targets
        if target.split(".")[0] == "experiments"
    )
    assert strays == []


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_experiment_script_and_what_it_imports_loads(script):
    import ast

    module = importlib.import_module(f"experiments.{script}")
    tree = ast.parse((FOLDER / f"{script}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # the scripts import inside their functions
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module.split(".")[0] in ("corpus", "ingest", "serving", "evaluation", "experiments")
        ):
            imported = importlib.import_module(node.module)
            assert all(hasattr(imported, alias.name) for alias in node.names), (module.__name__, node.module)
