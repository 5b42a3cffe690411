"""The words of the period grammar (serving/periods/grammar.py), English and French.

Each direction word maps to the bound it sets and the shift from the year it names: strict
words shift ("before 2010" → year_max 2009), inclusive words do not ("until 2010" → 2010).
"""

from __future__ import annotations

import re

AROUND_YEARS = 2  # "around 2010": two years either side, inclusive
RECENT_YEARS = 5  # "recent work": the last five years of the corpus

# A publication noun or participle is what makes a year a publication date ("papers before 2010").
NOUN = (
    r"papers?|anything|material|publications?|literature|research|stud(?:y|ies)|sources?|articles?"
    r"|works?|preprints?|documents?|documentation|reports?|references?|books?|textbooks?|handbooks?"
    r"|monographs?"
    r"|surveys?|reviews?|overviews?|primers?|texts?|vignettes?|notes|slides?|(?:slide\s+)?decks?"
    r"|talks?|presentations?|lectures?|guidance|guidelines|chapters?|thes[ie]s|dissertations?"
    r"|manuals?|tutorials?|writings?|comparisons?|analys[ie]s|findings|proceedings|memos?"
    r"|white\s*papers?|write-?ups?|editions?|publi(?:é|e)s?|travaux|études?|littérature"
    r"|références?|ouvrages?|rapports?|thèses?|recherches?"
)
PARTICIPLE = (
    r"published|publish(?:es)?|write|wrote|writes|came\s+out|comes?\s+out|known|written|released"
    r"|appeared|appearing|dated|issued|authored|presented"
    r"|documented|reported|described|posted|circulated|printed|produced|compiled|writing"
    r"|publishing|publi(?:é|e)(?:e|s|es)?|paru(?:e|s|es)?|écrit(?:e|s|es)?|rédigé(?:e|s|es)?"
)
FILLER = (
    rf"(?:\s+(?:{PARTICIPLE}|only|exclusively|strictly|mostly|mainly|primarily|that|which|were|was"
    r"|are|is|have|has|been|being|first|originally|dating|qui|ont|été|sont|uniquement))*"
)

# (words, bound, shift); longer phrases are tried first.
_DIRECTIONS = [
    # strict upper bounds
    (
        "before|prior to|earlier than|older than|from before|dating from before|ahead of|pre|anterior to"
        "|avant|d'avant|antérieure?s? à|plus ancien(?:ne)?s? que",
        "max",
        -1,
    ),
    # inclusive upper bounds
    (
        "until|till|til|up to|up until|up to and including|through|thru|no later than|not later than"
        "|not after|in or before|on or before|during or before|before or in|before or during"
        "|no newer than|not newer than|no more recent than|at the latest in|by the end of"
        "|jusqu'en|jusqu'à|jusqu'au|au plus tard en|pas après",
        "max",
        0,
    ),
    # strict lower bounds
    (
        "after|later than|more recent than|newer than|from after|post|since after"
        "|après|postérieure?s? à|plus récente?s? que",
        "min",
        1,
    ),
    # inclusive lower bounds
    (
        "since|from|as of|starting|starting in|starting from|starting with|beginning in|beginning with"
        "|no earlier than|not earlier than|not before|no older than|not older than|in or after|on or after"
        "|during or after|in or since|after or in|onwards from|depuis|à partir de|dès|au plus tôt en"
        "|pas avant",
        "min",
        0,
    ),
]
DIRECTIONS: dict[str, tuple[str, int]] = {
    word: (bound, shift) for words, bound, shift in _DIRECTIONS for word in words.split("|")
}


def _phrase(word: str) -> str:
    """A direction word as a pattern: any run of spaces, either apostrophe."""
    return re.sub(r"\s+", r"\\s+", word).replace("'", "['’]")


DIRECTION_RE = "|".join(sorted({_phrase(w) for w in DIRECTIONS}, key=len, reverse=True))


def direction(words: str) -> tuple[str, int]:
    """(bound, shift) of the direction words as written ("antérieurs à" is "antérieure?s? à")."""
    written = " ".join(words.lower().replace("’", "'").split())
    return next(side for word, side in DIRECTIONS.items() if re.fullmatch(word, written))


# "2010 or earlier", "2010 and later": the word after the year says the side (inclusive).
OR_EARLIER = r"earlier|before|prior|older|sooner|previously|avant|plus\s+tôt|antérieure?s?"
OR_LATER = (
    r"later|after|since|newer|more\s+recent|beyond|onwards?|afterwards|après|plus\s+tard"
    r"|postérieure?s?|plus\s+récente?s?|ultérieure?s?"
)
AROUND = (
    r"around|circa|c\.|ca\.|about|approximately|approx\.|roughly|near|close\s+to|some\s*time\s+around"
    r"|in\s+or\s+around|vers|autour\s+de|aux\s+alentours\s+de|environ"
)
NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "couple of": 2,
    "few": 3,
    "several": 5,
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    "sept": 7,
    "huit": 8,
    "neuf": 9,
    "dix": 10,
    "quinze": 15,
    "vingt": 20,
}
NUMBER_RE = "|".join(sorted((_phrase(w.strip()) for w in NUMBERS), key=len, reverse=True))
WRITTEN_DECADES = {
    "sixties": 1960,
    "seventies": 1970,
    "eighties": 1980,
    "nineties": 1990,
    "noughties": 2000,
    "aughts": 2000,
}
# Quarter of a decade → (first, last) year offsets.
QUARTERS = {
    "early": (0, 3),
    "mid": (4, 6),
    "late": (7, 9),
    "first half of the": (0, 4),
    "second half of the": (5, 9),
    "start of the": (0, 3),
    "beginning of the": (0, 3),
    "end of the": (7, 9),
    "début": (0, 3),
    "milieu": (4, 6),
    "fin": (7, 9),
}
QUARTER_RE = "|".join(sorted((_phrase(q) for q in QUARTERS), key=len, reverse=True))

