"""Maintainer tools, run from the repository root as `python -m tools.<name>`.

Not part of the installed package (pyproject.toml's package list leaves `tools` out), so nothing
the pipeline or the server runs can import them, and they may use what a maintainer's machine has
(apt, dpkg) that CI and users need not.
"""
