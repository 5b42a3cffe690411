"""An ellipsis joins the parts of a quote only within one passage or at most MAX_ELLIPSIS_GAP
characters apart; true fragments of one document stitched from further apart are `not_found` with
reason_code `stitched`. Checked on real text (Markdown lectures and PDF text) against what the
rule says of every pair of sentences, so the test fails both ways: a stitch that verifies and a
legitimate elision that does not."""

from __future__ import annotations

import random
import re

from corpus.text.normalise import normalise_with_map
from serving.citation.verify import MAX_ELLIPSIS_GAP, verify_quote
from tests.serving.test_citation import _SENTENCE_RE, corpus, real_sentences  # noqa: F401  (its state)


def _parts(sentence: str, at: int, words: int = 6) -> tuple[tuple[str, int, int], tuple[str, int, int]]:
    """(text, canonical start, end) of a sentence's last and first `words` words."""
    spans = [(at + m.start(), at + m.end()) for m in re.finditer(r"\S+", sentence)]
    tail, head = spans[-words:], spans[:words]
    return (
        (sentence[tail[0][0] - at :], tail[0][0], tail[-1][1]),
        (sentence[: head[-1][1] - at], head[0][0], head[-1][1]),
    )


def _one_passage(reader, doc, start, end) -> bool:
    return any(s <= start and end <= e for p in reader.by_document[doc] for s, e in p.ranges)


def test_the_title_and_a_sentence_12000_characters_later_do_not_verify(corpus):  # noqa: F811
    reader, ids = corpus
    doc = ids["big"]
    text = reader.canonical_text(doc)
    opening = " ".join(text.split()[:6])
    later = next(
        m.group() for m in _SENTENCE_RE.finditer(text, 12_000) if "\n" not in m.group() and text.count(m.group()) == 1
    )
    assert verify_quote(reader, doc, later).status == "verified"
    result = verify_quote(reader, doc, f"{opening} … {later}")
    assert result.status == "not_found" and result.reason_code == "stitched"
    assert result.offsets == [] and result.closest is None
    assert "stitched" in result.reason and f"{MAX_ELLIPSIS_GAP} characters" in result.reason
    assert verify_quote(reader, doc, f"{opening} ... {later}").reason_code == "stitched"


def test_every_pair_of_sentences_joins_exactly_when_the_rule_says(corpus):  # noqa: F811
    """Consecutive and nearby sentences (small gaps, some across a passage boundary) and far
    ones, joined as "last words of one … first words of the other": verified iff the gap is at
    most MAX_ELLIPSIS_GAP or both parts lie in one passage, else stitched."""
    reader, ids = corpus
    rng = random.Random(29)
    norms: dict[str, str] = {}
    by_doc: dict[str, list] = {}
    for doc, sentence, offset in real_sentences(reader, ids):
        if "\n" not in sentence:
            by_doc.setdefault(doc, []).append((offset, sentence))
    tally = {"near": 0, "near, two passages": 0, "one passage, far apart": 0, "stitched": 0}
    for doc, items in by_doc.items():
        norm = norms.setdefault(doc, normalise_with_map(reader.canonical_text(doc))[0])
        items.sort()
        pairs = [(items[i], items[i + k]) for k in (1, 2, 3) for i in range(len(items) - k)]
        pairs += [tuple(sorted(rng.sample(items, 2))) for _ in range(60)]
        for (at1, first), (at2, second) in pairs:
            (part1, s1, e1), (part2, s2, e2) = _parts(first, at1)[0], _parts(second, at2)[1]
            if s2 < e1 or any(norm.count(normalise_with_map(p)[0]) != 1 for p in (part1, part2)):
                continue  # overlapping, or a part that occurs twice (more than one placement)
            result = verify_quote(reader, doc, f"{part1} … {part2}")
            gap, together = s2 - e1, _one_passage(reader, doc, s1, e2)
            if gap <= MAX_ELLIPSIS_GAP or together:
                assert result.status in ("verified", "verified_normalised"), (part1, part2, gap, result.reason)
                assert result.offsets == [(s1, e1), (s2, e2)]
                kind = (
                    "one passage, far apart" if gap > MAX_ELLIPSIS_GAP else "near" if together else "near, two passages"
                )
                tally[kind] += 1
            else:
                assert result.status == "not_found" and result.reason_code == "stitched", (part1, part2, gap)
                tally["stitched"] += 1
    assert min(tally.values()) >= 3 and tally["stitched"] >= 50, tally
    print(f"\nellipsis pairs: {tally}")


def test_an_elision_inside_one_passage_verifies_whatever_its_length(corpus):  # noqa: F811
    reader, ids = corpus
    doc = ids["big"]
    text = reader.canonical_text(doc)
    norm = normalise_with_map(text)[0]
    checked = 0
    for passage in reader.by_document[doc]:
        ((start, end),) = passage.ranges
        words = text[start:end].split()
        if end - start < 4 * MAX_ELLIPSIS_GAP or len(words) < 80 or any("…" in w or "..." in w for w in words):
            continue
        head, tail = " ".join(words[:5]), " ".join(words[-5:])
        if any(norm.count(normalise_with_map(p)[0]) != 1 for p in (head, tail)):
            continue  # a part found elsewhere too could be joined there
        quote = f"{head} … {tail}"
        result = verify_quote(reader, doc, quote)
        if result.status == "not_found" and result.reason_code == "segment_absent":
            continue  # a part holds markup or a formula the words alone do not match
        assert result.status in ("verified", "verified_normalised"), (quote, result.reason)
        assert result.offsets[-1][0] - result.offsets[0][1] > MAX_ELLIPSIS_GAP
        checked += 1
    assert checked >= 5
