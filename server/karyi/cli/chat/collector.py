"""The garbage collector's full passes kept out of the frames while an answer streams.

A full (oldest-generation) pass over what a long session has made since it was drawn
takes 5-8 ms here, half a frame, and the interpreter starts one whenever its counts say
so, in the middle of a screen update as often as not. While an answer streams the
chat holds them back; when the prose is whole it gives the threshold back and runs the
pass itself, between frames (docs/terminal.md#speed).
"""

from __future__ import annotations

import gc

HELD_THRESHOLD = 1_000_000
"""The oldest generation's threshold while held: in effect, never."""

_saved: int | None = None


def hold_full_collections() -> None:
    """No full pass from now until `release_full_collections` (the young generations
    are still collected as usual, so short-lived cycles are freed)."""
    global _saved
    if _saved is None:
        young, middle, old = gc.get_threshold()
        _saved = old
        gc.set_threshold(young, middle, HELD_THRESHOLD)


def release_full_collections() -> None:
    """Give the threshold back and run the pass that was held, now, between frames."""
    global _saved
    if _saved is None:
        return
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, _saved)
    _saved = None
    gc.collect()


def keep_out_of_collections() -> None:
    """What the conversation now holds lives as long as it: the collector's full passes
    leave it alone (over a long session's widgets one took ~100 ms, a dropped frame while
    an answer streams). `/clear` gives it back (commands.py)."""
    gc.freeze()
