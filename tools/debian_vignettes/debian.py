"""Debian's side: listing packages (apt-file, apt-cache), fetching a .deb, unpacking it, and reading
the control-style files a package ships (DESCRIPTION, the DEP-5 copyright file)."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

Runner = Callable[[Sequence[str]], str]  # a command line -> its stdout (raises CommandError)


class CommandError(RuntimeError):
    """A command that failed, with the line of its error output that says why."""


class FetchError(RuntimeError):
    """A package version that could not be fetched."""


def run_command(cmd: Sequence[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, errors="replace", check=False)
    except FileNotFoundError as exc:
        raise CommandError(f"{cmd[0]} is not installed") from exc
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("E:")] or lines[-1:] or [f"exit status {done.returncode}"]
        raise CommandError(f"{' '.join(cmd[:2])}: {errors[0]}")
    return done.stdout


# ---- control-style fields (DESCRIPTION, apt-cache show, copyright) --------------------------------


def parse_fields(text: str) -> list[dict[str, str]]:
    """Paragraphs of `Field: value` lines (continuation lines start with white space), keys as
    written; a continuation's leading white space is kept as one newline + the line stripped."""
    paragraphs: list[dict[str, str]] = []
    current: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if not line.strip():
            if current:
                paragraphs.append(current)
            current, key = {}, None
        elif line[0] in " \t" and key is not None:
            current[key] += "\n" + line.strip()
        elif ":" in line and not line[0].isspace():
            key, _, value = line.partition(":")
            key = key.strip()
            current[key] = value.strip()
    if current:
        paragraphs.append(current)
    return paragraphs


