"""tools/debian_vignettes, offline: the builder runs on a committed fake .deb (fixtures/debian_vignettes,
made by its make_fixture.py) through a folder fetcher, and discover on canned apt output."""

from __future__ import annotations

import csv
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.debian_vignettes.build import COLUMNS, build, read_packages
from tools.debian_vignettes.debian import (
    FetchError,
    FolderFetcher,
    copyright_licence,
    unpack,
    unpack_in_python,
)
from tools.debian_vignettes.discover import discover, write_discovered
from tools.debian_vignettes.vignette_meta import (
    Metadata,
    description_authors,
    latex_authors,
    latex_metadata,
    latex_to_text,
    rmarkdown_metadata,
    simple_yaml,
    usable_title,
)

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "debian_vignettes"
PACKAGES = FIXTURE / "packages.tsv"


class CountingFetcher(FolderFetcher):
    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.calls: list[str] = []

    def fetch(self, package: str, version: str, into: Path) -> Path:
        self.calls.append(package)
        return super().fetch(package, version, into)


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "manifest.csv").open(encoding="utf-8", newline="") as handle:
        return {row["file"]: row for row in csv.DictReader(handle)}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def built(tmp_path):
    out = tmp_path / "corpus"
    lines: list[str] = []
    report = build(read_packages(PACKAGES), out, FolderFetcher(FIXTURE), log=lines.append)
    return out, report, lines


def test_the_fixture_builds_pdf_sources_and_a_manifest(built):
    out, report, lines = built
    rows = _rows(out)
    assert sorted(rows) == [f"pdf/r-cran-fakevig__{n}.pdf" for n in ("alpha", "beta", "gamma")]
    assert sorted(p.name for p in (out / "sources").iterdir()) == [
        "r-cran-fakevig__alpha.Rnw",
        "r-cran-fakevig__beta.Rmd",
    ]
    for row in rows.values():
        assert _sha256(out / row["file"]) == row["sha256"] and int(row["bytes"]) == (out / row["file"]).stat().st_size
        assert (row["package"], row["version"], row["r_package"]) == ("r-cran-fakevig", "1.0-1", "fakevig")
        assert row["licence"] == "GPL-2+"  # the `Files: *` paragraph's, not debian/*'s GPL-3
        assert row["licence_evidence"].startswith("copyright: 'License: GPL-2+' (Files: *)")
        assert row["source_repo"] == "debian:r-cran-fakevig" and row["format"] == "pdf"
    alpha, beta, gamma = (rows[f"pdf/r-cran-fakevig__{n}.pdf"] for n in ("alpha", "beta", "gamma"))
    assert (alpha["title"], alpha["authors"], alpha["year"]) == (
        "The fakevig Alpha Vignette",
        "Grace Hopper; Alan Turing",
        "2019",
    )
    assert (alpha["title_from"], alpha["authors_from"], alpha["year_from"]) == ("\\title", "\\author", "\\date")
    assert alpha["vignette_source"] == "sources/r-cran-fakevig__alpha.Rnw"
    assert alpha["vignette_source_sha256"] == _sha256(out / alpha["vignette_source"])
    assert alpha["source_path"] == "usr/lib/R/site-library/fakevig/doc/alpha.pdf"
    assert "also shipped as usr/share/doc/r-cran-fakevig/alpha.pdf" in alpha["notes"]  # one copy of the same PDF
    # the Rmd's `r Sys.Date()` is no year: DESCRIPTION's Date is
    assert (beta["title"], beta["authors"], beta["year"]) == ("Beta: a walk", "Edsger Dijkstra", "2021")
    assert (beta["title_from"], beta["authors_from"], beta["year_from"]) == (
        "yaml title",
        "yaml author",
        "DESCRIPTION Date",
    )
    # no source: the title R indexed, the authors with an [aut] role in DESCRIPTION (not the [ctb] one)
    assert (gamma["title"], gamma["authors"], gamma["title_from"]) == (
        "Gamma from the index",
        "Ada Lovelace",
        "doc/index.html",
    )
    assert gamma["vignette_source"] == "" and gamma["notes"] == "no vignette source beside the PDF"
    # the dangling link is passed over, the absent package fails with its reason, the rest went on
    assert report.passed_over == [
        "r-cran-fakevig: usr/share/doc/r-cran-fakevig/missing.pdf: a link that dangles or leads out of the package"
    ]
    assert report.built == ["r-cran-fakevig"] and list(report.failed) == ["r-cran-absent"]
    assert "no r-cran-absent_2.0-1_*.deb" in report.failed["r-cran-absent"]
    assert lines[0].startswith("[1/2] r-cran-fakevig 1.0-1: 3 PDFs, 2 with source, 5 files written")
    assert lines[1].startswith("[2/2] r-cran-absent 2.0-1: FAILED")
    summary = report.summary()
    assert "1 packages (1 built, 0 up to date), 1 failed; 3 PDFs, 2 with their source" in summary
    assert "FAILED r-cran-absent" in summary


