"""Recording the corpus signature: the state every index must be built from."""

from __future__ import annotations

import datetime as dt

from corpus.state.layout import StateLayout, atomic_write_json
from corpus.state.signature import compute_signature, signature_rows


def record_signature(layout: StateLayout) -> str:
    """Compute the live signature and record it as the state every index must be built from."""
    signature = compute_signature(layout)
    atomic_write_json(
        layout.signature_file,
        {
            "signature": signature,
            "documents": len(signature_rows(layout)),
            "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        },
    )
    return signature
