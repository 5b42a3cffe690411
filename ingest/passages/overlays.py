"""Overlays: near-duplicate passages and consolidated display titles, and their files.

Near-duplicates use word shingles: lower-case, non-word runs become spaces, 8-word windows taken
every 4 words (a text shorter than a window is one shingle); two texts are near-duplicates when
the overlap coefficient |A ∩ B| / min(|A|, |B|) reaches the threshold. The overlay compares every
passage of 30 words or more through an inverted index on shingle hashes, so the work grows with
the shared shingles, not with the square of the corpus.
"""

from __future__ import annotations

import re
from collections import defaultdict

from corpus.config import ServedConfig
from corpus.models import DocumentMetadata, Passage
from corpus.state.layout import StateLayout, atomic_write_json, read_json
from ingest.parsing.beir import BEIR_FORMAT
from ingest.passages.integrity import load_passages
from ingest.sources.register import load_source

SHINGLE_WORDS = 8
SHINGLE_STRIDE = 4
MIN_DUPLICATE_WORDS = 30  # shorter passages (headings, captions) are left alone
_WORD_RE = re.compile(r"\w+")
_OFFICE_PREFIX_RE = re.compile(r"^microsoft\s+(word|powerpoint|excel)\s*-\s*", re.IGNORECASE)
_FILE_SUFFIX_RE = re.compile(r"\.(pdf|docx?|pptx?|xlsx?|tex|dvi|rtf|odt)$", re.IGNORECASE)
_TRAILING_PUNCT = " .,;:-–—/"


def words(text: str) -> list[str]:
    """Lower-cased words: the runs left when every run of non-word characters is a space."""
    return _WORD_RE.findall(text.lower())


def shingles(text: str) -> set[int]:
    """Hashes of the 8-word windows taken every 4 words (one window if the text is shorter).
    Python's string hash is salted per process: compare shingles only within one run."""
    return _shingles(words(text))


def _shingles(tokens: list[str]) -> set[int]:
    if not tokens:
        return set()
    starts = range(0, max(1, len(tokens) - SHINGLE_WORDS + 1), SHINGLE_STRIDE)
    return {hash(" ".join(tokens[i : i + SHINGLE_WORDS])) for i in starts}


def _overlap(a: set[int], b: set[int]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def overlap_coefficient(a: str, b: str) -> float:
    """|A ∩ B| / min(|A|, |B|) over the two texts' shingles; 0.0 when either has no words."""
    return _overlap(shingles(a), shingles(b))


def near_duplicates(
    passages: list[Passage], threshold: float = ServedConfig().near_duplicate_threshold
) -> dict[str, str]:
    """chunk_id -> chunk_id of its kept twin. Passages are visited by (document_id, ordinal);
    the first of a group is kept, a later one maps to the earliest kept passage it overlaps."""
    ordered = sorted(passages, key=lambda p: (p.document_id, p.ordinal, p.chunk_id))
    kept_ids: list[str] = []
    kept_sizes: list[int] = []
    postings: dict[int, list[int]] = defaultdict(list)
    twins: dict[str, str] = {}
    for passage in ordered:
        tokens = words(passage.text)
        if len(tokens) < MIN_DUPLICATE_WORDS:
            continue
        own = _shingles(tokens)
        shared: dict[int, int] = {}
        for shingle in own:
            for k in postings.get(shingle, ()):
                shared[k] = shared.get(k, 0) + 1
        twin = min((k for k, n in shared.items() if n / min(len(own), kept_sizes[k]) >= threshold), default=None)
        if twin is not None:
            twins[passage.chunk_id] = kept_ids[twin]
            continue
        index = len(kept_ids)
        kept_ids.append(passage.chunk_id)
        kept_sizes.append(len(own))
        for shingle in own:
            postings[shingle].append(index)
    return twins


def clean_display_title(title: str) -> str:
    """Whitespace collapsed, office-export prefix and file suffix dropped, trailing punctuation
    trimmed; letter case left as written."""
    text = " ".join(title.split())
    text = _FILE_SUFFIX_RE.sub("", _OFFICE_PREFIX_RE.sub("", text))
    return text.rstrip(_TRAILING_PUNCT).lstrip(_TRAILING_PUNCT)


def consolidated_titles(metadata: list[DocumentMetadata]) -> dict[str, str]:
    """document_id -> clean display title, for every document whose metadata has a title."""
    titles: dict[str, str] = {}
    for entry in metadata:
        value = entry.title_text
        verbatim = entry.title.provenance == "benchmark"  # a benchmark's title is indexed as it is given
        if value and (clean := value if verbatim else clean_display_title(value)):
            titles[entry.document_id] = clean
    return titles


def write_overlays(layout: StateLayout) -> dict[str, int]:
    """Recompute both overlays from every materialised document; rewrite only what changed."""
    ids = [d for d in layout.registered_document_ids() if layout.passages(d).exists() and layout.metadata(d).exists()]
    # A benchmark's records are judged one by one: folding a twin into another would hide it.
    all_passages = [p for d in ids if load_source(layout, d)[0].format != BEIR_FORMAT for p in load_passages(layout, d)]
    metadata = [DocumentMetadata(**read_json(layout.metadata(d))) for d in ids]
    overlays = {
        layout.near_duplicates_file: near_duplicates(all_passages),
        layout.titles_file: consolidated_titles(metadata),
    }
    for path, content in overlays.items():
        if not path.exists() or read_json(path) != content:
            atomic_write_json(path, content)
    return {path.name: len(content) for path, content in overlays.items()}
