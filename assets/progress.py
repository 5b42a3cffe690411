"""Progress reporting for long per-document loops: Dagster run log (UI) and the console."""


import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

import dagster as dg

T = TypeVar("T")


def track(context: dg.AssetExecutionContext, items: Iterable[T], label: str) -> Iterator[T]:
    """Yield items, logging `label i/n` with elapsed time every item (Dagster logs reach both)."""
    items = list(items)
    started = time.perf_counter()
    for index, item in enumerate(items, 1):
        yield item
        context.log.info(f"{label} {index}/{len(items)} ({time.perf_counter() - started:.1f} s)")
