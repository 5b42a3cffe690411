"""`build`: the listed package versions -> DIR/pdf/, DIR/sources/ and DIR/manifest.csv.

Each PDF goes to `pdf/<package>__<file>.pdf`, its vignette source (same stem, beside it) to
`sources/<package>__<file>.<ext>`. Manifest columns: those of library/manifest.csv that apply, in its
order and format (authors joined by '; '), then this corpus's own:

file, title, authors, year, licence, source_repo (`debian:<package>`), source_path (the path inside
the .deb), sha256, bytes, format, licence_evidence, vignette_source, notes; package, version,
r_package, title_from, authors_from, year_from (which declaration gave the field, see
vignette_meta.py), vignette_source_sha256.

Idempotent: a package whose rows in an existing manifest have its listed version and whose files are
all present with their sha256 is not fetched again (`--force` fetches and rederives it all the
same). A package that fails (not fetched, not unpacked, no PDF) is reported with its reason, keeps
the rows it had, and the others go on.
"""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tools.debian_vignettes.debian import (
    CommandError,
    Fetcher,
    FetchError,
    copyright_licence,
    parse_fields,
    read_text,
    resolve_inside,
    unpack,
)
from tools.debian_vignettes.vignette_meta import (
    Metadata,
    asis_title,
    description_metadata,
    index_titles,
    source_metadata,
    strip_comments,
    usable_title,
)

COLUMNS = [
    "file", "title", "authors", "year", "licence", "source_repo", "source_path", "sha256", "bytes", "format",
    "licence_evidence", "vignette_source", "notes",
    "package", "version", "r_package", "title_from", "authors_from", "year_from", "vignette_source_sha256",
]  # fmt: skip
PACKAGE_COLUMNS = ["package", "version", "architecture", "deb_sha256", "pdfs"]
SOURCE_SUFFIXES = (".Rnw", ".Rmd", ".Rtex", ".Snw", ".rnw", ".rmd", ".Rmarkdown", ".tex", ".lyx")
R_LIBRARIES = ("usr/lib/R/site-library", "usr/lib/R/library")

Log = Callable[[str], None]


@dataclass(frozen=True)
class PackageSpec:
    package: str
    version: str
    architecture: str = ""
    deb_sha256: str = ""
    pdfs: tuple[str, ...] = ()


@dataclass
class Report:
    built: list[str] = field(default_factory=list)
    up_to_date: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    passed_over: list[str] = field(default_factory=list)  # PDFs of built packages left out, with why
    rows: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        rows = self.rows
        with_source = sum(bool(r["vignette_source"]) for r in rows)
        lines = [
            f"{len(self.built) + len(self.up_to_date)} packages ({len(self.built)} built, "
            f"{len(self.up_to_date)} up to date), {len(self.failed)} failed; {len(rows)} PDFs, {with_source} with "
            f"their source; in {self.seconds:.0f} s",
        ]
        for name in ("title", "authors", "year"):
            have = [r for r in rows if r[name]]
            own = sum(1 for r in have if not r[f"{name}_from"].startswith("DESCRIPTION"))
            lines.append(
                f"  {name}: {len(have)} of {len(rows)} ({own} from the vignette, {len(have) - own} DESCRIPTION)"
            )
        lines += [f"  passed over {what}" for what in self.passed_over]
        lines += [f"  FAILED {package}: {reason}" for package, reason in sorted(self.failed.items())]
        return "\n".join(lines)


def read_packages(path: Path) -> list[PackageSpec]:
    """The package list written by `discover` (tab-separated, '#' lines are comments)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    specs = []
    for row in csv.DictReader(lines, delimiter="\t"):
        pdfs = tuple(p for p in (row.get("pdfs") or "").split(";") if p)
        specs.append(
            PackageSpec(
                row["package"], row["version"], row.get("architecture") or "", row.get("deb_sha256") or "", pdfs
            )
        )
    return specs


def write_packages(path: Path, specs: Iterable[PackageSpec], comments: Iterable[str] = ()) -> None:
    lines = [f"# {comment}" for comment in comments] + ["\t".join(PACKAGE_COLUMNS)]
    lines += ["\t".join([s.package, s.version, s.architecture, s.deb_sha256, ";".join(s.pdfs)]) for s in specs]
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(path, ("\n".join(lines) + "\n").encode("utf-8"))


def read_manifest(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_manifest(path: Path, rows: list[dict[str, str]]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda r: r["file"]))
    os.replace(tmp, path)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _place(source: Path, target: Path, sha256: str) -> bool:
    """Copy `source` to `target` unless it is there with the same sha256; True when written."""
    if target.exists() and sha256_file(target) == sha256:
        return False
    tmp = target.with_name(f".{target.name}.tmp")
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)
    return True


def up_to_date(out: Path, spec: PackageSpec, rows: list[dict[str, str]]) -> bool:
    """The package's rows are of its listed version and every file they name is there, unchanged."""
    if not rows or any(r["version"] != spec.version for r in rows):
        return False
    for row in rows:
        pdf = out / row["file"]
        if not pdf.is_file() or sha256_file(pdf) != row["sha256"]:
            return False
        if row["vignette_source"]:
            source = out / row["vignette_source"]
            if not source.is_file() or sha256_file(source) != row["vignette_source_sha256"]:
                return False
    return True


