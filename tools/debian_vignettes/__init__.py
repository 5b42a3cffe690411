"""A larger corpus, reproducibly: the PDF vignettes of Debian's R packages (`r-cran-*`).

    python -m tools.debian_vignettes discover --out bench/debian_vignettes/packages.tsv
    python -m tools.debian_vignettes build --packages bench/debian_vignettes/packages.tsv --out /path/to/corpus

`discover` lists, with apt-file and apt-cache, the r-cran-* packages whose .deb ships a PDF in an R
package's `doc/` folder (where R installs vignettes) or in `/usr/share/doc/<package>/`, with the
version, architecture and .deb sha256 apt would fetch. `build` downloads each listed version
(`apt-get download`, or a folder of .deb files with `--debs`), unpacks it into a temporary folder
and writes `pdf/`, `sources/` and `manifest.csv` (`build.py` says what each column holds).
"""
