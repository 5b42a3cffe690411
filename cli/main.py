"""`quant-rag` entry point: dispatches to the reader side (serving) or the writer side (orchestration).

Nothing heavy is imported here, so `quant-rag serve` never loads dagster.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "serve": ("serving.cli", "serve", "run the MCP stdio server"),
    "search": ("serving.cli", "search", "search the library from the shell"),
    "verify": ("serving.cli", "verify", "verify a quote against a document"),
    "doctor": ("serving.cli", "doctor", "check every artefact the server needs"),
    "ingest": ("orchestration.cli", "ingest", "ingest and index the bundled library or given files"),
    "remove": ("orchestration.cli", "remove", "remove one document symmetrically"),
    "freeze": ("orchestration.cli", "freeze", "freeze the corpus signature (--reason)"),
    "unfreeze": ("orchestration.cli", "unfreeze", "unfreeze the corpus signature (--reason)"),
    "eval": ("orchestration.cli", "evaluate", "run a benchmark with paired comparisons (a Dagster run)"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        lines = [f"  {name:<9} {help_}" for name, (_, _, help_) in COMMANDS.items()]
        print("usage: quant-rag COMMAND [ARGS]\n\ncommands:\n" + "\n".join(lines), file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    module_name, function_name, _ = COMMANDS[argv[0]]
    module = importlib.import_module(module_name)
    if function_name in ("freeze", "unfreeze"):
        return module.freeze_command(argv[1:], function_name)
    return getattr(module, function_name)(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
