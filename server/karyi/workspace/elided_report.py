"""What the model is told about an elided edit (docs/tools.md#elided-edits): which lines
of the file each elision stood for and whether they were kept or replaced, or that a new
file's text looked elided and was written as given."""

from __future__ import annotations

from collections.abc import Sequence

from karyi.workspace.elided_pairs import ElidedEdit
from karyi.workspace.elision import looks_elided
from karyi.workspace.matching import STRATEGY_NOTES
from karyi.workspace.patched import PatchedText


def _lines(doc: PatchedText, spans: Sequence[tuple[int, int]]) -> list[str]:
    out = []
    for a, b in spans:
        first = doc.slice(0, a).count("\n") + 1
        count = doc.slice(a, b).count("\n")
        if count == 0:
            out.append(f"no lines (before line {first})")
        elif count == 1:
            out.append(f"line {first}")
        else:
            out.append(f"lines {first}-{first + count - 1}")
    return out


def elided_note(doc: PatchedText, edit: ElidedEdit) -> str:
    """`the elision stood for lines 5-30, kept as they are`, and how the anchors matched."""
    parts = []
    if edit.kept:
        parts.append(f"the elision stood for {', '.join(_lines(doc, edit.kept))}, kept as they are")
    if edit.replaced:
        parts.append(
            f"the elision stood for {', '.join(_lines(doc, edit.replaced))}, replaced (your "
            "replacement has no elision there)"
        )
    if edit.layer != "exact":
        parts.append(f"the lines around it {STRATEGY_NOTES[edit.layer]}")
    return "; ".join(parts)


def new_file_note(text: str) -> str:
    """For a new file whose text has an elision-looking line: it was written as given."""
    lines = text.split("\n")
    found = looks_elided(lines)
    if not found:
        return ""
    shown = ", ".join(f"line {i + 1} ({lines[i].strip()!r})" for i in found[:3])
    return (
        f"{shown} looked like an elision, but the file is new, so nothing could stand in for "
        "it: it was written as given; write the lines out if you meant other code there"
    )
