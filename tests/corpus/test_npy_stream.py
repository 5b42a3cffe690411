"""The streamed .npy writer: what np.load reads back is what was appended, block by block."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.indexes.npy_stream import PREAMBLE, NpyAppender, _preamble


@settings(max_examples=25, deadline=None)
@given(blocks=st.lists(st.integers(min_value=0, max_value=40), max_size=8), width=st.integers(1, 9))
def test_blocks_read_back_whole_and_in_order(tmp_path_factory, blocks, width):
    path = tmp_path_factory.mktemp("npy") / "rows.npy"
    rng = np.random.default_rng(len(blocks) * 10 + width)
    written = [rng.integers(-127, 128, size=(n, width)).astype(np.int8) for n in blocks]
    with NpyAppender(path, np.int8, (width,)) as out:
        for block in written:
            out.append(block)
    expected = np.concatenate(written) if written else np.zeros((0, width), np.int8)
    assert np.array_equal(np.load(path), expected)
    assert np.array_equal(np.load(path, mmap_mode="r"), expected)


def test_vectors_of_scalars(tmp_path):
    path = tmp_path / "scales.npy"
    with NpyAppender(path, np.float32, ()) as out:
        out.append(np.array([0.5, 1.5], np.float32))
        out.append(np.array([2.5], np.float32))
    assert np.load(path).tolist() == [0.5, 1.5, 2.5]


def test_a_block_of_another_shape_or_type_is_refused(tmp_path):
    with NpyAppender(tmp_path / "a.npy", np.int8, (4,)) as out:
        with pytest.raises(ValueError, match="does not match"):
            out.append(np.zeros((2, 5), np.int8))
        with pytest.raises(ValueError, match="does not match"):
            out.append(np.zeros((2, 4), np.int16))


def test_a_failed_write_leaves_no_file(tmp_path):
    path = tmp_path / "a.npy"
    with pytest.raises(RuntimeError):
        with NpyAppender(path, np.int8, (4,)) as out:
            out.append(np.zeros((3, 4), np.int8))
            raise RuntimeError("the rows' source failed")
    assert not path.exists()


def test_the_header_holds_the_largest_shapes():
    assert len(_preamble(np.dtype(np.int8), (2**62, 4096))) == PREAMBLE
