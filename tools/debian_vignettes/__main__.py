"""python -m tools.debian_vignettes {discover,build}: see the package's docstring."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.debian_vignettes.build import build, read_packages
from tools.debian_vignettes.debian import AptFetcher, CommandError, Fetcher, FolderFetcher
from tools.debian_vignettes.discover import discover, write_discovered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.debian_vignettes",
        description="Build a corpus of the PDF vignettes of Debian's r-cran-* packages.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    find = commands.add_parser(
        "discover",
        help="list the r-cran-* packages that ship a PDF vignette (needs apt-file with its index: apt-file update)",
    )
    find.add_argument("--out", type=Path, required=True, help="the package list to write (TSV)")
    make = commands.add_parser("build", help="fetch the listed versions and write pdf/, sources/ and manifest.csv")
    make.add_argument("--packages", type=Path, required=True, help="a package list written by discover")
    make.add_argument("--out", type=Path, required=True, help="the corpus folder (created; reruns skip what is there)")
    make.add_argument("--debs", type=Path, help="read <package>_<version>_*.deb from this folder, not apt-get download")
    make.add_argument(
        "--force", action="store_true", help="fetch every package again and rederive its rows (after changing the tool)"
    )
    make.add_argument("--only", action="append", default=[], metavar="PACKAGE", help="only these packages (repeatable)")
    args = parser.parse_args(argv)

    if args.command == "discover":
        try:
            specs, without_version = discover()
        except CommandError as exc:
            print(f"error: {exc} (apt-get install apt-file && apt-file update)", file=sys.stderr)
            return 1
        write_discovered(args.out, specs)
        pdfs = sum(len(s.pdfs) for s in specs)
        print(f"{len(specs)} packages, {pdfs} PDFs listed in {args.out}", file=sys.stderr)
        for name in without_version:
            print(f"  left out {name}: apt-cache shows no version of it", file=sys.stderr)
        return 0

    specs = read_packages(args.packages)
    if args.only:
        unknown = sorted(set(args.only) - {s.package for s in specs})
        if unknown:
            print(f"error: not in {args.packages}: {', '.join(unknown)}", file=sys.stderr)
            return 2
        specs = [s for s in specs if s.package in args.only]
    fetcher: Fetcher = FolderFetcher(args.debs) if args.debs else AptFetcher()
    report = build(specs, args.out, fetcher, force=args.force)
    print(report.summary(), file=sys.stderr)
    print(f"manifest: {args.out / 'manifest.csv'}", file=sys.stderr)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
