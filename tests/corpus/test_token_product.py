"""The integer MaxSim product: exact in integers, equal to the float product, used by the index."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.indexes.token_index import TokenIndex, quantise_rows, write_token_index
from corpus.indexes.token_product import (
    GRAPH_FILE,
    QUESTION_MAX,
    IntegerProduct,
    gather_shifted,
    quantise_question,
    write_product_graph,
)

DIM = 384  # the model's width: long enough rows for 16-bit sums to saturate if they could


def unit_rows(rng, n: int, dim: int = DIM) -> np.ndarray:
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_graph_multiplies_extreme_codes_exactly(tmp_path):
    """Every code at its bound (the case that saturates 16-bit pair sums of ±127 weights): the
    integer product equals numpy's int64 one exactly."""
    write_product_graph(tmp_path / GRAPH_FILE)
    product = IntegerProduct(tmp_path / GRAPH_FILE)
    rng = np.random.default_rng(0)
    codes = rng.choice(np.array([-127, 127], np.int8), size=(50, DIM))
    codes[0] = 127  # a row whose shifted bytes are all 255
    question = rng.choice(np.array([-QUESTION_MAX, QUESTION_MAX], np.int8), size=(DIM, 6))
    shifted = np.bitwise_xor(codes.view(np.uint8), np.uint8(128))
    result = product.session().run(None, {"rows": shifted, "question": question})[0]
    expected = codes.astype(np.int64) @ question.astype(np.int64)  # the zero point takes the 128 off
    assert result.dtype == np.int32 and np.array_equal(result, expected)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**31 - 1))
def test_question_codes_carry_13_bits(tokens, seed):
    question = unit_rows(np.random.default_rng(seed), tokens)
    codes, scales = quantise_question(question)
    assert codes.shape == (DIM, 2 * tokens) and codes.dtype == np.int8
    assert np.abs(codes[:, :tokens]).max() <= QUESTION_MAX and np.abs(codes[:, tokens:]).max() <= 32
    rebuilt = (codes[:, :tokens] + codes[:, tokens:] / 64).T * scales[:, None]
    assert np.abs(rebuilt - question).max() <= scales.max() / 128 + 1e-7


def test_integer_similarity_equals_the_float_product_of_the_stored_rows(tmp_path):
    rng = np.random.default_rng(1)
    codes, scales = quantise_rows(unit_rows(rng, 300))
    question = unit_rows(rng, 17)
    write_product_graph(tmp_path / GRAPH_FILE)
    got = IntegerProduct(tmp_path / GRAPH_FILE).similarity(gather_shifted(codes, [(0, 300)]), scales, question)
    expected = (codes.astype(np.float32) * scales[:, None]) @ question.T
    # each product is off by at most ‖row‖₁ × (question scale / 128) ≈ 4e-4 here; typically far less
    row_norms = np.abs(codes.astype(np.float32) * scales[:, None]).sum(axis=1)[:, None]
    bound = row_norms * quantise_question(question)[1] / 128
    assert got.shape == (300, 17) and (np.abs(got - expected) <= bound + 1e-6).all()
    assert np.abs(got - expected).mean() < 2e-5


def test_gathered_rows_are_the_spans_shifted_by_128():
    codes = np.random.default_rng(3).integers(-127, 128, size=(20, 8)).astype(np.int8)
    spans = [(5, 9), (0, 2), (12, 12), (15, 20)]
    got = gather_shifted(codes, spans)
    expected = np.concatenate([codes[a:b] for a, b in spans]).astype(np.int16) + 128
    assert got.dtype == np.uint8 and np.array_equal(got.astype(np.int16), expected)


def test_an_index_scores_alike_with_and_without_its_graph(tmp_path):
    """The index writes the graph and uses it; an index without it (written before) scores in
    float32, and the two agree far below the gaps that order passages."""
    rng = np.random.default_rng(2)
    passages = {f"chunk-{i:016x}": unit_rows(rng, n) for i, n in enumerate((40, 3, 120, 75))}
    write_token_index(tmp_path / "index", "sig", "model", ((c, *quantise_rows(rows)) for c, rows in passages.items()))
    assert (tmp_path / "index" / GRAPH_FILE).exists()
    question = unit_rows(rng, 9)
    integer = TokenIndex(tmp_path / "index")
    a = integer.maxsim(question, list(passages))
    (tmp_path / "index" / GRAPH_FILE).unlink()
    floating = TokenIndex(tmp_path / "index")
    assert integer.product is not None and floating.product is None
    b = floating.maxsim(question, list(passages))
    assert a.keys() == b.keys() == passages.keys()
    assert max(abs(a[c] - b[c]) for c in a) < 1e-4


def test_a_damaged_graph_falls_back_to_the_float_product(tmp_path, caplog):
    rng = np.random.default_rng(4)
    passages = {f"chunk-{i:016x}": unit_rows(rng, n) for i, n in enumerate((30, 8, 60))}
    write_token_index(tmp_path / "index", "sig", "model", ((c, *quantise_rows(rows)) for c, rows in passages.items()))
    question = unit_rows(rng, 5)
    expected = TokenIndex(tmp_path / "index").maxsim(question, list(passages))
    (tmp_path / "index" / GRAPH_FILE).write_bytes(b"not an onnx graph")
    damaged = TokenIndex(tmp_path / "index")
    with caplog.at_level("WARNING"):
        got = damaged.maxsim(question, list(passages))
    assert damaged.product is None and "integer product unusable" in caplog.text
    assert got.keys() == expected.keys() and max(abs(got[c] - expected[c]) for c in got) < 1e-4


def test_an_unusable_graph_is_dropped_when_opened(tmp_path, caplog):
    rng = np.random.default_rng(6)
    write_token_index(tmp_path / "index", "sig", "model", [("chunk-a", *quantise_rows(unit_rows(rng, 4)))])
    (tmp_path / "index" / GRAPH_FILE).write_bytes(b"\x00")
    index = TokenIndex(tmp_path / "index")
    with caplog.at_level("WARNING"):
        index.open_product()
    assert index.product is None and "scoring in float32" in caplog.text
    assert set(index.maxsim(unit_rows(rng, 2), ["chunk-a"])) == {"chunk-a"}


def test_the_product_opens_on_the_threads_asked_and_scores_alike(tmp_path):
    """The server opens the product on the query encoder's threads (a cooperative search's wide
    product): integer sums are exact, so the scores equal a one-thread product's to the bit."""
    rng = np.random.default_rng(8)
    passages = {f"chunk-{i}": unit_rows(rng, 40) for i in range(30)}
    write_token_index(tmp_path / "index", "sig", "model", [(c, *quantise_rows(r)) for c, r in passages.items()])
    one, two = TokenIndex(tmp_path / "index"), TokenIndex(tmp_path / "index")
    one.open_product()
    two.open_product(threads=2)
    assert two.product is not None and two.product.session().get_session_options().intra_op_num_threads == 2
    assert one.product is not None and one.product.session().get_session_options().intra_op_num_threads == 1
    questions = [unit_rows(rng, 20) for _ in range(4)]
    assert one.maxsim_groups(questions, list(passages)) == two.maxsim_groups(questions, list(passages))
