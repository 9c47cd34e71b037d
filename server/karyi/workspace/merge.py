"""Rebasing an edit onto text that changed since it was computed (a three-way merge).

The agent computed `new` from `base`; meanwhile the user turned `base` into `current`.
Each block the agent changed is applied to `current` only where `current` still holds
exactly the lines the agent saw; if any block touches lines the user changed, there is
no safe merge and the caller must not write (the user's keystrokes win).
"""

from __future__ import annotations

from difflib import Match, SequenceMatcher


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def rebase(base: str, new: str, current: str) -> str | None:
    """`current` with the change `base`→`new` applied, or None when they overlap."""
    if current == base:
        return new
    if new == base:
        return current
    b, n, c = _lines(base), _lines(new), _lines(current)
    theirs = [
        blk for blk in SequenceMatcher(None, b, c, autojunk=False).get_matching_blocks() if blk.size
    ]
    out = list(c)
    ops = [
        op for op in SequenceMatcher(None, b, n, autojunk=False).get_opcodes() if op[0] != "equal"
    ]
    for _tag, i1, i2, j1, j2 in reversed(ops):
        where = _map(theirs, i1, i2)
        if where is None:
            return None
        c1, c2 = where
        out[c1:c2] = n[j1:j2]
    return "".join(out)


def _map(blocks: list[Match], i1: int, i2: int) -> tuple[int, int] | None:
    """Where base lines [i1, i2) are in `current`, if they are unchanged there."""
    for blk in blocks:
        start, end = blk.a, blk.a + blk.size
        if i1 == i2:  # an insertion: its neighbours must be unchanged
            if start < i1 < end or (i1 == start and i1 == 0) or (i1 == end and start < i1):
                return blk.b + (i1 - start), blk.b + (i1 - start)
            continue
        if start <= i1 and i2 <= end:
            return blk.b + (i1 - start), blk.b + (i2 - start)
    return None
