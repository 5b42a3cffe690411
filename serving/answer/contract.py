"""The output contract (docs/DESIGN.md §4): windows, trace, anchor, cite, flags and safe pagination,
and their text renderings; the models are serving.answer.outputs.

The one home of every window. Served text is cut only at safe positions (corpus.text.safe_cut), and a
cut announces what remains and the call that continues it.
"""

from __future__ import annotations

import re
import uuid

from pydantic import BaseModel

from corpus.models import Passage
from corpus.text.canonical import CONTROL_CHARS
from corpus.text.hostile import addressed_to_agent, escape_invisible, has_invisible_chars
from corpus.text.safe_cut import find_cut, forbidden_mask, scan
from corpus.versions import CONTRACT_VERSION, SERVER_VERSION
from serving.answer.outputs import Anchor, Cite, Flags, PassageOut, Trace

SEARCH_WINDOW = 10_000
PASSAGE_WINDOW = 15_000
TIMELINE_PREVIEW = 300
MATCH_WINDOW = 300  # a search hit's matching sentences, as its text shows them by default
MATCHED_HITS = 3  # hits whose matching sentences the default text shows; later ones show cite and ids
WINDOWS = {
    "search": SEARCH_WINDOW,
    "passage": PASSAGE_WINDOW,
    "timeline_preview": TIMELINE_PREVIEW,
    "match": MATCH_WINDOW,
}
SHA_PREFIX = 12
ELLIPSIS = "…"

_MATH_CONSTRUCTS = frozenset({"$", "$$", "\\[", "\\(", "begin"})
_TABLE_ROW_RE = re.compile(r"(?m)^[ \t]*\|.*\|")
_HTML_TAG_RE = re.compile(
    r"</?(?:sup|sub|br|p|div|span|table|thead|tbody|tr|td|th|b|i|u|em|strong|small|a|img|ul|ol|li"
    r"|hr|h[1-6]|code|pre|font|center)\b[^<>]{0,200}/?>",
    re.IGNORECASE,
)
_HEX_RE = re.compile(r"^[0-9a-f]{12,64}$")
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "la", "le"})
_ORGANISATION_RE = re.compile(r"\b(team|inc|llc|ltd|group|bank|board|committee|institute)\b\.?", re.I)
MAX_CITED_AUTHORS = 3


def make_trace(corpus_signature: str | None, config_hash: str, window: int) -> Trace:
    """A fresh trace: random 16-hex request id, versions from corpus.versions."""
    return Trace(
        request_id=uuid.uuid4().hex[:16],
        server_version=SERVER_VERSION,
        contract_version=CONTRACT_VERSION,
        corpus_signature=corpus_signature,
        config_hash=config_hash,
        window=window,
    )


def anchor_for(passage: Passage, canonical_sha256: str) -> Anchor:
    """Anchor of a passage into its document's canonical text."""
    if not _HEX_RE.match(canonical_sha256):
        raise ValueError(f"canonical_sha256 must be hex (>= {SHA_PREFIX} chars), got {canonical_sha256[:70]!r}")
    return Anchor(
        document_id=passage.document_id,
        ranges=[(s, e) for s, e in passage.ranges],
        granularity=passage.granularity,
        sha256=canonical_sha256[:SHA_PREFIX],
    )


# The server's tool names, for `addressed_to_agent` (a passage that calls one of them): serving.mcp.toolset
# assembles the tools and imports this module through them, so the names are written here once
# (tests/serving/test_hostile_text.py checks them against the tool set).
SERVED_TOOL_NAMES = frozenset(
    {
        "search_documents", "get_passage", "list_documents", "timeline", "verify_citation", "verify_citations",
        "corpus_status", "search_graph", "expand_entity", "connect_entities", "session_put", "session_get",
        "session_list", "session_delete",
    }
)  # fmt: skip