# A year right after an event word is the event's ("the 2008 crisis"), not a publication date.
EVENT = (
    r"(?![-\s]*(?:financial\s+|global\s+|subprime\s+|debt\s+|banking\s+|market\s+|stock\s+market\s+"
    r"|housing\s+|sovereign\s+|euro\s+|dot-?com\s+|covid\s+)?(?:crisis|crises|crash|recession|bubble"
    r"|meltdown|reform|act|election|shock|collapse|default|panic|pandemic|war|olympics|census)\b)"
)
# What a number counts or labels: such a number is never a year ("2000 observations", "top 2000").
COUNT_NOUN = (
    r"observations?|obs|stocks?|shares?|assets?|securities|bonds?|firms?|compan(?:y|ies)|funds?"
    r"|days?|months?|weeks?|years?|hours?|minutes?|seconds?|ticks?|trades?|quotes?|orders?"
    r"|samples?|simulations?|paths?|draws?|iterations?|replications?|bootstraps?|scenarios?"
    r"|points?|bps?|basis|dollars?|euros?|usd|eur|units?|contracts?|options?|names?|tickers?"
    r"|constituents?|members?|series|variables?|factors?|parameters?|features?|dimensions?"
    r"|dimensional|rows?|columns?|entries|records?|periods?|windows?|lags?|steps?|nodes?"
    r"|particles?|agents?|trials?|runs?|epochs?|batches?|loans?|accounts?|portfolios?"
    r"|strategies|investors?|respondents?|participants?|banks?|countries|pages?|words?|tokens?"
    r"|characters?|lines?|bytes?|employees?|people|users?|customers?|clients?|pairs?|markets?"
    r"|sectors?|industries|equities|indices|currencies|instruments?|positions?|transactions?"
    r"|events?|jumps?|bins?|buckets?|trees?|estimators?|tests?|questions?|citations?|items?"
    r"|returns?|prices?|times|fold|percent|per\s*cent|million|billion|thousand|meters?|km|ms"
)
# Words right before a number that make it a count, a label or a size.
COUNT_BEFORE = re.compile(
    r"(?:\b(?:top|first|over|more\s+than|fewer\s+than|less\s+than|at\s+least|at\s+most|nearly|almost"
    r"|section|sec\.|§|equation|eq\.|eqn\.?|table|figure|fig\.|page|p\.|pp\.|chapter|ch\.|appendix"
    r"|item|rule|no\.|number|step|model|version|ver\.|vol\.|volume|issue|russell|iso|windows|office"
    r"|size|length|n|t|k|m)\s*[=:(]?\s*\(?|[=<>≈~]\s*)$",
    re.IGNORECASE,
)
_FUNCTION = (
    r"on|of|in|about|for|and|or|to|the|a|an|with|by|from|at|as|into|regarding|concerning|that"
    r"|which|what|how|why|when|who|where|was|were|is|are|did|do|does|onwards?|inclusive|only"
)
# One qualifier may sit between a number and what it counts ("2000 daily returns").
_QUALIFIER = (
    r"daily|weekly|monthly|yearly|annual|quarterly|intraday|trading|simulated|generated|sampled"
    r"|observed|random|independent|historical|individual|distinct|different|large|small|liquid"
    r"|listed|traded|bootstrap|monte[-\s]carlo|risky|equity|stock|tick|price|return|sample|training"
    r"|test|missing|corporate|strategy|parameter|order|price|us|u\.s\.|european|backtested"
)
COUNT_AFTER = re.compile(rf"^\s*(?:[×x*]\s*\d|by\s+\d|[-\s]*(?:{_QUALIFIER}[-\s]+)?(?:{COUNT_NOUN})\b)", re.IGNORECASE)
# Quantity words before a number that precedes a noun: "over 2000 papers" counts papers.
QUANTITY_BEFORE = re.compile(
    r"\b(?:over|about|around|some|nearly|almost|roughly|approximately|more\s+than"
    r"|fewer\s+than|less\s+than|up\s+to|at\s+least|top|first|last|all|of)\s+$",
    re.IGNORECASE,
)

# A period right after one of these dates the data or the event, not a publication
# ("papers on S&P 500 returns from 1990 to 2000").
DATA_NOUN = (
    r"returns?|prices?|data|yields?|rates?|spreads?|volumes?|crisis|crises|crash(?:es)?|recessions?"
    r"|bubbles?|samples?|episodes?|history|observations|series|events?|rendements?|prix|données|crise"
)
# How a question (not a keyword query) opens.
QUESTION_START = (
    r"how|what|why|when|which|who|whom|whose|where|whether|did|does|do|is|are|was|were|has|have"
    r"|had|can|could|should|would|will|may|might|must|shall|explain|compare|describe|show|tell"
    r"|give|list|find|i|we|my|our|if|in|on|for|with|given|using|comment|pourquoi|quel(?:le)?s?"
    r"|que|qu['’]|est|comment|quand|où|combien"
)
