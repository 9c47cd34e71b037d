"""Fewer garbage collections while a front end loads what it keeps for its whole life.

Starting `karyi lsp` imports pygls and lsprotocol, `karyi run` the openai or anthropic
SDK: hundreds of thousands of objects (classes, schemas, pydantic models) that live as
long as the process. Python collects its youngest generation every 700 allocations, so
the collector walked them ~120 times on the way, and once in full: ~37 ms of the
language server's ~330 ms start-up, ~20 ms with this (measured with `gc.callbacks`).
The memory after start-up is the same to 0.3 MB, unlike pausing the collector, which
left ~9 MB more (benches/bench_startup.py).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 5000
"""Allocations between two collections of the youngest generation while loading
(Python's default is 700)."""


_lock = threading.Lock()
_depth = 0
_saved: tuple[int, ...] = ()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect the youngest generation less often inside; the thresholds are given back
    when the last of the nested (or concurrent: the ACP stack loads in a thread) uses is
    left, however it is left."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(YOUNG_THRESHOLD, *_saved[1:])
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_saved)