def quality_flags(text: str, truncated: bool, garbled: bool) -> Flags:
    """Deterministic flags of served text; the text itself is never changed.

    has_math: a closed math span ($…$, $$…$$, \\[…\\], \\(…\\), \\begin…\\end) or an opener left open;
    math_unbalanced: a math opener that never closes (a lone currency `$` counts: it is declared,
    not guessed away); has_table: a Markdown pipe-table row; has_control_chars: a C0/C1 control
    other than tab, newline and carriage return; has_html_tags: a known HTML tag such as <sup>;
    has_invisible_chars: a format or other invisible character (bidi override, zero-width space,
    tag character...; corpus.text.hostile); addressed_to_agent: instruction-like text aimed at a
    model or a call of a tool, this server's included (corpus.text.hostile).
    """
    found = scan(text)
    unbalanced = bool(found.unbalanced & _MATH_CONSTRUCTS)
    return Flags(
        has_math=unbalanced or any(name in _MATH_CONSTRUCTS for _, _, name in found.spans),
        math_unbalanced=unbalanced,
        has_table=bool(_TABLE_ROW_RE.search(text)),
        has_control_chars=bool(CONTROL_CHARS.search(text)),
        has_html_tags=bool(_HTML_TAG_RE.search(text)),
        truncated=truncated,
        garbled_text=garbled,
        has_invisible_chars=has_invisible_chars(text),
        addressed_to_agent=addressed_to_agent(text, SERVED_TOOL_NAMES),
    )


def cite_for(
    authors: list[str], year: int | None, title: str | None, page_start: int | None, page_end: int | None
) -> Cite:
    """Citation of a passage: 'Pav, S. E. (2024). Notes on the Sharpe ratio, pp. 3–4'."""
    pages = None
    if page_start is not None:
        last = page_end if page_end is not None else page_start
        pages = str(page_start) if last <= page_start else f"{page_start}–{last}"
    return Cite(
        authors=list(authors), year=year, title=title, pages=pages, text=format_cite(authors, year, title, pages)
    )


def _short_author(name: str) -> str:
    """'Steven E. Pav' or 'Pav, Steven E.' → 'Pav, S. E.'; organisations are kept as written."""
    name = " ".join(name.split())
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
    else:
        tokens = name.split(" ")
        if len(tokens) < 2 or _ORGANISATION_RE.search(name):
            return name
        k = len(tokens) - 1
        while k > 1 and tokens[k - 1].lower() in _PARTICLES:
            k -= 1
        family, given = " ".join(tokens[k:]), " ".join(tokens[:k])
    initials = " ".join("-".join(p[0] + "." for p in g.split("-") if p) for g in given.split() if g[0].isalpha())
    return f"{family}, {initials}" if initials else family


def format_cite(authors: list[str], year: int | None, title: str | None, pages: str | None) -> str:
    """One line to copy: authors (year). Title, pp. pages."""
    names = [_short_author(a) for a in authors if a and a.strip()]
    if len(names) > MAX_CITED_AUTHORS:
        who = f"{names[0]} et al."
    elif len(names) > 2:
        who = ", ".join(names[:-1]) + ", & " + names[-1]
    else:
        who = " & ".join(names)
    when = f"({year})" if year is not None else "(n.d.)"
    if who:
        line = f"{who} {when}." + (f" {title}" if title else "")
    else:
        line = f"{title or 'Unknown source'} {when}"
    if pages:
        line += (", p. " if pages.isdigit() else ", pp. ") + pages
    return line


class ServedText(BaseModel):
    text: str
    truncated: bool
    remaining_chars: int
    next_offset: int | None
    continuation: str | None
    offset: int  # where this window starts (the requested offset, snapped back to a safe one)

    @classmethod
    def rest(cls, text: str, offset: int) -> ServedText:
        """text[offset:] whole: nothing remains after it."""
        return cls(
            text=text[offset:].rstrip(),
            truncated=False,
            remaining_chars=0,
            next_offset=None,
            continuation=None,
            offset=offset,
        )


