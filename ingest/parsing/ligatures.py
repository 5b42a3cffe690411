"""Restoration of the ligatures (ff, fi, fl, ffi, ffl) a font's text map loses, on evidence only.

TeX's text encodings put the ligatures at control codes (T1: ff fi fl ffi ffl at 0x1B-0x1F; OT1 at
0x0B-0x0F). A font without a Unicode map for them (the bitmap Type 3 fonts of many R vignettes)
hands pdfium the code itself, which the canonical text drops as a control character: 'coefficient'
read 'coecient', 'first' 'rst'. The PDF's own evidence comes first:

* The character is there (`restore_characters`). What a control character stands for is voted by
  the words holding it, as glyph_repair votes: a reading must turn them into attested words, twice
  as many as any other reading, and MIN_EVIDENCE of MIN_WORD letters or more, or one when it is the
  ligature TeX's encodings put at that code (ENCODING_SLOTS: the code itself is evidence). A math
  font uses the same codes ('Xu' would read 'Xflu'), so an occurrence is restored only where its
  word then reads as an attested word, or inside a word (a letter before it, a lower-case letter
  after it: 'shape\\x1cle'; ff also at the end of one: 'roundo\\x1b') when the reading is strong
  (TeX's slot with two attested words, or MIN_EVIDENCE that make MIN_SHARE of the character's
  words). Recorded with the glyph repairs ('\\x1c→fi': occurrences).
* No character is left (`restore_words`: a glyph without any code pdfium hands over; OT1's fl at
  0x0D does reach the text, under pdf_lines' stand-in, and is read as TeX's slot). A word becomes
  the one word that a ligature inserted at one position makes ('inuences' -> 'influences'), when
  that word is written by the document or the library (the English list alone would attest
  'reflated' for a 'created' that lost its c), the word is not English as it is (it exists both
  ways, 'ow'/'flow', 'dene'/'define': left alone), it has MIN_WORD letters or more ('nd' is too
  easy to attest), and no second restoration is attested. Only in a document
  whose characters showed the loss (MIN_EVIDENCE words restored from them), for the ligatures no
  character of it was read as: on Debian's R vignettes (docs/measurements.md), the same rule run on every
  document turned a Spanish 'las' into 'filas', an R class 'sts' into 'fists', 'int' into 'flint'.

A word holding a ligature is attested, in lower case or capitalised, when the document's own words,
the library vocabulary or the English list hold it (WORD_LIST_FILE: SCOWL's words up to size 70
that hold a ligature, and the English words they become without one; frozen, rebuilt by
scripts/rebuild_ligature_words.py). Whether a word is English as it is, only that list says: the
library vocabulary is read before any repair and holds such fragments ('rst', 'nd' of '2nd').

Every word restored is recorded with its occurrences, as the text read before ('rst→first'), so
that a quote copied from an older copy or through the broken map still verifies
(TextQuality.ligatures, serving.citation_repairs).
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ingest.parsing.pdf_lines import GLYPH_STAND_INS, HYPHEN_MARK, Line
from ingest.parsing.vocabulary import library_vocabulary, words_of

LIGATURES = ("ff", "fi", "fl", "ffi", "ffl")
WORD_LIST_FILE = Path(__file__).with_name("ligature_words.txt.gz")
MIN_EVIDENCE = 3  # attested words before a reading (a character's, or a dropped ligature's) is believed
MIN_SHARE = 0.6  # share of a character's words its reading attests, to restore it inside unattested words
# TeX's text encodings: T1 (Cork) and OT1 put the ligatures at these codes.
ENCODING_SLOTS = {0x1B: "ff", 0x1C: "fi", 0x1D: "fl", 0x1E: "ffi", 0x1F: "ffl"} | {
    0x0B: "ff",
    0x0C: "fi",
    0x0D: "fl",
    0x0E: "ffi",
    0x0F: "ffl",
    ord(GLYPH_STAND_INS[0x0D]): "fl",  # OT1's 0x0D, which pdfium would read as a carriage return
}
MIN_WORD = 3  # letters of a word a ligature is inserted into (shorter: 'nd', 'ts', 'ow' are too easy to attest)
ARROW = "\u2192"
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"  # canonical text's CONTROL_CHARS: what it drops
_CONTROL = re.compile(f"[{_CONTROLS}]")
# A word as a broken map leaves it: ASCII letters and control characters, and its continuation
# after a line-end hyphen (pdfium's soft hyphen mark or a plain one).
_WORD = re.compile(f"[A-Za-z{_CONTROLS}]+(?:[-{HYPHEN_MARK}]\n[A-Za-z{_CONTROLS}]+)?")
_BREAK = re.compile(f"[-{HYPHEN_MARK}]\n")
# A word with no character left: ASCII letters between anything but a letter, a digit, code
# punctuation or a control character (a 'rst' inside 'x.rst', 'rst_2' or '\\rst' is not prose).
# A word broken at a line end is matched whole, and left alone.
_PLAIN = re.compile(
    rf"(?<![A-Za-z0-9_\\$@.{_CONTROLS}])[A-Za-z]+(?:[-{HYPHEN_MARK}]\n[A-Za-z]+)*(?![A-Za-z0-9_(@{_CONTROLS}])"
)


@dataclass
class LigatureRepair:
    """What a restoration changed: the control characters read as ligatures ('\\x1c→fi':
    occurrences, as glyph repairs are recorded) and every word restored ('rst→first': occurrences)."""

    characters: dict[str, int] = field(default_factory=dict)
    words: dict[str, int] = field(default_factory=dict)


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """SCOWL's words holding a ligature, and those they become with one taken out."""
    with gzip.open(WORD_LIST_FILE, "rt", encoding="utf-8") as handle:
        return frozenset(w for line in handle if (w := line.strip()) and not w.startswith("#"))


