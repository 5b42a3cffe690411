"""Text that works on its reader rather than informing it: characters a reader cannot see, and
passages addressed to an agent or a tool instead of to a human reader.

Both detectors are deterministic and never change the text: the canonical text, its offsets and
citation matching stay as they are. The server raises them as the flags `has_invisible_chars`
and `addressed_to_agent` (serving.contract.quality_flags), and its text renderings show every
invisible character as a visible token (`escape_invisible`) while structured content keeps the
characters as stored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

from corpus.text.canonical import CONTROL_CHARS

# Format characters (Unicode category Cf, as of Unicode 15.1) and the other default-ignorable code
# points (rendered as nothing by a font that lacks them): bidi embeddings, overrides, isolates and
# marks, zero-width spaces and joiners, word joiner and invisible operators, BOM, soft hyphen, tag
# characters, Hangul fillers, the combining grapheme joiner, interlinear annotation marks.
_ALWAYS = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e00ff\U000e01f0-\U000e0fff"
)
# Variation selectors: one after a base character picks its glyph (an emoji's U+FE0F); a run of
# them, or one with no base, carries nothing visible and is how data is smuggled "inside an emoji".
_SELECTORS = "\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef"
# Pictographs (an approximation of Extended_Pictographic) and scripts that join letters with
# ZWJ/ZWNJ as part of their spelling (Arabic, Syriac, Thaana, N'Ko, the Indic scripts, Persian).
_PICTOGRAPH = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u2300-\u23ff\u24c2\u25aa-\u27bf\u2b00-\u2bff"
    "\U0001f000-\U0001faff"
)
_JOINING_SCRIPT = "\u0600-\u0dff\ufb50-\ufdff\ufe70-\ufefc"

# Soft hyphen counts: PDF parsing resolves line-break hyphens, so one left in canonical text hides inside a word.
# ZWJ between pictographs (an emoji sequence) is one visible glyph, and ZWJ/ZWNJ in a joining script is spelling.
_SPELLING_JOINER = (
    rf"(?:(?:(?<=[{_PICTOGRAPH}])|(?<=[{_PICTOGRAPH}]\ufe0f))\u200d(?=[{_PICTOGRAPH}])"
    rf"|(?<=[{_JOINING_SCRIPT}])[\u200c\u200d](?=[{_JOINING_SCRIPT}]))"
)
INVISIBLE_CHARS = re.compile(
    rf"(?!{_SPELLING_JOINER})[{_ALWAYS}]|[{_SELECTORS}]{{2,}}|(?:^|(?<=[\s{_ALWAYS}]))[{_SELECTORS}]"
)
# Any candidate at all: a plain character class, scanned fast; INVISIBLE_CHARS then applies the exceptions.
_ANY_INVISIBLE = re.compile(rf"[{_ALWAYS}{_SELECTORS}]")


def has_invisible_chars(text: str) -> bool:
    """True when `text` holds a character a reader cannot see or that reorders what is shown
    (INVISIBLE_CHARS); C0/C1 controls are CONTROL_CHARS' business (`has_control_chars`)."""
    if text.isascii():
        return False
    first = _ANY_INVISIBLE.search(text)
    return first is not None and INVISIBLE_CHARS.search(text, first.start()) is not None


def _token(match: re.Match[str]) -> str:
    return "".join(f"⟦U+{ord(ch):04X}⟧" for ch in match.group())


_ESCAPED = re.compile(rf"{INVISIBLE_CHARS.pattern}|{CONTROL_CHARS.pattern}")


def escape_invisible(text: str) -> str:
    """`text` for a text rendering: every invisible character (INVISIBLE_CHARS) and every C0/C1
    control other than tab and newline written as a visible token, `⟦U+202E⟧`; everything else as
    it is. Only renderings use it: structured content keeps the stored characters, so offsets and
    quotes checked against the canonical text stay exact."""
    if text.isascii():
        return CONTROL_CHARS.sub(_token, text) if CONTROL_CHARS.search(text) else text
    if _ANY_INVISIBLE.search(text) is None and CONTROL_CHARS.search(text) is None:
        return text
    return _ESCAPED.sub(_token, text)


# ---- passages addressed to an agent or a tool ---------------------------------------------------

