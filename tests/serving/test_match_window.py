"""The matching sentences a search hit shows by default (serving.answer.match_window): whole units cut
only at safe positions, within the window, chosen by the searched terms' weight."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.text.safe_cut import forbidden_mask
from corpus.text.tokenize import tokenize
from serving.answer.match_window import match_window, term_weights

CODE = "```\n> summary(ob)\nAsk price levels: 540\nBid price levels: 179\n```"
FILLER = "The sample is drawn from daily returns of the index over the period. " * 3
TARGET = "Earlier orders are executed before later orders at the same price. "
TEXT = FILLER + TARGET + FILLER


def _terms(text: str) -> list[str]:
    return tokenize(text)


def test_the_sentence_holding_the_rare_terms_is_shown():
    weights = term_weights(["which order is executed first at one price?"], _terms, lambda t: 1.0)
    window = match_window(TEXT, weights, _terms, 120)
    assert TARGET.strip() in TEXT[window.start : window.end]
    assert window.end - window.start <= 120 and window.weight > 0


def test_a_window_grows_by_whole_sentences_up_to_its_size():
    weights = {"executed": 5.0}
    window = match_window(TEXT, weights, _terms, 200)
    shown = TEXT[window.start : window.end]
    assert TARGET.strip() in shown and len(shown) > len(TARGET) and len(shown) <= 200
    assert shown[0].isupper() and shown.endswith(".")  # whole sentences


def test_without_a_common_term_the_window_is_the_passage_start():
    window = match_window(TEXT, {"kurtosis": 3.0}, _terms, 150)
    assert window.start == 0 and window.weight == 0 and 0 < window.end <= 150


def test_a_short_passage_is_shown_whole():
    window = match_window(TARGET, {"executed": 1.0}, _terms, 300)
    assert (window.start, window.end) == (0, len(TARGET))


def test_a_code_block_longer_than_the_window_is_shown_whole():
    text = FILLER + "\n\n" + CODE + "\n\n" + FILLER
    window = match_window(text, {"levels": 3.0}, _terms, 30)
    assert CODE in text[window.start : window.end]


def test_a_formula_and_a_table_row_are_never_cut():
    formula = "$$\\sigma_t^2 = \\omega + \\alpha \\epsilon_{t-1}^2 + \\beta \\sigma_{t-1}^2$$"
    row = "| GARCH(1,1) | 0.05 | 0.10 | 0.85 |"
    text = f"{FILLER}\n\n{formula}\n\n{row}\n{row}\n\n{FILLER}"
    window = match_window(text, {"garch(1,1)": 4.0, "sigma_t": 2.0}, _terms, 90)
    mask = forbidden_mask(text)
    assert not mask[window.start] and not mask[window.end]
    assert row in text[window.start : window.end]


words = st.sampled_from(["alpha", "beta", "GARCH(1,1)", "$x_t$", "| a | b |", "risk.", "\n", "vol;", "$$y$$", CODE])


@settings(max_examples=150, deadline=None)
@given(st.lists(words, min_size=1, max_size=120), st.integers(20, 400), st.sampled_from(["alpha", "risk", "vol"]))
def test_any_window_starts_and_ends_at_safe_positions(parts, size, term):
    text = " ".join(parts)
    window = match_window(text, {term: 1.0}, _terms, size)
    mask = forbidden_mask(text)
    assert 0 <= window.start < window.end <= len(text) or text.strip() == ""
    assert not mask[window.start] and not mask[window.end]


def test_two_windows_whose_terms_weigh_the_same_tie_under_every_hash_seed():
    """The weights of a set of terms are summed exactly (fsum): in whatever order the set yields
    them (it changes with the hash seed), two windows whose terms weigh the same tie, and the
    earliest is shown in every process (0.1 + 0.2 + 0.3 is 0.6 or 0.6000000000000001 by order)."""
    import subprocess
    import sys

    program = (
        "from serving.answer.match_window import match_window\n"
        "weights = {'alpha': 0.1, 'beta': 0.2, 'gamma': 0.3, 'delta': 0.3}\n"
        "filler = ' '.join(['filler'] * 40) + '.'\n"
        "text = filler + ' Alpha beta gamma. ' + filler + ' Delta beta alpha. ' + filler\n"
        "print(match_window(text, weights, lambda t: t.lower().replace('.', '').split(), 60).start)\n"
    )
    starts = {
        subprocess.run(
            [sys.executable, "-c", program],
            env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in range(12)
    }
    assert len(starts) == 1, starts
