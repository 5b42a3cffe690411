"""Every import in benchmarks/*.py resolves: the scripts run rarely, so a moved function would
otherwise surface only when someone reproduces a README figure (a moved function or a
package-style import breaks a script silently)."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def _imports(script: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import statement at any depth of `script` (names empty for `import m`)."""
    found = []
    for node in ast.walk(ast.parse(script.read_text(), filename=str(script))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__":
            found.append((node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
    return found


@pytest.fixture()
def script_path():
    """The benchmarks folder on sys.path, as it is when a script runs as `python benchmarks/X.py`.

    Only that entry is removed after: monkeypatch.syspath_prepend restores the whole list, which also
    dropped the folder onnxruntime.transformers appends when first imported (its optimizer then
    failed with `No module named 'fusion_options'` in every later export of that process)."""
    sys.path.insert(0, str(BENCHMARKS))
    yield
    sys.path.remove(str(BENCHMARKS))


def test_the_walk_sees_imports_inside_functions(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text("import os\n\ndef main():\n    from corpus.config import ServedConfig, nothing\n")
    assert _imports(script) == [("os", []), ("corpus.config", ["ServedConfig", "nothing"])]


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_every_import_resolves(script, script_path):
    missing = []
    for module, names in _imports(script):
        top = module.split(".")[0]
        if top in ("benchmarks", "tests"):  # on pytest's path, not on a script's
            missing.append(module)
            continue
        if module == "conftest":  # serving_latency.py --fixture puts tests/serving on its path first
            source = (BENCHMARKS.parent / "tests" / "serving" / "conftest.py").read_text()
            missing.extend(f"conftest.{name}" for name in names if f"def {name}(" not in source)
            continue
        if top not in sys.modules and importlib.util.find_spec(top) is None:
            missing.append(module)  # an optional tool of one benchmark would be listed here
            continue
        loaded = importlib.import_module(module)
        missing.extend(
            f"{module}.{name}"
            for name in names
            if name != "*" and not hasattr(loaded, name) and importlib.util.find_spec(f"{module}.{name}") is None
        )
    assert not missing, f"{script.name} imports what does not exist: {missing}"
