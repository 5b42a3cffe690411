"""Display formulas as LaTeX, where the user has a formula-recognition model.

No formula-OCR model ships offline, so none runs by default: the text layer is kept and a formula
whose layout it lost is marked `formula_text_unreliable` (ingest.parsing.formula_layout). Set
QUANT_RAG_FORMULA_RECOGNISER (corpus.config) to `package.module:callable` or
`/path/to/file.py:callable`. The callable receives the PNG bytes of one display formula's page
region (corpus.reading.page_images.render_png, the crop get_passage serves) and returns its LaTeX without
delimiters, or None to keep the text layer. A MinerU (UniMERNet), pix2tex or Nougat model wraps
into such a callable in a few lines. It must be deterministic: the recogniser's name enters the
parser version, and one parser version must always write the same canonical text.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from collections.abc import Callable
from functools import cache
from pathlib import Path

from corpus.config import FORMULA_RECOGNISER_ENV, formula_recogniser_setting
from corpus.models import BlockKind, RawBlock
from corpus.reading.page_images import crop_boxes, render_png

log = logging.getLogger(__name__)
Recogniser = Callable[[bytes], "str | None"]


class RecogniserUnavailable(RuntimeError):
    """The configured recogniser cannot be loaded."""


def recogniser_name(spec: str) -> str:
    """A short, path-free name of the recogniser (what the parser version records)."""
    target, _, attr = spec.rpartition(":")
    return f"{Path(target).stem if target.endswith('.py') else target}:{attr}"


@cache
def load_recogniser(spec: str) -> Recogniser:
    """The callable named by `spec` (see the module docstring)."""
    target, _, attr = spec.rpartition(":")
    if not target or not attr:
        raise RecogniserUnavailable(
            f"{FORMULA_RECOGNISER_ENV}={spec!r}: expected 'module:callable' or '/path/to/file.py:callable'"
        )
    try:
        if target.endswith(".py"):
            name = f"_formula_recogniser_{Path(target).stem}"
            module_spec = importlib.util.spec_from_file_location(name, target)
            if module_spec is None or module_spec.loader is None:
                raise ImportError(f"cannot load {target}")
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
        recogniser = getattr(module, attr)
    except (ImportError, AttributeError, OSError) as exc:
        raise RecogniserUnavailable(f"{FORMULA_RECOGNISER_ENV}={spec!r} cannot be loaded: {exc}") from exc
    if not callable(recogniser):
        raise RecogniserUnavailable(f"{FORMULA_RECOGNISER_ENV}={spec!r} is not callable")
    return recogniser


def configured() -> str | None:
    """The recogniser's name when one is configured, else None."""
    spec = formula_recogniser_setting()
    return recogniser_name(spec) if spec else None


def recognise_formulas(path: Path, blocks: list[RawBlock]) -> list[RawBlock]:
    """`blocks` with each display formula's text replaced by the configured recogniser's LaTeX
    (marked `recognised_by`, no longer unreliable); unchanged when none is configured."""
    spec = formula_recogniser_setting()
    if not spec:
        return blocks
    recognise, name = load_recogniser(spec), recogniser_name(spec)
    out: list[RawBlock] = []
    for block in blocks:
        if block.kind is BlockKind.formula and block.regions and block.recognised_by is None:
            latex = _latex(recognise, path, block)
            if latex:
                block = block.model_copy(
                    update={"text": f"$$\n{latex}\n$$", "recognised_by": name, "formula_text_unreliable": False}
                )
        out.append(block)
    return out


def _latex(recognise: Recogniser, path: Path, block: RawBlock) -> str | None:
    rendered = render_png(path, crop_boxes(block.regions)[0])
    if rendered is None:
        return None
    try:
        latex = recognise(rendered[0])
    except Exception:  # one formula the model cannot read keeps its text layer; the rest go on
        log.warning("formula recogniser failed on page %s of %s", block.page_start, path.name, exc_info=True)
        return None
    latex = (latex or "").strip().strip("$").strip()
    return latex if latex and "$$" not in latex else None  # a stray $$ would end the display early