def ligature_free_forms(word: str) -> set[str]:
    """`word` with one of its ligatures taken out: 'coefficient' -> coecient, coeicient, coefcient."""
    return {
        word[: m.start()] + word[m.start() + len(lig) :] for lig in LIGATURES for m in re.finditer(f"(?={lig})", word)
    }


def _holds_ligature(word: str) -> bool:
    return any(lig in word for lig in LIGATURES)


class Evidence:
    """The attestation the restorations ask for, for one document."""

    def __init__(self, text: str, english: frozenset[str] | None = None, library: frozenset[str] | None = None) -> None:
        self.document = frozenset(w for w in words_of(text) if _holds_ligature(w))
        self.english = english_words() if english is None else english
        self.library = library_vocabulary() if library is None else library

    def restored(self, word: str) -> bool:
        """A word holding a ligature is attested: written in lower case or capitalised (a ligature
        is lower-case letters: 'fiX' is no 'fix'), and held by the document, the library vocabulary
        or the English list."""
        if not (word.islower() or (word[:1].isupper() and word[1:].islower())):
            return False
        w = word.lower()
        return w in self.document or w in self.library or w in self.english

    def written(self, word: str) -> bool:
        """A word holding a ligature that the document or the library writes (not the English list)."""
        return self.restored(word) and (word.lower() in self.document or word.lower() in self.library)

    def as_it_is(self, word: str) -> bool:
        """A word without the ligature is attested as it is: only the English list says so."""
        return word.lower() in self.english


@dataclass(frozen=True)
class Reading:
    """What one control character stands for in a document, and how well its words attest it."""

    ligature: str
    attested: int  # words it turns into attested words
    share: float  # ... as a share of the words holding the character
    slot: bool  # the ligature TeX's encodings put at that code

    @property
    def strong(self) -> bool:
        """Believed inside unattested words too ('shape\\x1cle', a file format's name): TeX's slot
        with two attested words, or MIN_EVIDENCE making MIN_SHARE of the character's words."""
        return (self.slot and self.attested >= 2) or (self.attested >= MIN_EVIDENCE and self.share >= MIN_SHARE)