def build(
    specs: list[PackageSpec],
    out: Path,
    fetcher: Fetcher,
    log: Log = lambda line: print(line, file=sys.stderr),
    force: bool = False,
) -> Report:
    """Build (or bring up to date) the corpus under `out` for `specs`; never raises for one package.
    `force`: fetch every package again and derive its rows anew (after a change to this tool); a file
    already there with the same sha256 is still not rewritten."""
    started = time.monotonic()
    (out / "pdf").mkdir(parents=True, exist_ok=True)
    (out / "sources").mkdir(parents=True, exist_ok=True)
    manifest = out / "manifest.csv"
    by_package: dict[str, list[dict[str, str]]] = {}
    for row in read_manifest(manifest):
        by_package.setdefault(row["package"], []).append(row)
    report = Report()
    for number, spec in enumerate(specs, start=1):
        prefix = f"[{number}/{len(specs)}] {spec.package} {spec.version}:"
        old = by_package.get(spec.package, [])
        if not force and up_to_date(out, spec, old):
            report.up_to_date.append(spec.package)
            log(f"{prefix} up to date ({len(old)} PDFs)")
            continue
        try:
            rows, passed_over, written = build_package(spec, out, fetcher)
        except (FetchError, CommandError, OSError, ValueError) as exc:
            report.failed[spec.package] = str(exc) or type(exc).__name__
            log(f"{prefix} FAILED: {report.failed[spec.package]}")
            continue
        by_package[spec.package] = rows
        report.built.append(spec.package)
        with_source = sum(bool(r["vignette_source"]) for r in rows)
        report.passed_over += [f"{spec.package}: {why}" for why in passed_over]
        skipped = f"; passed over {'; '.join(passed_over)}" if passed_over else ""
        log(f"{prefix} {len(rows)} PDFs, {with_source} with source, {written} files written{skipped}")
        write_manifest(manifest, [r for package_rows in by_package.values() for r in package_rows])
    report.rows = [r for package_rows in by_package.values() for r in package_rows]
    write_manifest(manifest, report.rows)
    report.seconds = time.monotonic() - started
    return report


def build_package(spec: PackageSpec, out: Path, fetcher: Fetcher) -> tuple[list[dict[str, str]], list[str], int]:
    """Fetch, unpack and copy one package's PDFs and sources: (its manifest rows, the PDFs passed over
    with why, the number of files written)."""
    with tempfile.TemporaryDirectory(prefix=f"{spec.package}-") as tmp:
        deb = fetcher.fetch(spec.package, spec.version, Path(tmp) / "deb")
        if spec.deb_sha256 and deb.name.endswith(f"_{spec.architecture}.deb"):
            actual = sha256_file(deb)
            if actual != spec.deb_sha256:
                raise FetchError(f"{deb.name}: sha256 {actual[:12]}… is not the listed {spec.deb_sha256[:12]}…")
        root = Path(tmp) / "root"
        unpack(deb, root)
        return _collect(spec, root, out)


def _r_package_dirs(root: Path) -> list[Path]:
    return sorted(d.parent for lib in R_LIBRARIES for d in (root / lib).glob("*/DESCRIPTION"))


