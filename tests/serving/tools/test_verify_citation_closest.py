"""`closest` can be followed: for hundreds of failed quotes (real passages of the served state with
words swapped, inserted, deleted or replaced), get_passage(closest.chunk_id, closest.offset) reads
exactly closest.text at the place it answers from."""

from __future__ import annotations

import random
import re

from serving.citation.verify import Budget, verify_quote

UNHURRIED = 60.0  # what the closest search finds is tested here; its time bound in test_cost_bounds.py


def _mutate(words: list[str], vocabulary: list[str], rng: random.Random) -> tuple[str, list[str]]:
    kind = rng.choice(["swap", "insert", "delete", "replace"])
    out, i = list(words), rng.randrange(2, len(words) - 2)
    if kind == "swap":
        out[i], out[i + 1] = out[i + 1], out[i]
    elif kind == "insert":
        out.insert(i, rng.choice(vocabulary))
    elif kind == "delete":
        del out[i]
    else:
        out[i] = rng.choice(vocabulary + ["zqxjv"])
    return kind, out


def _failed_quotes(reader, count: int, rng: random.Random):
    """(document_id, quote, kind) of mutated windows of 8-20 words of real passages."""
    passages = list(reader.passages.values())
    while count:
        passage = rng.choice(passages)
        spans = [m.group() for m in re.finditer(r"\S+", passage.text)]
        if len(spans) < 12:
            continue
        size = rng.randint(8, min(20, len(spans)))
        start = rng.randrange(len(spans) - size + 1)
        kind, words = _mutate(spans[start : start + size], spans, rng)
        yield passage.document_id, " ".join(words), kind
        count -= 1


def _across_boundaries(reader):
    """A word replaced in the middle of a quote that runs from one passage into the next."""
    for document_id, passages in reader.by_document.items():
        text = reader.canonical_text(document_id)
        for passage in passages[:-1]:
            end = passage.ranges[-1][1]
            words = text[max(0, end - 80) : end].split()[-5:] + text[end : end + 80].split()[:5]
            if len(words) == 10:
                words[2] = "zqxjv"  # still in the first passage: the window starts there
                yield document_id, " ".join(words), "across"


def test_closest_text_is_what_get_passage_reads_at_its_chunk_id_and_offset(context, invoke):
    reader = context.engine.parts.reader
    rng = random.Random(29)
    followed, kinds, ran_on = 0, {}, 0
    for document_id, quote, kind in [*_failed_quotes(reader, 320, rng), *_across_boundaries(reader)]:
        result = verify_quote(reader, document_id, quote, budget=Budget(UNHURRIED))
        if result.status != "not_found" or result.closest is None:
            continue  # the mutation left words found elsewhere, or nothing close enough
        c = result.closest
        assert c.text == reader.canonical_text(document_id)[slice(*c.document_offsets)]
        assert c.chunk_id in reader.passages and c.offset is not None, (quote, c)
        answer = invoke("get_passage", {"chunk_id": c.chunk_id, "offset": c.offset, "neighbours": 1})
        assert not answer.is_error, answer.content[0].text
        served = answer.structured_content["passage"]
        assert served["offset"] <= c.offset  # moved back only out of a formula or table row
        at = served["text"][c.offset - served["offset"] :]
        if c.continues_in is None:
            assert at.startswith(c.text), (c.text, at[:200])
        else:  # runs on into the next passage, which get_passage gives as neighbour +1
            after = [n for n in answer.structured_content["neighbours"] if n["position"] == 1]
            assert c.text.startswith(at) and after and after[0]["passage"]["chunk_id"] == c.continues_in
            ran_on += 1
        followed += 1
        kinds[kind] = kinds.get(kind, 0) + 1
    assert followed >= 200 and min(kinds.values()) >= 25 and ran_on >= 5, (followed, kinds, ran_on)
    print(f"\nclosest followed through get_passage: {followed} failed quotes {kinds}, {ran_on} running on")


def test_the_tool_names_the_place_in_its_text(context, invoke):
    """The text rendering carries the call that reads the closest window."""
    passage = max(context.engine.parts.reader.passages.values(), key=lambda p: len(p.text))
    words = passage.text.split()[40:52]
    words[5] = "zqxjv"
    answer = invoke("verify_citation", {"document_id": passage.document_id, "quote": " ".join(words)})
    c = answer.structured_content["closest"]
    assert answer.structured_content["reason_code"] == "absent" and c["offset"] > 0
    assert f'get_passage(chunk_id="{c["chunk_id"]}", offset={c["offset"]})' in answer.content[0].text
