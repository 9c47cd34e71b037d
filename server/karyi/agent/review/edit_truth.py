"""What the model is told after the user changed its edit: the file as it now is.

An editor may answer an edit's preview hunk by hunk, or with the user's own text
(`agent/review/edit_answer.py`); the text written is then the user's, not the tool's, but the
tool's result still describes its own proposal, rejected hunks included. A model that
reads it reasons about code that is not there. `truthful` replaces that result, for a
call whose written text differs from the tool's, with the truth taken from the call's
write journal: per hunk of the proposal whether it was applied, rejected or rewritten
by the user (and any change of the user's own), with the lines around it as they now
are, numbered, so the model need not read the file again. It runs once, around every
call, so every edit tool and every front end tells the same truth (docs/tools.md,
"What the model is told when the user changed the edit").
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Literal

from karyi.core.results import ToolResult
from karyi.workspace.diffs import Hunk, diff_texts, split_keep
from karyi.workspace.editor import WriteRecord

Status = Literal["accepted", "rejected", "modified", "user"]
Opcode = tuple[str, int, int, int, int]

CONTEXT = 3
"""Unchanged lines shown on each side of a change."""
MAX_SHOWN = 30
"""Lines shown per change at most; the rest is counted (the model can read the file)."""
MAX_PROPOSAL = 12
"""Lines of a rejected or rewritten proposal quoted back at most."""
FRONTIER = 64
"""Alternatives followed at once while matching hunks (identical hunks make several)."""
FOOTER = "Continue from the file as shown here, not from your proposal."


@dataclass(frozen=True)
class Fate:
    """What became of one change: a hunk of the proposal (`hunk`), or a change of the
    user's own outside every hunk (`hunk` None). `start`/`end` are the lines (0-based,
    end exclusive) the change occupies in the written text."""

    status: Status
    hunk: Hunk | None
    start: int
    end: int


def overridden(record: WriteRecord) -> bool:
    """True when the user's answer made the written text differ from the tool's."""
    return record.proposed is not None and record.proposed != record.after


def truthful(
    result: ToolResult,
    journal: Sequence[WriteRecord],
    overrides: Mapping[str, tuple[str, str]] | None = None,
) -> ToolResult:
    """`result` with what the model reads replaced by the truth about every file the call
    wrote, when the user's answer changed what was written; `result` itself otherwise.

    `overrides` (path -> (text the user saw, their text)) tells whether the file changed
    between the preview and the write.
    """
    if not any(overridden(w) for w in journal):
        return result
    seen = overrides or {}
    files = [(w, fates(w.before or "", _proposal(w), w.after)) for w in journal]
    text = "\n".join(report(w, f, _seen(seen, w)) for w, f in files) + "\n" + FOOTER
    if not result.success and result.error is not None:
        text += f"\nThe call also failed: {result.error.message}"
    written = [_written_json(w, f) for w, f in files]
    return dataclasses.replace(result, llm_content=text, data=_data(result.data, text, written))


def _proposal(record: WriteRecord) -> str:
    return record.after if record.proposed is None else record.proposed


def _seen(overrides: Mapping[str, tuple[str, str]], record: WriteRecord) -> str | None:
    override = overrides.get(str(record.path))
    return override[0] if override is not None else None


def _data(data: Any, text: str, written: list[dict[str, Any]]) -> Any:
    """Programs get the truth too: a result whose data is its sentence (agentxml, which
    shows the model `data`) gets the report; a dict gets a `written` entry."""
    if isinstance(data, str):
        return text
    if isinstance(data, dict):
        return {**data, "written": written}
    return data


def _written_json(record: WriteRecord, changes: Sequence[Fate]) -> dict[str, Any]:
    return {
        "path": record.display,
        "changes": [
            {
                "hunk": f.hunk.id if f.hunk is not None else None,
                "status": f.status,
                "lines": [f.start + 1, f.end],
            }
            for f in changes
        ],
    }


# --- which hunks became what ---------------------------------------------------------


def fates(before: str, proposed: str, after: str) -> list[Fate]:
    """What became of each hunk of `before`→`proposed` in `after`, in file order.

    When `after` is `before` with some hunks applied exactly (an answer by hunks), each
    hunk is accepted or rejected. Otherwise (the user's own text) a hunk whose lines the
    user's text leaves alone is rejected, one it reproduces is accepted, and any other is
    modified; changes of the user's own outside every hunk are listed too.
    """
    hunks = diff_texts(before, proposed, path="").hunks
    starts = _starts(split_keep(after))
    exact = _exact(before, hunks, after)
    if exact is not None:
        return [
            Fate(
                "accepted" if ok else "rejected",
                h,
                bisect_right(starts, a) - 1,
                bisect_left(starts, b),
            )
            for h, (ok, a, b) in zip(hunks, exact, strict=True)
        ]
    return _by_lines(before, hunks, after)


def _starts(lines: Sequence[str]) -> list[int]:
    """The offset where each line starts, and the text's length last."""
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out


def _exact(before: str, hunks: Sequence[Hunk], after: str) -> list[tuple[bool, int, int]] | None:
    """Per hunk (applied, start, end in `after`) when `after` is `before` with a subset of
    the hunks applied exactly; None when no subset gives `after`.

    Walks the hunks in order keeping every offset of `after` the choices so far can
    reach (usually one; identical neighbouring hunks can make two), then backtracks.
    """
    steps: list[dict[int, tuple[int, bool]]] = []
    frontier, prev = [0], 0
    for h in hunks:
        reached = _step(before, after, h, prev, frontier)
        if not reached:
            return None
        steps.append(reached)
        frontier, prev = list(reached)[:FRONTIER], h.end
    ends = [pos for pos in frontier if after[pos:] == before[prev:]]
    if not ends:
        return None
    pos, out = ends[0], []
    for h, step in zip(reversed(hunks), reversed(steps), strict=True):
        back, applied = step[pos]
        length = len(h.new_text) if applied else h.end - h.start
        out.append((applied, pos - length, pos))
        pos = back
    return out[::-1]


def _step(
    before: str, after: str, h: Hunk, prev: int, frontier: Sequence[int]
) -> dict[int, tuple[int, bool]]:
    """Where in `after` each choice for hunk `h` (applied first, then not) can end, from
    each offset reached after the previous hunk (which ended at `prev` in `before`)."""
    gap, old = before[prev : h.start], before[h.start : h.end]
    reached: dict[int, tuple[int, bool]] = {}
    for pos in frontier:
        if not after.startswith(gap, pos):
            continue
        at = pos + len(gap)
        for applied, text in ((True, h.new_text), (False, old)):
            if after.startswith(text, at):
                reached.setdefault(at + len(text), (pos, applied))
    return reached


def _by_lines(before: str, hunks: Sequence[Hunk], after: str) -> list[Fate]:
    """The fates of the hunks against text the user wrote, by a line diff of `before`
    and `after`: each hunk is compared with the user's change that touches it."""
    old, new = split_keep(before), split_keep(after)
    ops: Sequence[Opcode] = SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    changes = [op for op in ops if op[0] != "equal"]
    starts = _starts(old)
    out: list[Fate] = []
    used: set[Opcode] = set()
    for h in hunks:
        a, b = bisect_left(starts, h.start), bisect_left(starts, h.end)
        touching = [op for op in changes if _touch(a, b, op[1], op[2])]
        used.update(touching)
        lo = min([a, *(op[1] for op in touching)])
        hi = max([b, *(op[2] for op in touching)])
        start = _map_start(ops, lo)
        if not touching:  # its lines are as they were
            out.append(Fate("rejected", h, start, start + b - a))
            continue
        end = _map_end(ops, hi)
        wanted = "".join(old[lo:a]) + h.new_text + "".join(old[b:hi])
        out += _compare(h, wanted, new, start, end)
    out += [Fate("user", None, op[3], op[4]) for op in changes if op not in used]
    return sorted(out, key=lambda f: (f.start, f.end))


def _compare(h: Hunk, wanted: str, new: Sequence[str], start: int, end: int) -> list[Fate]:
    """The hunk against the user's lines [start, end) where it applies: accepted when
    they are what it proposed (lines the user added just before or after are their own
    change), modified otherwise."""
    actual = "".join(new[start:end])
    n = len(split_keep(wanted))
    if actual == wanted:
        return [Fate("accepted", h, start, end)]
    if actual.startswith(wanted) and "".join(new[start : start + n]) == wanted:
        return [Fate("accepted", h, start, start + n), Fate("user", None, start + n, end)]
    if actual.endswith(wanted) and "".join(new[end - n : end]) == wanted:
        return [Fate("user", None, start, end - n), Fate("accepted", h, end - n, end)]
    return [Fate("modified", h, start, end)]


def _touch(a: int, b: int, i1: int, i2: int) -> bool:
    """Whether the user's change of lines [i1, i2) touches the hunk's lines [a, b).

    A hunk that inserts (a == b) is touched by a change at or around its place; lines
    the user inserted at the edge of a hunk that replaces are their own change.
    """
    if a == b:
        return i1 <= a <= i2
    if i1 == i2:
        return a < i1 < b
    return i1 < b and a < i2


def _map_start(ops: Sequence[Opcode], x: int) -> int:
    """The first line of the new text that line boundary `x` of the old one maps to."""
    for tag, i1, i2, j1, j2 in ops:
        if i1 <= x <= i2:
            return j1 + (x - i1) if tag == "equal" else (j1 if x == i1 else j2)
    return ops[-1][4] if ops else 0


def _map_end(ops: Sequence[Opcode], x: int) -> int:
    """The last line of the new text that line boundary `x` of the old one maps to."""
    for tag, i1, i2, j1, j2 in reversed(ops):
        if i1 <= x <= i2:
            return j1 + (x - i1) if tag == "equal" else (j2 if x == i2 else j1)
    return 0


# --- what the model reads ------------------------------------------------------------


def report(record: WriteRecord, changes: Sequence[Fate], seen: str | None = None) -> str:
    """One file's truth: a headline, then each change with its lines as they now are."""
    lines = split_keep(record.after)
    out = [_headline(record.display, changes)]
    for fate in changes:
        out += _change(fate, lines)
    if seen is not None and record.before is not None and seen != record.before:
        out.append(
            f"Note: {record.display} changed between the preview the user answered and the "
            "write (the user typed in it, or it changed on disk); that change is kept, so "
            "lines not shown here may differ from what you read."
        )
    return "\n".join(out)


def _headline(display: str, changes: Sequence[Fate]) -> str:
    statuses = {f.status for f in changes}
    if statuses <= {"accepted"}:
        return f"{display}: written as you proposed."
    if statuses == {"rejected"}:
        return f"{display}: the user rejected every change you proposed to it; it is unchanged."
    if statuses & {"modified", "user"}:
        return (
            f"{display}: the user edited your change before it was written; what the file "
            "holds now, change by change:"
        )
    return (
        f"{display}: the user applied only part of your edit; what the file holds now, "
        "change by change:"
    )


def _change(fate: Fate, lines: Sequence[str]) -> list[str]:
    """The sentence for one change, the proposal it replaced, and its lines now."""
    h = fate.hunk
    if h is None:
        caption, *shown = _window(lines, fate.start, fate.end)
        return [f"The user also changed these lines (not part of your edit). {caption}", *shown]
    if fate.status == "accepted":
        caption, *shown = _window(lines, fate.start, fate.end)
        return [f"{h.id}: applied as you proposed. {caption}", *shown]
    if fate.status == "rejected":
        said = f"{h.id}: rejected by the user, not applied. You proposed:"
        shown = _window(lines, fate.start, fate.end, "(unchanged)")
    else:
        said = f"{h.id}: rewritten by the user; their text was written instead. You proposed:"
        shown = _window(lines, fate.start, fate.end, "(with the user's text)")
    return [said, *_proposed(h), *shown]


def _proposed(h: Hunk) -> list[str]:
    """The hunk's removed and added lines, as the model wrote them in its proposal."""
    body = [f"  {line}" for line in h.lines if line[:1] in ("-", "+", "\\")]
    if len(body) > MAX_PROPOSAL:
        cut = len(body) - MAX_PROPOSAL
        body = [*body[:MAX_PROPOSAL], f"  ... ({cut} more lines of your proposal)"]
    return body


def _window(lines: Sequence[str], start: int, end: int, how: str = "") -> list[str]:
    """The change's lines and a few around them, numbered as the file now is."""
    lo, hi = max(0, start - CONTEXT), min(len(lines), max(start, end) + CONTEXT)
    suffix = f" {how}" if how else ""
    if hi <= lo:
        return [f"The file is now empty{suffix}."]
    shown = min(hi, lo + MAX_SHOWN)
    width = len(str(shown))
    out = [f"Lines {lo + 1}-{hi} now{suffix}:"]
    out += [_numbered(n, lines[n - 1], width) for n in range(lo + 1, shown + 1)]
    if shown < hi:
        out.append(f"  ... ({hi - shown} more lines; read the file to see them)")
    return out


def _numbered(n: int, line: str, width: int) -> str:
    bare = line.rstrip("\n").removesuffix("\r")
    return f"  {n:>{width}}:" + (f" {bare}" if bare else "")