def _collect(spec: PackageSpec, root: Path, out: Path) -> tuple[list[dict[str, str]], list[str], int]:
    """The package's rows, the PDFs passed over (with why), and how many files were written."""
    r_dirs = _r_package_dirs(root)
    pdfs = sorted(p for d in r_dirs for p in (d / "doc").glob("*.pdf"))
    pdfs += sorted((root / "usr/share/doc" / spec.package).glob("*.pdf"))
    if not pdfs:
        raise ValueError("no PDF in an R package's doc/ or in usr/share/doc/<package>/")
    description_path = r_dirs[0] / "DESCRIPTION" if r_dirs else None
    description = parse_fields(read_text(description_path))[0] if description_path else {}
    r_package = description.get("Package", r_dirs[0].name if r_dirs else "")
    licence, evidence = _licence(root, spec, description)
    rows: list[dict[str, str]] = []
    passed_over: list[str] = []
    seen: dict[str, str] = {}  # sha256 -> manifest file of the copy kept
    written = 0
    for found in pdfs:
        inside = found.relative_to(root).as_posix()
        pdf = resolve_inside(root, found)
        if pdf is None:
            passed_over.append(f"{inside}: a link that dangles or leads out of the package")
            continue
        sha256 = sha256_file(pdf)
        if sha256 in seen:  # the same PDF twice (doc/ and usr/share/doc/): one copy, the first
            kept = next(r for r in rows if r["file"] == seen[sha256])
            kept["notes"] = "; ".join(filter(None, [kept["notes"], f"also shipped as {inside}"]))
            continue
        name = f"{spec.package}__{pdf.name}"
        if f"pdf/{name}" in {r["file"] for r in rows}:  # same name, other bytes: keep both
            name = f"{spec.package}__{pdf.stem}__{len(rows) + 1}.pdf"
        written += _place(pdf, out / "pdf" / name, sha256)
        row = {
            "file": f"pdf/{name}",
            "licence": licence,
            "source_repo": f"debian:{spec.package}",
            "source_path": inside,
            "sha256": sha256,
            "bytes": str(pdf.stat().st_size),
            "format": "pdf",
            "licence_evidence": evidence,
            "vignette_source": "",
            "vignette_source_sha256": "",
            "notes": "",
            "package": spec.package,
            "version": spec.version,
            "r_package": r_package,
        }
        source = _source_beside(found, pdf, r_dirs)
        meta = Metadata()
        stems = {found.stem, pdf.stem}
        if source is not None:
            source_sha = sha256_file(source)
            source_name = f"{spec.package}__{pdf.stem}{source.suffix}"
            written += _place(source, out / "sources" / source_name, source_sha)
            row |= {"vignette_source": f"sources/{source_name}", "vignette_source_sha256": source_sha}
            stems.add(source.stem)
            text = read_text(source)
            source_metadata(source, text, meta, stems)
            if "\\includepdf" in strip_comments(text):
                row["notes"] = "the source only includes a prebuilt PDF (\\includepdf)"
        else:
            row["notes"] = "no vignette source beside the PDF"
        _recorded_title(found, pdf, meta, stems)
        description_metadata(description, meta, stems)
        row |= {
            "title": meta.title,
            "authors": "; ".join(meta.authors),
            "year": meta.year,
            "title_from": meta.title_from,
            "authors_from": meta.authors_from,
            "year_from": meta.year_from,
        }
        seen[sha256] = row["file"]
        rows.append(row)
    if not rows:
        raise ValueError(f"no readable PDF ({'; '.join(passed_over)})")
    return rows, passed_over, written


def _source_beside(found: Path, pdf: Path, r_dirs: list[Path]) -> Path | None:
    """The vignette source with the PDF's stem: beside it, else in the R package's doc/."""
    folders = [found.parent, pdf.parent] + [d / "doc" for d in r_dirs]
    for folder in dict.fromkeys(folders):
        for suffix in SOURCE_SUFFIXES:
            candidate = folder / f"{found.stem}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def _recorded_title(found: Path, pdf: Path, meta: Metadata, stems: set[str]) -> None:
    """What R recorded of the vignette's index entry: an R.rsp `.asis` file, doc/index.html."""
    asis = found.with_name(found.name + ".asis")
    if asis.is_file():
        meta.offer("title", usable_title(asis_title(read_text(asis)), stems), "\\VignetteIndexEntry (.asis)")
    index = found.parent / "index.html"
    if index.is_file():
        title = index_titles(read_text(index)).get(found.name)
        meta.offer("title", usable_title(title, stems), "doc/index.html")


def _licence(root: Path, spec: PackageSpec, description: dict[str, str]) -> tuple[str, str]:
    copyright_file = resolve_inside(root, root / "usr/share/doc" / spec.package / "copyright")
    found = copyright_licence(read_text(copyright_file)) if copyright_file else None
    if found:
        licence, evidence = found
        return licence, f"{evidence} ({spec.package} {spec.version})"
    if description.get("License"):
        licence = " ".join(description["License"].split())
        why = "no License line in the copyright file" if copyright_file else "no copyright file"
        return licence, f"DESCRIPTION: 'License: {licence}' ({why}; {spec.package} {spec.version})"
    return "", "no copyright file licence and no DESCRIPTION License"