_QUOTES = (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'))
_EDGE_UNDERSCORES = re.compile(r"(?<!\w)_+|_+(?!\w)")


def _folded(text: str) -> str:
    """Invisible characters dropped (so `ig\\u200bnore` is `ignore`), NFKC (full-width and
    mathematical letters become plain ones), curly quotes straightened, case-folded."""
    if not text.isascii():
        if _ANY_INVISIBLE.search(text) is not None:
            text = _ANY_INVISIBLE.sub("", text)
        text = unicodedata.normalize("NFKC", text)
        for curly, straight in _QUOTES:
            text = text.replace(curly, straight)
    return text.casefold()


def agent_view(text: str) -> str:
    """The text as the instruction patterns read it: `_folded`, then Markdown emphasis and code
    marks (`*`, `_` at a word's edge, backticks, `~`) turned into spaces and whitespace runs
    collapsed to one space."""
    return _marks_out(_folded(text))


def _marks_out(folded: str) -> str:
    folded = folded.replace("*", " ").replace("`", " ").replace("~", " ")
    if "_" in folded:
        folded = _EDGE_UNDERSCORES.sub(" ", folded)
    return " ".join(folded.split())


# Who a model is told it is, or is addressed as. A job title after the noun ("an AI researcher",
# "an assistant professor") makes it a person.
_MODEL = (
    r"(?:a\.?i\.?|artificial intelligence|(?:large )?language models?|llms?|chatbots?|chatgpt|gpt-?\d*|claude"
    r"|(?:ai|llm) (?:assistants?|agents?|models?|systems?)|assistants?)"
    r"(?! (?:professor|lecturer|manager|director|editor|secretary|coach|trader|analyst|researcher|engineer"
    r"|scientist|vice|to|of|at|in|for|portfolio|fund|risk|research|teaching)\b)\b"
)
_FILLER = r"(?:all|any|each|every|of|the|your|my|our|these|those|such|other|existing|old|earlier|current)"
_QUALIFIER = (
    r"(?:all|any|every|your|previous|prior|preceding|above|earlier|foregoing|former|original|initial|system"
    r"|developer|safety)"
)
_ORDERS = r"(?:instructions?|prompts?|directives?|guidelines|guardrails|system messages?|safety (?:rules|policies))"
_READING = r"(?:reading|processing|parsing|summari[sz]ing|indexing)"
_AI = "ai"  # stands for the word `ai` among a rule's keywords (found by _AI_WORD, not as a substring)
_MODEL_KEYS = ("artificial", "language", "llm", "chatbot", "gpt", "claude", "assistant", "a.i", _AI)
_ORDER_KEYS = ("instruction", "prompt", "directive", "guideline", "guardrail", "message", "safety")
# (keywords, pattern): a rule is tried only on a text holding one of its keywords, a word every
# match of the pattern contains (tests/corpus/test_hostile.py checks that skipping never hides one).
_RULES = tuple(
    (keys, re.compile(pattern))
    for keys, pattern in (
        # "ignore (all) (previous|prior|above) instructions", "disregard your system prompt"
        (
            _ORDER_KEYS,
            r"\b(?:ignore|disregard|forget|override|bypass"
            r"|(?:do not|don't|never|stop) (?:follow(?:ing)?|obey(?:ing)?))"
            rf" (?:(?:{_FILLER} ){{0,3}}{_QUALIFIER} (?:{_FILLER} |{_QUALIFIER} ){{0,3}}{_ORDERS}\b"
            rf"|(?:{_FILLER} ){{0,3}}{_ORDERS} (?:above|before this|so far|you (?:were|have been) given)\b)",
        ),
        (
            ("everything", "anything"),
            r"\b(?:ignore|disregard|forget) (?:everything|anything) (?:above|before|you (?:were|have been) told)\b",
        ),
        # "you are (now) an AI / a language model / an assistant", "act as", "as an AI (language model)",
        # "if you are an LLM", "note to the AI:", "attention AI agents reading this:", "LLMs reading this page"
        (
            _MODEL_KEYS,
            rf"\byou(?: are|'re| will be| must be) (?:now |actually |no longer |really )?(?:an? |the |my )?"
            rf"(?:helpful |new |unrestricted |uncensored |autonomous )?{_MODEL}"
            rf"|\b(?:act as|pretend to be|pretend you are|role-?play as) (?:an? |the )?(?:unrestricted |uncensored )?"
            rf"{_MODEL}"
            r"|\bas an? (?:a\.?i\.?|artificial intelligence|(?:large )?language model|llm)\b(?! (?:researcher|research"
            r"|expert|engineer|scientist|practitioner|company|startup|lab|firm|tool|system)\b)"
            rf"|\bif you(?: are|'re) (?:an? |the )?{_MODEL}"
            r"|\b(?:dear|attention|note to|message (?:to|for)|instructions? (?:to|for)|hey|hello)"
            rf" (?:the |any |all |an? )?{_MODEL}(?: {_READING} this(?: [\w-]+)?)? ?[:,!]"
            rf"|\b{_MODEL} {_READING} this (?:document|text|page|passage|file)\b",
        ),
        # what a model is given, named: its system prompt, new instructions, its hidden prompt
        (
            ("prompt", "instruction"),
            r"\bsystem prompt\b|\b(?:new|updated|real|actual|hidden|secret) instructions ?:"
            r"|\b(?:reveal|print|repeat|output|show|leak) (?:your|the) (?:hidden |initial |original |full )?"
            r"(?:instructions|prompt)\b",
        ),
        # chat-template and tool-call markup
        (
            ("<|", "[inst", "[/inst", "<<sys", "<</sys"),
            r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>|\[/?inst\]|<</?sys>>",
        ),
        (
            ("<system", "</system", "tool", "function_call", "<invoke", "</invoke"),
            r"</?(?:system|tool_calls?|function_calls?|invoke)\b|\btool_calls?\b|\bfunction_call\b",
        ),
        # "call / invoke the (delete) tool"
        (
            ("tool",),
            r"\b(?:call|invoke|trigger|execute) (?:the |this |that |a |an |your |any |every |each |all )?"
            r"(?:(?!(?:with|using|via|by|in|on|for|and|or|to) )[\w-]+ ){0,2}?tools?\b",
        ),
    )
)
_AI_WORD = re.compile(r"ai(?![^\W_])")  # a literal first: scanned fast; the word's start is checked after
_CALL_VERB = r"\b(?:call|calls|calling|invoke|invoking|trigger|execute|run|use|using)"


@dataclass(frozen=True)
class _ToolCalls:
    names: tuple[str, ...]  # case-folded
    pattern: re.Pattern[str] | None


@lru_cache(maxsize=8)
def _tool_calls(tool_names: frozenset[str]) -> _ToolCalls:
    """A name with an underscore (`session_delete`) is code: after a call verb, before `(`, or as
    a call's name in JSON it is a call. A plain-word name (`timeline`) needs `tool` after it or
    `(` right against it."""
    names = tuple(sorted({n.casefold() for n in tool_names}, key=lambda n: (-len(n), n)))
    if not names:
        return _ToolCalls(names, None)
    coded = "|".join(re.escape(n) for n in names if "_" in n)
    plain = "|".join(re.escape(n) for n in names if "_" not in n)
    everyone = "|".join(re.escape(n) for n in names)
    patterns = [rf"\"(?:name|tool|tool_name|function|method)\" ?: ?\"(?:{everyone})\""]
    if coded:
        patterns += [rf"\b(?:{coded}) ?\(", rf"{_CALL_VERB} (?:the |a |an )?(?:[\w-]+ )?(?:{coded})\b"]
    if plain:
        patterns += [rf"\b(?:{plain})\(", rf"{_CALL_VERB} (?:the |a |an )?(?:{plain}) tool\b"]
    return _ToolCalls(names, re.compile("|".join(f"(?:{p})" for p in patterns)))


_ALL_KEYS = tuple(dict.fromkeys(key for keys, _ in _RULES for key in keys if key != _AI))


def _has_ai_word(folded: str) -> bool:
    return any(m.start() == 0 or not folded[m.start() - 1].isalnum() for m in _AI_WORD.finditer(folded))


def _holds(folded: str, keys: tuple[str, ...]) -> bool:
    return any(key in folded for key in keys if key != _AI) or (_AI in keys and _has_ai_word(folded))


def _search(view: str, tool_names: Collection[str], folded: str | None = None) -> str | None:
    """The first match in `view` (an agent_view) of the rules in order, then of the tool names. With
    `folded` (the `_folded` text the view came from), a rule none of whose keywords `folded` holds
    is skipped; without it every rule is tried."""
    for keys, pattern in _RULES:
        if folded is None or _holds(folded, keys):
            found = pattern.search(view)
            if found is not None:
                return found.group()
    calls = _tool_calls(frozenset(tool_names))
    if calls.pattern is None or (folded is not None and not any(name in folded for name in calls.names)):
        return None
    found = calls.pattern.search(view)
    return found.group() if found is not None else None


def _may_address(folded: str, tool_names: Collection[str]) -> bool:
    """False when no rule and no tool name can match: `folded` holds no keyword, no word `ai`, no
    tool name (most passages, which are then judged without building their view)."""
    for key in _ALL_KEYS:
        if key in folded:
            return True
    underscore = "_" in folded  # most prose has none, and every coded tool name one
    for name in _tool_calls(frozenset(tool_names)).names:
        if (underscore or "_" not in name) and name in folded:
            return True
    return _has_ai_word(folded)


def agent_addressed(text: str, tool_names: Collection[str] = ()) -> str | None:
    """The words by which `text` addresses an agent or a tool, as read in `agent_view`, or None.

    Instruction-like text aimed at a model (told to ignore or override its instructions, told
    what it is, addressed as one, its system prompt named, chat-template or tool-call markup, a
    tool to call) or a call of one of `tool_names` (the caller's tools: corpus knows none). A
    passage that merely discusses models or agents in the third person is not addressed."""
    folded = _folded(text)
    if not _may_address(folded, tool_names):
        return None
    return _search(_marks_out(folded), tool_names, folded)


def addressed_to_agent(text: str, tool_names: Collection[str] = ()) -> bool:
    """True when `text` addresses an agent or a tool (`agent_addressed`)."""
    return agent_addressed(text, tool_names) is not None
