"""Rebasing an edit onto text that changed since it was computed (a three-way merge).

The agent computed `new` from `base`; meanwhile the user turned `base` into `current`.
Each block the agent changed is applied to `current` only where `current` still holds
exactly the lines the agent saw, with the same neighbours; a block the user already made
in the same way is taken as done (never applied twice). Any other block that touches or
abuts lines the user changed has no safe merge, and the caller must not write (the
user's keystrokes win).
"""

from __future__ import annotations

from difflib import Match, SequenceMatcher


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def rebase(base: str, new: str, current: str) -> str | None:
    """`current` with the change `base`→`new` applied, or None when they overlap."""
    if current in (base, new):
        return new
    if new == base:
        return current
    b, n, c = _lines(base), _lines(new), _lines(current)
    # Matching blocks never abut (difflib merges adjacent ones): a block boundary inside
    # `base` is always a place where the user changed something.
    theirs = [
        blk for blk in SequenceMatcher(None, b, c, autojunk=False).get_matching_blocks() if blk.size
    ]
    out = list(c)
    ops = [
        op for op in SequenceMatcher(None, b, n, autojunk=False).get_opcodes() if op[0] != "equal"
    ]
    for _tag, i1, i2, j1, j2 in reversed(ops):
        where = _unchanged(theirs, i1, i2, len(b), len(c))
        if where is not None:
            c1, c2 = where
            out[c1:c2] = n[j1:j2]
        elif not _made_alike(theirs, i1, i2, len(b), len(c), c, n[j1:j2]):
            return None
    return "".join(out)


def _unchanged(
    blocks: list[Match], i1: int, i2: int, base_len: int, current_len: int
) -> tuple[int, int] | None:
    """Where base lines [i1, i2) are in `current`, if they and their place are unchanged.

    A replaced or deleted run must lie inside one block. An insertion needs the lines on
    both sides of it adjacent in `current` as in `base`: inside one block, or at the
    start or end of a file whose start or end the user left alone.
    """
    for blk in blocks:
        start, end = blk.a, blk.a + blk.size
        if i1 < i2:
            if start <= i1 and i2 <= end:
                return blk.b + (i1 - start), blk.b + (i2 - start)
            continue
        inside = start < i1 < end
        at_start = i1 == start == 0 and blk.b == 0
        at_end = i1 == end == base_len and blk.b + blk.size == current_len
        if inside or at_start or at_end:
            return blk.b + (i1 - start), blk.b + (i1 - start)
    if not blocks and base_len == 0 and current_len == 0:
        return 0, 0
    return None


def _made_alike(
    blocks: list[Match],
    i1: int,
    i2: int,
    base_len: int,
    current_len: int,
    current: list[str],
    lines: list[str],
) -> bool:
    """True when the user already turned base lines [i1, i2) into `lines`, in place:
    the text between the unchanged neighbours of the run is exactly `lines`."""
    left = 0 if i1 == 0 else next((k.b + k.size for k in blocks if k.a + k.size == i1), None)
    right = current_len if i2 == base_len else next((k.b for k in blocks if k.a == i2), None)
    return left is not None and right is not None and current[left:right] == lines
