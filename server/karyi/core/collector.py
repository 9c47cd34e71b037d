"""Fewer garbage collections while a front end loads what it keeps for its whole life.

Two ways, by what the loading leaves behind. `fewer_collections` collects the youngest
generation less often (the language server: lsprotocol's classes leave ~17,000 garbage
objects, ~9 MB a pause would keep). `paused` collects nothing until `resume`, which
freezes what was loaded out of every later collection (`karyi run`, `karyi exec` and
`karyi acp`: their start-up leaves 700-1,800 garbage objects, under 1 MB, and the
collector's 67 passes over the openai SDK's models cost ~40 ms before `karyi run`'s
first model request; importing the ACP SDK is 46 ms faster).

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


@contextmanager
def paused() -> Iterator[None]:
    """No collection inside until `resume` is called (at the latest on the way out)."""
    gc.disable()
    try:
        yield
    finally:
        resume()


def resume() -> None:
    """Collect again; every object made so far is left out of later collections
    (`gc.freeze`: they live as long as the process). Only the first call does anything."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
