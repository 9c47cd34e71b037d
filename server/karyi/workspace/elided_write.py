"""A whole-file write whose content leaves unchanged code out (docs/tools.md#elided-edits).

`def a(): …\\n# ... existing code ...\\ndef c(): …` written over a file holding `a`, `b`
and `c` means: the file's lines between `a` and `c` stay. Each elision keeps the file's
lines between the content's lines around it: the longest run of lines just before the
elision that the file has (or the file's start, when the content begins with it) and the
longest run just after it (or the file's end). Those anchors are placed in the file in
order, each in exactly one way (`anchors.place`, exact or ignoring whitespace at line
ends); everything else is the content as written. The result is never the content
with its markers, and a merge that is not certain is refused with the reason.

A content with no elision is the write as given; a new file is written as given, with
a note when a line looked elided (`elided_report.new_file_note`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from karyi.workspace import anchors
from karyi.workspace.anchors import AFTER, SAME_SEGMENT, Block, Haystack, Spot, Unplaced
from karyi.workspace.edit_report import EditError
from karyi.workspace.elided_pairs import ELISION, tokens
from karyi.workspace.elided_report import new_file_note
from karyi.workspace.elision import comment_forms, elided_lines, is_elision, looks_elided
from karyi.workspace.patched import PatchedText
from karyi.workspace.reindent import indent_of

WRITE_LAYERS = (anchors.EXACT, anchors.TRAILING)
"""A whole file is written with its indentation: only line ends are forgiven."""


@dataclass(frozen=True)
class MergedWrite:
    """The text to write and what the model is told about it ("" when nothing to say)."""

    text: str
    note: str = ""


def merge_write(original: str | None, content: str, *, path: str) -> MergedWrite:
    """The text a whole-file write of `content` over `original` (None: new) means.

    Raises EditError (kind `elision`) when elisions cannot be merged with certainty.
    """
    if original is None:
        return MergedWrite(content, new_file_note(content))
    lf = content.replace("\r\n", "\n")
    lines = lf.split("\n")
    marked = elided_lines(lines, path) if ("..." in lf or "…" in lf) else []
    stubs = _new_stubs(lines, marked, original, path)
    marked = [i for i in marked if i not in stubs]
    _refuse_foreign(lines, marked, original, path)
    if not marked:
        return MergedWrite(content)
    crlf = original.count("\n") > 0 and original.count("\r\n") == original.count("\n")
    base = original.replace("\r\n", "\n") if crlf else original
    newline = lf.endswith("\n")
    body = lines[:-1] if newline else lines
    segments = _segments(tokens(body, path, literal=stubs))
    merged, note = _merge(base, segments, newline, {lines[i].strip() for i in marked}, path)
    return MergedWrite(merged.replace("\n", "\r\n") if crlf else merged, note)


def _refuse_foreign(lines: Sequence[str], marked: Sequence[int], original: str, path: str) -> None:
    """Refuse a comment elision in another language's form (`# ...` in a JavaScript file),
    which would be written into the file as is, unless the file has that very line."""
    have = {ln.strip() for ln in original.split("\n")}
    for i in looks_elided(lines):
        s = lines[i].strip()
        if i not in marked and s not in ("...", "…") and s not in have:
            raise EditError(
                "elision",
                f"line {i + 1} of your content, {s!r}, looks like an elision but is not a "
                f"comment in {path}'s language, so it would be written into the file as is; "
                "write it as a comment of the file's language, or write the lines out "
                "(nothing was written)",
            )


_BLOCK_NAME = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M)


def _new_stubs(lines: Sequence[str], marked: Sequence[int], original: str, path: str) -> set[int]:
    """Bare `...` lines that are the body of a `def`/`class` line the file does not have:
    Python stubs of new code, written as given (an existing block's body is elided)."""
    if comment_forms(path) != comment_forms("x.py"):
        return set()
    have = {ln.strip() for ln in original.split("\n")}
    named = {m[1] for m in _BLOCK_NAME.finditer(original)}
    out = set()
    for i in marked:
        if lines[i].strip() not in ("...", "…") or i == 0:
            continue
        prev = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        nxt = next((lines[j] for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        opens = prev.rstrip().endswith(":") and len(indent_of(lines[i])) > len(indent_of(prev))
        # A stub's `...` is its block's whole body, and the block is new by name: a
        # changed signature over an existing function with `...` below is an elision.
        whole = nxt is None or len(indent_of(nxt)) <= len(indent_of(prev))
        name = _BLOCK_NAME.match(prev)
        new = prev.strip() not in have and (name is None or name[1] not in named)
        if opens and whole and new:
            out.add(i)
    return out


def _segments(toks: Sequence[str]) -> list[list[str]]:
    """The content's stretches between elisions (a leading or trailing one: empty)."""
    segs: list[list[str]] = [[]]
    for t in toks:
        if t == ELISION:
            segs.append([])
        else:
            segs[-1].append(t)
    return segs


def _anchor(hay: Haystack, lines: Sequence[str], tail: bool, at_end: bool) -> Block:
    """The longest run of `lines` at their end (`tail`) or start that the file has."""
    if not lines:
        return Block((), at_end)
    best: tuple[str, ...] = ()
    for k in range(1, len(lines) + 1):
        run = tuple(lines[-k:] if tail else lines[:k])
        if not hay.find(Block(run), WRITE_LAYERS).spots:
            break
        best = run
    return Block(best)


def _merge(
    base: str, segments: Sequence[Sequence[str]], newline: bool, marks: set[str], path: str
) -> tuple[str, str]:
    hay = Haystack(PatchedText(base))
    blocks: list[Block] = []
    for i in range(1, len(segments)):
        blocks.append(_anchor(hay, segments[i - 1], tail=True, at_end=False))
        blocks.append(_anchor(hay, segments[i], tail=False, at_end=True))
    for j, b in enumerate(blocks):
        seg = segments[(j + 1) // 2]
        if seg and not b.lines:
            side = "before" if j % 2 == 0 else "after"
            line = seg[-1] if j % 2 == 0 else seg[0]
            raise EditError(
                "elision",
                f"the line {side} elision {j // 2 + 1} ({line.strip()!r}) is not in {path}, so "
                "nothing marks which of its lines the elision keeps; copy the lines around "
                "each elision exactly from the file (nothing was written)",
            )
    found = [hay.find(b, WRITE_LAYERS) for b in blocks]
    links = [AFTER if j % 2 == 0 else SAME_SEGMENT for j in range(len(blocks) - 1)]
    try:
        spots = anchors.place(found, links)
    except Unplaced as exc:
        raise _unplaced(exc, blocks, hay, path) from None
    gaps = [Spot(spots[j].end, spots[j + 1].start) for j in range(0, len(spots), 2)]
    kept = [hay.doc.slice(g.start, g.end) for g in gaps]
    _check(kept, gaps, marks, hay, path)
    parts: list[str] = []
    for seg, gap in itertools.zip_longest(segments, kept):
        parts.append("".join(ln + "\n" for ln in seg))
        parts.append(gap or "")
    text = "".join(parts)
    if not newline and segments[-1] and text.endswith("\n"):
        text = text[:-1]
    return text, _note(gaps, hay)


def _check(
    kept: Sequence[str], gaps: Sequence[Spot], marks: set[str], hay: Haystack, path: str
) -> None:
    forms = comment_forms(path)
    for k, (text, gap) in enumerate(zip(kept, gaps, strict=True), 1):
        lines = [ln for ln in text.split("\n") if ln.strip()]
        looks = [ln for ln in lines if is_elision(ln, forms)]
        if looks and not all(ln.strip() in marks for ln in lines):
            raise EditError(
                "elision",
                f"elision {k} stands for lines from {hay.line_of(gap.start)} of {path}, which "
                f"hold {looks[0].strip()!r}: a line that looks like an elision itself, so it is "
                "unclear what was left out; write those lines out in full (nothing was written)",
            )


def _note(gaps: Sequence[Spot], hay: Haystack) -> str:
    spans = []
    for g in gaps:
        text = hay.doc.slice(g.start, g.end)
        first = hay.line_of(g.start)
        count = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        if count == 0:
            spans.append(f"no lines (at line {first})")
        else:
            spans.append(f"line {first}" if count == 1 else f"lines {first}-{first + count - 1}")
    return (
        f"Your content had {len(gaps)} elision(s); each was replaced by the file's own lines "
        f"({', '.join(spans)} of the file as it was), so no marker was written."
    )


def _unplaced(exc: Unplaced, blocks: Sequence[Block], hay: Haystack, path: str) -> EditError:
    block = blocks[exc.block]
    side = "before" if exc.block % 2 == 0 else "after"
    what = f"the lines {side} elision {exc.block // 2 + 1} ({block.lines[0].strip()!r}…)"
    lines = [hay.line_of(s.start) for s in exc.spots]
    if exc.why == "ambiguous":
        why = (
            f"fit more than one place in {path} (lines {', '.join(map(str, lines))}); "
            "include more unchanged lines next to the elision"
        )
    else:
        why = f"are in {path} but not in the order of your content"
    return EditError(
        "elision",
        f"cannot tell which lines of {path} your elisions keep: {what} {why} (nothing was written)",
        lines=lines,
    )