def test_the_manifest_shares_the_bundled_librarys_columns_in_its_order(built):
    out, _, _ = built
    with (REPO / "library" / "manifest.csv").open(encoding="utf-8") as handle:
        bundled = next(csv.reader(handle))
    header = (out / "manifest.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header == COLUMNS
    shared = [c for c in header if c in bundled]
    assert shared == [c for c in bundled if c in header]
    assert {"file", "title", "authors", "year", "licence", "sha256", "vignette_source"} <= set(shared)


def test_authors_read_back_as_the_ingest_splits_them(built):
    from ingest.passages.metadata_extract import split_authors

    out, _, _ = built
    assert split_authors(_rows(out)["pdf/r-cran-fakevig__alpha.pdf"]["authors"]) == ["Grace Hopper", "Alan Turing"]


def test_a_rerun_fetches_nothing_and_a_changed_file_is_fetched_again(tmp_path):
    out = tmp_path / "corpus"
    specs = [s for s in read_packages(PACKAGES) if s.package == "r-cran-fakevig"]
    build(specs, out, FolderFetcher(FIXTURE), log=lambda _: None)
    first = (out / "manifest.csv").read_bytes()
    fetcher = CountingFetcher(FIXTURE)
    report = build(specs, out, fetcher, log=lambda _: None)
    assert fetcher.calls == [] and report.up_to_date == ["r-cran-fakevig"] and len(report.rows) == 3
    assert (out / "manifest.csv").read_bytes() == first
    damaged = out / "pdf" / "r-cran-fakevig__beta.pdf"
    damaged.write_bytes(b"%PDF-1.4 not the vignette")
    report = build(specs, out, fetcher, log=lambda _: None)
    assert fetcher.calls == ["r-cran-fakevig"] and report.built == ["r-cran-fakevig"]
    assert _sha256(damaged) == _rows(out)["pdf/r-cran-fakevig__beta.pdf"]["sha256"]
    assert (out / "manifest.csv").read_bytes() == first


def test_a_deb_that_is_not_the_listed_one_fails(tmp_path):
    debs = tmp_path / "debs"
    debs.mkdir()
    shutil.copyfile(FIXTURE / "r-cran-fakevig_1.0-1_all.deb", debs / "r-cran-fakevig_1.0-1_all.deb")
    with (debs / "r-cran-fakevig_1.0-1_all.deb").open("ab") as handle:
        handle.write(b"\n")
    specs = [s for s in read_packages(PACKAGES) if s.package == "r-cran-fakevig"]
    report = build(specs, tmp_path / "corpus", FolderFetcher(debs), log=lambda _: None)
    assert "is not the listed" in report.failed["r-cran-fakevig"]
    with pytest.raises(FetchError):
        FolderFetcher(debs).fetch("r-cran-fakevig", "9:9.9-1", tmp_path)


def test_the_python_unpacker_reads_what_dpkg_deb_reads(tmp_path):
    deb = FIXTURE / "r-cran-fakevig_1.0-1_all.deb"
    unpack_in_python(deb, tmp_path / "python")
    files = sorted(p.relative_to(tmp_path / "python").as_posix() for p in (tmp_path / "python").rglob("*"))
    assert "usr/lib/R/site-library/fakevig/doc/alpha.Rnw" in files
    assert (tmp_path / "python/usr/share/doc/r-cran-fakevig/alpha.pdf").is_symlink()
    if shutil.which("dpkg-deb") is None:
        pytest.skip("dpkg-deb is not installed")
    unpack(deb, tmp_path / "dpkg")
    assert sorted(p.relative_to(tmp_path / "dpkg").as_posix() for p in (tmp_path / "dpkg").rglob("*")) == files
    for name in files:
        left, right = tmp_path / "python" / name, tmp_path / "dpkg" / name
        if left.is_file() and not left.is_symlink():
            assert left.read_bytes() == right.read_bytes()


def test_the_command_line_builds_offline(tmp_path):
    out = tmp_path / "corpus"
    command = [sys.executable, "-m", "tools.debian_vignettes", "build", "--packages", str(PACKAGES)]
    command += ["--debs", str(FIXTURE), "--out", str(out)]
    failing = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert failing.returncode == 1 and "FAILED r-cran-absent" in failing.stderr
    passing = subprocess.run(
        [*command, "--only", "r-cran-fakevig"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert passing.returncode == 0, passing.stderr
    assert "[1/1] r-cran-fakevig 1.0-1: up to date (3 PDFs)" in passing.stderr


APT_FILE = """\
r-bioc-affy: /usr/lib/R/site-library/affy/doc/affy.pdf
r-cran-zoo: /usr/lib/R/site-library/zoo/doc/zoo.pdf
r-cran-zoo: /usr/lib/R/site-library/zoo/doc/zoo-faq.pdf
r-cran-gone: /usr/lib/R/site-library/gone/doc/gone.pdf
"""
APT_CACHE = """\
Package: r-cran-zoo
Version: 1.8-11-1
Architecture: amd64
SHA256: 81f27bbee835d9d44d2a410211c813d2da6c2d71f1e37d71b019ab259e182b9b
Description: GNU R package for totally ordered indexed observations
 a continuation line

"""


def test_discover_lists_r_cran_packages_with_their_version(tmp_path):
    def run(cmd):
        return {"apt-file": APT_FILE, "apt-cache": APT_CACHE, "dpkg": "amd64\n"}[cmd[0]]

    specs, without_version = discover(run)
    assert [(s.package, s.version, s.architecture) for s in specs] == [("r-cran-zoo", "1.8-11-1", "amd64")]
    assert specs[0].pdfs == ("usr/lib/R/site-library/zoo/doc/zoo-faq.pdf", "usr/lib/R/site-library/zoo/doc/zoo.pdf")
    assert without_version == ["r-cran-gone"]
    write_discovered(tmp_path / "packages.tsv", specs, run)
    assert read_packages(tmp_path / "packages.tsv") == specs
    assert "amd64" in (tmp_path / "packages.tsv").read_text().splitlines()[1]


def test_latex_fragments_become_plain_text():
    assert latex_to_text(r"\pkg{zoo}: An \proglang{S3} Class\thanks{x {y}}") == "zoo: An S3 Class"
    assert latex_to_text(r"Ferm\'{\i}n, \c{C}a\u{g}lar and K\"oll -- \ss{}") == "Fermín, Çağlar and Köll – ß"
    assert latex_to_text(r"\href{http://x.org}{Daniel M\"ullner}") == "Daniel Müllner"
    assert latex_authors(r"Achim Zeileis\\Universit\"at Innsbruck \And Gabor Grothendieck\\GKX") == [
        "Achim Zeileis",
        "Gabor Grothendieck",
    ]
    assert latex_authors(r"\pkg{zoo} Development Team") == []  # not a person: DESCRIPTION's authors then
    marks = r"Torsten Hothorn$^1$, Kurt Hornik$^2$, Mark van de Wiel$^3$ \\ and Achim Zeileis$^2$"
    assert latex_authors(marks) == ["Torsten Hothorn", "Kurt Hornik", "Mark van de Wiel", "Achim Zeileis"]
    assert latex_authors(r"Achim Zeileis \hspace{0.4cm} Friedrich Leisch") == ["Achim Zeileis", "Friedrich Leisch"]
    assert latex_authors(r"Walter R. Mebane, Jr., Jasjeet S. Sekhon") == ["Walter R. Mebane Jr.", "Jasjeet S. Sekhon"]
    spaced = r"\hfill Achim Zeileis$^\dag$ \hfill Torsten Hothorn$^\ddag$ \hfill \\ \dag {\it Institut f\"ur Statistik}"
    assert latex_authors(spaced) == ["Achim Zeileis", "Torsten Hothorn"]
    one_line = r"{Gilles Blanchard}, Weierstrass Institute for Applied Analysis and Stochastics \and Thorsten Dickhaus"
    assert latex_authors(one_line) == ["Gilles Blanchard", "Thorsten Dickhaus"]  # the affiliation goes whole
    logo = r"\includegraphics[width=5cm]{logo} \\ \href{mailto:b@example.org}{Benedikt Gr{\"a}ler}"
    assert latex_authors(logo) == ["Benedikt Gräler"]
    assert latex_authors("Jonathan Swinton and others") == ["Jonathan Swinton"]
    assert latex_authors("by David Meyer") == ["David Meyer"]


def test_description_authors_keep_the_aut_role():
    author = "Achim Zeileis [aut, cre] (<https://orcid.org/0000-0003-0918-3766>),\nJoshua M. Ulrich [ctb]"
    assert description_authors(author) == ["Achim Zeileis"]
    assert description_authors("Daniel Müllner [cph, cre], Google Inc. [cph]") == ["Daniel Müllner"]
    assert description_authors("John Smith <js@example.org> and Jane Doe") == ["John Smith", "Jane Doe"]
    assert description_authors("Dr. Jens Oehlschlägel [aut, cre]") == ["Jens Oehlschlägel"]
    credits = "Karl W Broman and Hao Wu, with ideas from Gary Churchill and Saunak Sen, and contributions from X Y"
    assert description_authors(credits) == ["Karl W Broman", "Hao Wu"]
    assert description_authors("Stephen Milborrow. Derived from mda:mars by Trevor Hastie") == ["Stephen Milborrow"]


def test_front_matter_without_pyyaml_and_with_r_code():
    block = 'title: "Using X"\ndate: "`r Sys.Date()`"\nauthor:\n  - name: "A B"\n    affiliation: U\n  - C D\n'
    assert simple_yaml(block) == {"title": "Using X", "date": "`r Sys.Date()`", "author": ["A B", "C D"]}
    meta = Metadata()
    rmarkdown_metadata(f"---\n{block}---\nbody\n", meta, {"using-x"})
    assert (meta.title, meta.authors, meta.year) == ("Using X", ["A B", "C D"], "")


def test_no_title_from_a_file_name():
    assert usable_title("zoo-faq", {"zoo-faq"}) is None
    assert usable_title("sandwich.Rnw", {"other"}) is None
    assert usable_title("Using Amelia", {"using-amelia"}) == "Using Amelia"  # declared, and a phrase
    assert usable_title(r"\Sexpr{x}", set()) is None
    assert usable_title("RcppArmadillo-introduction", {"RcppArmadillo-intro"}) is None
    assert usable_title("RcppGSL", {"RcppGSL-intro"}) == "RcppGSL"
    meta = Metadata()
    latex_metadata(r"%\VignetteIndexEntry{NMF: an introduction}" "\n" r"\title{NMF \\ Version \Sexpr{v}}", meta, set())
    assert (meta.title, meta.title_from) == ("NMF: an introduction", "\\VignetteIndexEntry")


def test_a_copyright_file_that_is_not_machine_readable():
    assert copyright_licence("Copyright (C) 2004 A\n\nLicense: GPL-2+\n\nOn Debian ...") == (
        "GPL-2+",
        "copyright: 'License: GPL-2+'",
    )
    assert copyright_licence("GNU General Public License, see /usr/share/common-licenses") is None