def _safe_before(mask: bytearray, p: int, floor: int) -> int | None:
    return next((q for q in range(p, floor, -1) if not mask[q]), None)


def serve_text(text: str, window: int, chunk_id: str | None = None, offset: int = 0) -> ServedText:
    """Serve text[offset:] up to `window` characters, cut only at a safe position.

    An offset inside a protected structure is snapped back to the previous safe position (the
    reader sees some characters twice rather than losing any). A structure longer than the whole
    window (one huge formula or table row) is served whole: the contract never cuts inside it.
    The shown text is right-stripped; remaining_chars counts what follows next_offset.
    """
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    if not 0 <= offset <= len(text):
        raise ValueError(f"offset {offset} is outside the text (0..{len(text)})")
    if offset == 0 and len(text) <= window:  # the common case: whole, and position 0 is always safe
        return ServedText.rest(text, 0)
    mask = forbidden_mask(text)
    if mask[offset]:
        offset = _safe_before(mask, offset, 0) or 0
    if len(text) - offset <= window:
        return ServedText.rest(text, offset)
    cut = offset + find_cut(text[offset:], window)
    if mask[cut]:  # the suffix scan disagreed with the full text, or nothing safe in the window
        cut = _safe_before(mask, cut, offset) or next(q for q in range(cut, len(text) + 1) if not mask[q])
    nxt = cut  # skip the whitespace between pages when the first visible character is safe
    while nxt < len(text) and text[nxt].isspace():
        nxt += 1
    if nxt < len(text) and mask[nxt]:
        nxt = cut
    if nxt == len(text):
        return ServedText.rest(text, offset)
    continuation = f'get_passage(chunk_id="{chunk_id}", offset={nxt})' if chunk_id else None
    return ServedText(
        text=text[offset:cut].rstrip(),
        truncated=True,
        remaining_chars=len(text) - nxt,
        next_offset=nxt,
        continuation=continuation,
        offset=offset,
    )


def timeline_preview(text: str) -> str:
    """Whitespace collapsed to single spaces; over TIMELINE_PREVIEW characters, cut at a safe
    position and end with an ellipsis (total at most TIMELINE_PREVIEW)."""
    flat = " ".join(text.split())
    if len(flat) <= TIMELINE_PREVIEW:
        return flat
    cut = find_cut(flat, TIMELINE_PREVIEW - len(ELLIPSIS))
    return flat[:cut].rstrip() + ELLIPSIS


def render_passage(index: int | None, p: PassageOut) -> str:
    """Readable block of one passage: cite line first, working keys after, then the text."""
    head = f"[{index}] " if index is not None else ""
    score = f" score={p.score:.4f}" if p.score is not None else ""
    lines = [f"{head}cite: {p.cite.text}{score}"]
    if p.section:
        lines.append("section: " + " > ".join(p.section))
    if p.role != "body":
        lines.append(f"role: {p.role}")
    lines.append(f"keys (do not cite): chunk_id={p.chunk_id} document_id={p.document_id}")
    lines.append(render_anchor(p.anchor))
    raised = [name for name, on in p.flags.model_dump().items() if on]
    if raised:
        lines.append("flags: " + ", ".join(raised))
    lines += ["", escape_invisible(p.text)]
    if p.truncated:
        lines.append(f"[… {p.remaining_chars} characters remain: {p.continuation}]")
    return "\n".join(lines)


def render_anchor(anchor: Anchor) -> str:
    """The anchor on one line: document, canonical ranges, granularity, text hash prefix."""
    ranges = ",".join(f"{start}-{end}" for start, end in anchor.ranges)
    return (
        f"anchor: document_id={anchor.document_id} ranges={ranges} "
        f"granularity={anchor.granularity} sha256={anchor.sha256}"
    )


def render_trace(trace: Trace) -> str:
    return (
        f"trace: request {trace.request_id} · server {trace.server_version} · contract "
        f"{trace.contract_version} · corpus {trace.corpus_signature} · config "
        f"{trace.config_hash} · window {trace.window}"
    )