def read_text(path: Path) -> str:
    """A text file as UTF-8, or Latin-1 where it is not (older vignettes and DESCRIPTION files)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def copyright_licence(text: str) -> tuple[str, str] | None:
    """(licence, evidence) from a Debian copyright file: in the machine-readable format the
    `License:` of the `Files: *` paragraph, else the first `License:` line of the file."""
    paragraphs = parse_fields(text)
    if paragraphs and "copyright-format" in paragraphs[0].get("Format", ""):
        with_files = [p for p in paragraphs if "Files" in p and "License" in p]
        for paragraph in sorted(with_files, key=lambda p: p["Files"].split()[:1] != ["*"]):
            licence = paragraph["License"].splitlines()[0].strip()
            if licence:
                files = " ".join(paragraph["Files"].split())
                return licence, f"copyright: 'License: {licence}' (Files: {files[:40]})"
    match = re.search(r"^License:[ \t]*(\S[^\n]*)$", text, re.MULTILINE | re.IGNORECASE)
    if match:
        licence = match.group(1).strip()
        return licence, f"copyright: 'License: {licence}'"
    return None


# ---- discovering the packages ------------------------------------------------------------------

# Where R installs a package's vignettes (`doc/`), and the top of the package's Debian doc folder.
PDF_PATH_RE = r"^/usr/(lib/R/(site-)?library/[^/]+/doc|share/doc/r-cran-[^/]+)/[^/]+\.pdf$"


@dataclass(frozen=True)
class Candidate:
    package: str
    version: str
    architecture: str
    deb_sha256: str


def pdfs_by_package(run: Runner) -> dict[str, list[str]]:
    """r-cran-* package -> the PDF paths (no leading '/') its file list holds, from apt-file."""
    found: dict[str, list[str]] = {}
    for line in run(["apt-file", "search", "--regexp", PDF_PATH_RE]).splitlines():
        package, sep, path = line.partition(": ")
        if sep and package.startswith("r-cran-"):
            found.setdefault(package, []).append(path.strip().lstrip("/"))
    return {package: sorted(paths) for package, paths in sorted(found.items())}


def candidates(run: Runner, packages: Sequence[str]) -> dict[str, Candidate]:
    """The version apt would install now for each package, with its architecture and .deb sha256."""
    found: dict[str, Candidate] = {}
    for start in range(0, len(packages), 200):
        text = run(["apt-cache", "show", "--no-all-versions", *packages[start : start + 200]])
        for fields in parse_fields(text):
            if "Package" in fields and fields["Package"] not in found:
                found[fields["Package"]] = Candidate(
                    fields["Package"],
                    fields.get("Version", ""),
                    fields.get("Architecture", ""),
                    fields.get("SHA256", ""),
                )
    return found


# ---- fetching and unpacking -------------------------------------------------------------------


class Fetcher(Protocol):
    def fetch(self, package: str, version: str, into: Path) -> Path:
        """The .deb of `package` at `version`, placed in (or found from) `into`; FetchError if none."""
        ...


def deb_file_version(version: str) -> str:
    """A version as Debian writes it in a .deb's file name (the epoch's ':' as '%3a')."""
    return version.replace(":", "%3a")


class AptFetcher:
    """`apt-get download PACKAGE=VERSION` (apt checks the archive's signatures and sha256)."""

    def fetch(self, package: str, version: str, into: Path) -> Path:
        into.mkdir(parents=True, exist_ok=True)
        try:
            run_command(["apt-get", "download", "-q", f"{package}={version}"], cwd=into)
        except CommandError as exc:
            raise FetchError(str(exc)) from exc
        debs = sorted(into.glob(f"{package}_*.deb"))
        if not debs:
            raise FetchError(f"apt-get download left no {package}_*.deb")
        return debs[0]


class FolderFetcher:
    """.deb files already on disk (`build --debs FOLDER`, and the tests): `<package>_<version>_*.deb`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def fetch(self, package: str, version: str, into: Path) -> Path:
        debs = sorted(self.folder.glob(f"{package}_{deb_file_version(version)}_*.deb"))
        if not debs:
            raise FetchError(f"no {package}_{deb_file_version(version)}_*.deb in {self.folder}")
        return debs[0]


def unpack(deb: Path, into: Path) -> None:
    """Extract the package's files (`dpkg-deb -x`; where dpkg-deb is absent, the same read in Python)."""
    into.mkdir(parents=True, exist_ok=True)
    if shutil.which("dpkg-deb"):
        run_command(["dpkg-deb", "-x", str(deb), str(into)])
    else:
        unpack_in_python(deb, into)


def unpack_in_python(deb: Path, into: Path) -> None:
    """A .deb is an `ar` archive whose `data.tar.*` member holds the files (gzip, xz or bzip2 here;
    zstd, which Debian does not use, is refused)."""
    data = deb.read_bytes()
    if not data.startswith(b"!<arch>\n"):
        raise CommandError(f"{deb.name}: not a Debian package (no ar header)")
    at = 8
    while at + 60 <= len(data):
        header = data[at : at + 60]
        name = header[:16].decode("ascii", "replace").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        body = data[at + 60 : at + 60 + size]
        if name.startswith("data.tar"):
            if name.endswith(".zst"):
                raise CommandError(f"{deb.name}: {name} is zstd-compressed; install dpkg-deb to read it")
            with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as archive:
                # "tar", not "data": packages hold absolute links (resolve_inside reads them inside
                # the package); no member is written outside `into` under either filter
                archive.extractall(into, filter="tar")
            return
        at += 60 + size + (size % 2)
    raise CommandError(f"{deb.name}: no data.tar member")


def resolve_inside(root: Path, path: Path, hops: int = 8) -> Path | None:
    """`path` (a file under the unpacked `root`) with its symbolic links followed inside `root`: an
    absolute target is read from `root`, never from this machine. None where a link dangles or
    leads out of the package."""
    parts = path.relative_to(root).parts
    for _ in range(hops):
        current = root.joinpath(*parts)
        if not current.is_symlink():
            inside = current.resolve().is_relative_to(root.resolve())  # no linked folder leads out
            return current if inside and current.is_file() else None
        target = Path(os.readlink(current))
        joined = target.parts[1:] if target.is_absolute() else parts[:-1] + target.parts
        parts = _normalise(joined)
        if not parts or parts[0] == "..":
            return None
    return None


def _normalise(parts: tuple[str, ...]) -> tuple[str, ...]:
    """'a/b/../c' -> ('a', 'c'); a leading '..' is kept (it leaves the root)."""
    out: list[str] = []
    for part in parts:
        if part == ".." and out and out[-1] != "..":
            out.pop()
        elif part not in (".", ""):
            out.append(part)
    return tuple(out)
