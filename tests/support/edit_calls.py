"""Calling the edit engine in tests: one file's text and find/replace pairs."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from karyi.workspace.edits import EditError, EditOutcome, Pair, apply_edits

LINES = st.sampled_from(["alpha\n", "beta\n", "gamma delta\n", "\n", "  indented\n", "x"])
"""Lines to build texts from in property tests: repeats, blanks, indentation, no newline."""


def edit(text: str | None, *pairs: tuple[str, str] | Pair) -> EditOutcome:
    """The outcome of applying `pairs` to `text` (as the file `f.py`)."""
    return apply_edits(text, [p if isinstance(p, Pair) else Pair(*p) for p in pairs], path="f.py")


def refused(text: str | None, *pairs: tuple[str, str] | Pair) -> EditError:
    """The refusal applying `pairs` to `text` raises."""
    with pytest.raises(EditError) as info:
        edit(text, *pairs)
    return info.value