def _forms(word: str, reading: dict[str, str]) -> list[str]:
    """What a word holding control characters reads as, with `reading` applied: the whole word
    (across a line-end hyphen), then, across a hyphen of the text's own (not pdfium's mark of a
    word it split), each of its pieces that holds a restored character ('coe\\x1ecient-\\nbased')."""
    translated = "".join(reading.get(ch, ch) for ch in word)
    whole = _BREAK.sub("", translated)
    if "-\n" not in word:
        return [whole]
    return [whole, *(p for p, raw in zip(translated.split("-\n"), word.split("-\n")) if p != raw)]


def _attested(word: str, reading: dict[str, str], evidence: Evidence) -> bool:
    forms = _forms(word, reading)
    if forms[0].isalpha() and forms[0].isascii() and evidence.restored(forms[0]):
        return True
    return len(forms) > 1 and all(f.isalpha() and f.isascii() and evidence.restored(f) for f in forms[1:])


def _letters(word: str) -> int:
    return sum(1 for c in word if c.isascii() and c.isalpha())


def infer_characters(text: str, evidence: Evidence) -> dict[str, Reading]:
    """{control character: its reading}, voted by the words holding it. The ligature TeX's
    encodings put at that code (ENCODING_SLOTS) needs one attested word; another needs MIN_EVIDENCE
    of MIN_WORD letters or more (a math font's symbol before a letter attests too easily: 'Xu' read
    'Xflu', 'X' 'fiX'). Either needs twice as many as any other reading."""
    holders: dict[str, list[str]] = {}
    for m in _WORD.finditer(text):
        if any(c.isalpha() for c in m.group()):
            for ch in set(_CONTROL.findall(m.group())):
                if word := _core(m.group(), {ch}):
                    holders.setdefault(ch, []).append(word)
    readings: dict[str, Reading] = {}
    for ch, words in holders.items():
        # TeX's ligature at this code is believed on any word; another reading only on long ones
        slot = ENCODING_SLOTS.get(ord(ch))
        votes = Counter(
            lig
            for lig in LIGATURES
            for w in words
            if (lig == slot or _letters(w) >= MIN_WORD) and _attested(w, {ch: lig}, evidence)
        )
        if not votes:
            continue
        (best, n), *rest = votes.most_common(2)
        if n >= (1 if best == slot else MIN_EVIDENCE) and n >= 2 * (rest[0][1] if rest else 0):
            readings[ch] = Reading(best, n, n / len(words), best == slot)
    return readings


def _core(word: str, keep: set[str] | dict[str, str]) -> str:
    """`word` without the control characters at its edges that are not in `keep` (a T1 quotation
    mark before a word, '\\x10\\x1cnish': the word is '\\x1cnish'); empty when `keep` is not in it."""
    start, end = 0, len(word)
    while start < end and _CONTROL.match(word[start]) and word[start] not in keep:
        start += 1
    while end > start and _CONTROL.match(word[end - 1]) and word[end - 1] not in keep:
        end -= 1
    core = word[start:end]
    return core if any(ch in keep for ch in core) and any(c.isalpha() for c in core) else ""


def _inside(text: str, at: int, ligature: str) -> bool:
    """A letter before the character and a lower-case letter after it (a line-end hyphen between);
    or, for ff, which ends English words ('roundoff', 'cutoff'), three lower-case letters before it
    (the last no f) and no letter after."""
    after = text[at + 1 : at + 4]
    after = after[2:3] if after[:2] in ("-\n", HYPHEN_MARK + "\n") else after[:1]
    before = text[max(at - 3, 0) : at]
    if not (before[-1:].isascii() and before[-1:].isalpha()):
        return False
    if after.isascii() and after.isalpha():
        return after.islower()
    return (
        ligature == "ff"
        and len(before) == 3
        and before.isascii()
        and before.isalpha()
        and before.islower()
        and before[-1] != "f"
    )


