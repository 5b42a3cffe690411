"""Experiments stay out of the product: no module of the pipeline or the server imports
evaluation.experiments, and each experiment script's imports resolve (they run rarely)."""

from __future__ import annotations

import importlib

import pytest
from test_import_graph import REPO, import_graph

PRODUCT = ("ingest", "serving", "corpus", "assets", "orchestration")
SCRIPTS = sorted(p.stem for p in (REPO / "evaluation" / "experiments").glob("*.py") if p.name != "__init__.py")


def test_no_product_module_imports_the_experiments():
    graph = import_graph((*PRODUCT, "evaluation"))
    strays = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0] in PRODUCT
        for target in targets
        if target.startswith("evaluation.experiments")
    )
    assert strays == []


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_experiment_script_and_what_it_imports_loads(script):
    import ast

    module = importlib.import_module(f"evaluation.experiments.{script}")
    tree = ast.parse((REPO / "evaluation" / "experiments" / f"{script}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # the scripts import inside their functions
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module.split(".")[0] in ("corpus", "ingest", "serving", "evaluation")
        ):
            imported = importlib.import_module(node.module)
            assert all(hasattr(imported, alias.name) for alias in node.names), (module.__name__, node.module)
