"""The MaxSim product in int8: candidate token rows × question tokens by ONNX Runtime's MatMulInteger.

numpy has no integer BLAS, so the float product of the candidates' token rows with a question's
token vectors, plus widening the rows to float32, was most of late interaction's cost.
MatMulInteger multiplies uint8 × int8 directly (VNNI where the CPU has it): the same product in
integers, in much less time (docs/measurements.md, Serving).

The stored rows are int8; a row XOR 0x80 read as uint8 is row + 128, and the node's zero point of
128 takes it off again: the product is `rows · q` exactly, in int32. The question is quantised per
token into two parts of at most 7 bits each (quantise_question), not one of 8: with 7-bit weights no
pair of uint8 × int8 products can saturate the 16-bit sums of CPUs without VNNI
(255 × 63 × 2 < 32,767), so the integer product is exact on every x86 CPU.

The graph (one node) is written beside the token index at build time; importing the `onnx` package
would lengthen the server's start, and ONNX Runtime only reads it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

GRAPH_FILE = "product.onnx"
QUESTION_MAX = 63  # 7-bit question weights: no 16-bit saturation (see above)
LOW_STEPS = 64  # the second part of a question weight: its remainder in 1/64 steps (quantise_question)
UINT8_OFFSET = 128


def write_product_graph(path: Path) -> None:
    """Write the one-node graph (uint8 [rows, dim] − 128) × int8 [dim, tokens] → int32 [rows, tokens]."""
    import onnx
    from onnx import TensorProto, helper

    node = helper.make_node("MatMulInteger", ["rows", "question", "row_zero_point"], ["product"])
    zero_point = helper.make_tensor("row_zero_point", TensorProto.UINT8, [], [UINT8_OFFSET])
    graph = helper.make_graph(
        [node],
        "maxsim_product",
        [
            helper.make_tensor_value_info("rows", TensorProto.UINT8, ["rows", "dim"]),
            helper.make_tensor_value_info("question", TensorProto.INT8, ["dim", "tokens"]),
        ],
        [helper.make_tensor_value_info("product", TensorProto.INT32, ["rows", "tokens"])],
        initializer=[zero_point],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # readable by every ONNX Runtime this project pins and newer
    onnx.checker.check_model(model)
    staging = path.with_name(f".{path.name}.{os.getpid()}")
    staging.write_bytes(model.SerializeToString())
    os.replace(staging, path)


def quantise_question(question: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 [dim, 2 × tokens], float32 scale per token): q ≈ scale × (high + low / LOW_STEPS),
    high within ±QUESTION_MAX and low the rounding remainder in 1/LOW_STEPS steps (±32), the high
    codes of every token first. 7 bits alone moved near-tied MaxSim scores by up to 6e-4 and
    reordered some top 10s; the two parts together are 13 bits, finer than the stored rows."""
    question = np.asarray(question, dtype=np.float32)
    scales = np.abs(question).max(axis=1) / QUESTION_MAX
    scaled = question / np.where(scales > 0, scales, 1.0)[:, None]
    high = np.round(scaled)
    low = np.round((scaled - high) * LOW_STEPS)
    codes = np.concatenate([high, low]).astype(np.int8).T
    return np.ascontiguousarray(codes), scales.astype(np.float32)


class IntegerProduct:
    """The graph at `path` in an ONNX Runtime session of `threads` threads (opened on first use)."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self.path = path
        self.threads = threads  # set before the session opens (TokenIndex.open_product)
        self._session = None
        self._lock = threading.Lock()

    def session(self):
        """The ONNX Runtime session, opened once (the engine opens it while it warms up)."""
        with self._lock:
            if self._session is None:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                self._session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        return self._session

    def similarity(self, rows: np.ndarray, row_scales: np.ndarray, question: np.ndarray) -> np.ndarray:
        """float32 [rows, tokens]: the cosine of each stored row with each question token vector.
        `rows` are the stored int8 codes shifted to uint8 (gather_shifted)."""
        scaled, column_scales = self._row_scaled(rows, row_scales, question)
        scaled *= column_scales[None, :]
        return scaled

    def best(self, rows: np.ndarray, row_scales: np.ndarray, starts: np.ndarray, question: np.ndarray) -> np.ndarray:
        """float32 [groups, tokens]: `similarity`'s maximum over each group of rows (a passage's,
        from `starts`), the same values: the question token's scale multiplies the maxima, not
        every row (rounding a product by a positive number keeps its order, so the maximum of the
        products is the product of the maximum)."""
        scaled, column_scales = self._row_scaled(rows, row_scales, question)
        if not (column_scales > 0).all():  # a token of zeros: keep the order of the operations
            scaled *= column_scales[None, :]
            return np.maximum.reduceat(scaled, starts, axis=0)
        best = np.maximum.reduceat(scaled, starts, axis=0)
        best *= column_scales[None, :]
        return best

    def _row_scaled(
        self, rows: np.ndarray, row_scales: np.ndarray, question: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(the integer products × each row's scale, each question token's scale)."""
        q_codes, q_scales = quantise_question(question)
        product = self.session().run(None, {"rows": rows, "question": q_codes})[0]
        # high × 64 + low in int32 (exact: |value| < 2^21), then one float pass per scale: cheaper
        # than a float matrix product joining the parts
        tokens = q_scales.shape[0]
        joined = product[:, :tokens] * LOW_STEPS
        joined += product[:, tokens:]
        # widened to float32 (exact) and multiplied in one pass, as astype then *= would
        scaled = np.multiply(joined, row_scales[:, None], dtype=np.float32)
        return scaled, q_scales / LOW_STEPS


def gather_shifted(codes: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    """The int8 rows of `spans` (from a memory map), concatenated as uint8 codes + 128 (the bytes
    XOR 0x80): copying and shifting in one pass over the rows instead of two."""
    out = np.empty((sum(b - a for a, b in spans), codes.shape[1]), dtype=np.uint8)
    at = 0
    for a, b in spans:
        np.bitwise_xor(codes[a:b].view(np.uint8), np.uint8(UINT8_OFFSET), out=out[at : at + b - a])
        at += b - a
    return out
