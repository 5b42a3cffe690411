"""`quant-rag serve | search | verify | doctor`: each takes its argv and returns an exit code.

The top-level dispatcher (cli/main.py) calls these. search and verify run the same tool handlers
as the server, in process, and print the same text rendering (or the structured result as JSON).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def served_config() -> ServedConfig:
    """The configuration from the environment over the state's recorded ranking profile
    (corpus.state.profile); a bad setting exits 2 naming its variable."""
    from corpus.model_folder.model_identity import ModelPathError
    from corpus.profiles import UnknownProfile
    from corpus.state.profile import state_config

    try:
        return state_config(StateLayout.from_env())
    except (ModelPathError, UnknownProfile) as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


def _context():
    from serving.mcp.server import ServingContext

    return ServingContext(StateLayout.from_env(), served_config())


def _run(tool_name: str, arguments: dict, as_json: bool) -> tuple[int, dict]:
    """Run one tool in process; print its rendering (or JSON); errors go to stderr."""
    from mcp_types import TextContent

    from serving.answer.errors import error_payload
    from serving.mcp.server import call_tool
    from serving.mcp.toolset import all_tools

    spec = next(s for s in all_tools() if s.name == tool_name)
    result = call_tool(spec, _context(), arguments)
    if result.is_error:
        error = error_payload(result)["error"]
        print(f"error ({error['code']}): {error['message']}", file=sys.stderr)
        return (EXIT_USAGE if error["code"] == "invalid_argument" else EXIT_FAILED), {}
    if as_json:
        print(json.dumps(result.structured_content, ensure_ascii=False, indent=1))
    else:
        rendering = result.content[0]
        assert isinstance(rendering, TextContent)  # a tool answers its rendering as one text block
        print(rendering.text)
    return EXIT_OK, result.structured_content


def serve(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="quant-rag serve", description="Serve the MCP tools over stdio.")
    parser.add_argument(
        "--no-warm-up", action="store_true", help="do not load the embedding model in the background at start"
    )
    args = parser.parse_args(argv)
    from serving.mcp.server import serve as run_server

    run_server(warm_up=not args.no_warm_up)
    return EXIT_OK


def search(argv: list[str]) -> int:
    from serving.retrieval.engine import MODES

    parser = argparse.ArgumentParser(prog="quant-rag search", description="Search the library.")
    parser.add_argument("query")
    parser.add_argument("--mode", choices=MODES, default=None)
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--year-min", type=int, default=None)
    parser.add_argument("--year-max", type=int, default=None)
    parser.add_argument("--author", default=None)
    parser.add_argument("--document-id", default=None)
    parser.add_argument("--json", action="store_true", help="print the structured result")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    arguments = {
        "query": args.query,
        "limit": args.limit,
        "mode": args.mode,
        "year_min": args.year_min,
        "year_max": args.year_max,
        "author": args.author,
        "document_id": args.document_id,
    }
    return _run("search_documents", {k: v for k, v in arguments.items() if v is not None}, args.json)[0]


def verify(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="quant-rag verify", description="Check that a quote occurs in a document.")
    parser.add_argument("document_id")
    parser.add_argument("quote")
    parser.add_argument("--chunk-id", default=None)
    parser.add_argument("--json", action="store_true", help="print the structured result")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    arguments = {"document_id": args.document_id, "quote": args.quote}
    if args.chunk_id:
        arguments["chunk_id"] = args.chunk_id
    code, result = _run("verify_citation", arguments, args.json)
    if code == EXIT_OK and result.get("status") == "not_found":
        return EXIT_FAILED  # scripts can gate on a quote being found
    return code


def doctor(argv: list[str]) -> int:
    """Print every artefact's coherence and the rebuild command; non-zero when any is off."""
    from serving.coherence import check_state, doctor_text, token_index_line, token_index_state

    parser = argparse.ArgumentParser(
        prog="quant-rag doctor", description="Check that every index matches the corpus state."
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.ERROR)
    from corpus.reading.published import open_published
    from corpus.state.journal import writer_activity

    config = served_config()
    published = open_published(StateLayout.from_env())  # what a server started now would serve
    try:
        layout = published.layout
        report = check_state(layout, config)
        tokens = token_index_state(layout, config, report.signature)
        writers = writer_activity(layout)
    finally:
        published.close()
    if args.json:
        print(
            json.dumps(
                {
                    "root": str(layout.root),
                    "signature": report.signature,
                    "coherent": report.coherent,
                    "rebuild": report.rebuild_commands,
                    "artefacts": [a.__dict__ for a in report.artefacts],
                    "token_index": {"status": tokens[0], "detail": tokens[1]},
                    "published": {"generation": published.generation, **published.manifest},
                    "writers": writers,
                },
                indent=1,
            )
        )
    else:
        print(
            f"state: {layout.root}\n"
            + "\n".join(_published_lines(published, writers))
            + "\n"
            + doctor_text(report, (token_index_line(*tokens, report.signature),))
        )
    return EXIT_OK if report.coherent else EXIT_FAILED


def _published_lines(published, writers: list[dict]) -> list[str]:
    """Which generation readers open, and any ingest at work or killed midway."""
    if published.generation is None:
        lines = ["published: none - the state directory is read in place (the next `quant-rag ingest` publishes it)"]
    else:
        m = published.manifest
        lines = [
            f"published: {published.generation} (signature {m.get('signature', '-')}, "
            f"{m.get('documents', '-')} documents, at {m.get('published_at', '-')}); "
            f"servers started now serve it"
        ]
    for w in writers:
        what = f"opened at {w['opened_at']} ({w['files']} files, {w['documents']} documents)"
        lines.append(
            f"{w['action']} in progress: {what}, writer pid {w['pid']}; readers keep the "
            f"published state until it publishes the next"
            if w["live"]
            else f"interrupted {w['action']}: {what}, its writer is gone; the next `quant-rag ingest` repairs it"
        )
    return lines