def restore_characters(text: str, evidence: Evidence, repair: LigatureRepair) -> str:
    """`text` with the control characters that stand for a ligature replaced by it (see module)."""
    readings = infer_characters(text, evidence)
    if not readings:
        return text
    parts: list[str] = []
    pos = 0
    characters: Counter = Counter()
    words: Counter = Counter()
    for m in _WORD.finditer(text):
        reading = {ch: readings[ch].ligature for ch in set(m.group()) if ch in readings}
        word = _core(m.group(), reading)
        if not word:
            continue
        start = m.start() + m.group().index(word)
        if not _attested(word, reading, evidence) and not all(
            readings[ch].strong and _inside(text, start + i, reading[ch]) for i, ch in enumerate(word) if ch in reading
        ):
            continue
        restored = "".join(reading.get(ch, ch) for ch in word)
        parts += [text[pos:start], restored]
        pos = start + len(word)
        characters.update(ch for ch in word if ch in reading)
        now = _BREAK.sub("", restored)
        if _CONTROL.search(now) is None:
            words[f"{_CONTROL.sub('', _BREAK.sub('', word))}{ARROW}{now}"] += 1
    parts.append(text[pos:])
    _merge(repair.characters, {f"{ch}{ARROW}{readings[ch].ligature}": n for ch, n in sorted(characters.items())})
    _merge(repair.words, words)
    return "".join(parts)


def restoration(word: str, evidence: Evidence) -> str | None:
    """The one word that a ligature inserted into `word` at one position makes, attested by what
    documents write (the document, the library vocabulary: the English list alone attests 'reflated'
    for a 'reated' whose c was lost), when `word` is not an English word (None: nothing, or more
    than one word, is attested)."""
    if len(word) < MIN_WORD or evidence.as_it_is(word):
        return None
    found = set()
    for at in range(len(word) + 1):
        before, after = word[at - 1 : at], word[at : at + 1]
        if not (after.islower() or (not after and before.islower())):
            continue  # a ligature is lower-case letters: never before a capital ('Rst'), nor in 'RST'
        for lig in LIGATURES:
            candidate = word[:at] + lig + word[at:]
            if evidence.written(candidate):
                found.add(candidate)
    return found.pop() if len(found) == 1 else None


def _inserted(word: str, restored: str) -> str:
    """The ligature `restored` holds more than `word`."""
    at = next((i for i, (a, b) in enumerate(zip(word, restored)) if a != b), len(word))
    return restored[at : at + len(restored) - len(word)]


def restore_words(text: str, evidence: Evidence, repair: LigatureRepair, ligatures: Iterable[str] = LIGATURES) -> str:
    """`text` with the words that lost one of `ligatures` without a character left restored (see
    module; restore_ligatures decides which ligatures a document has shown to lose)."""
    allowed = set(ligatures)
    found: dict[str, str] = {}
    for token in {m.group() for m in _PLAIN.finditer(text)}:
        if "\n" not in token and (restored := restoration(token, evidence)) is not None:
            if _inserted(token, restored) in allowed:
                found[token] = restored
    if not found:
        return text
    words: Counter = Counter()

    def swap(m: re.Match) -> str:
        restored = found.get(m.group())
        if restored is None:
            return m.group()
        words[f"{m.group()}{ARROW}{restored}"] += 1
        return restored

    text = _PLAIN.sub(swap, text)
    _merge(repair.words, words)
    return text


def _merge(into: dict[str, int], counts: dict[str, int]) -> None:
    for key, n in counts.items():
        into[key] = into.get(key, 0) + n


def restore_ligatures(pages: list[list[Line]]) -> LigatureRepair:
    """Restore, in place, the ligatures the lines' fonts lost: control characters first; then, in a
    document whose characters showed the loss (MIN_EVIDENCE words restored), the words of the
    ligatures no character was read as (their glyph never reached the text). Returns what was
    changed, for the document's record."""
    lines = [ln for page in pages for ln in page]
    text = "\n".join(ln.text for ln in lines)
    repair = LigatureRepair()
    evidence = Evidence(text)
    restored = restore_characters(text, evidence, repair)
    if sum(repair.words.values()) >= MIN_EVIDENCE:
        read = {key.split(ARROW, 1)[1] for key in repair.characters}
        restored = restore_words(restored, evidence, repair, [lig for lig in LIGATURES if lig not in read])
    if restored != text:
        for ln, new in zip(lines, restored.split("\n"), strict=True):
            ln.text = new
    repair.words = dict(sorted(repair.words.items()))
    return repair
