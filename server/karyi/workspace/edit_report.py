"""What the edit engine tells: how each pair landed, the outcome, and why a pair was refused.

The engine (`edits.apply_edits`) reports each pair so the model learns which slip it
made (docs/tools.md#edit); a refusal carries what one retry needs: the candidates' lines
or the closest region with the lines that differ beyond whitespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from karyi.workspace.closest import Region
from karyi.workspace.diffs import FileDiff
from karyi.workspace.matching import STRATEGY_NOTES


@dataclass(frozen=True)
class Pair:
    """One find/replace pair; `expected` is how many places it must match (default one)."""

    find: str
    replace: str
    expected: int | None = None


@dataclass(frozen=True)
class PairReport:
    """How one pair was applied, told to the model so it learns."""

    index: int
    strategy: str
    count: int
    changed: bool
    first_line: int = 0
    last_line: int = 0
    similarity: float = 1.0
    detail: str = ""
    """More for the model: what an elision stood for, or that a new file looked elided."""

    def describe(self) -> str:
        """`pair 2: lines 10-12, matched ignoring whitespace at line ends`."""
        text = self._describe()
        return f"{text}; {self.detail}" if self.detail else text

    def _describe(self) -> str:
        where = (
            f"line {self.first_line}"
            if self.first_line == self.last_line
            else f"lines {self.first_line}-{self.last_line}"
        )
        if self.count > 1:
            where = f"{self.count} places from {where}"
        how = STRATEGY_NOTES.get(self.strategy, self.strategy)
        if self.strategy == "already_applied":
            return f"pair {self.index}: no change, the replacement text is already there ({where})"
        if not self.changed:
            return f"pair {self.index}: no change, the replacement equals the text there ({where})"
        return f"pair {self.index}: {where}, {how}"


@dataclass(frozen=True)
class EditOutcome:
    """The new text of one file and everything that explains it."""

    original: str | None
    text: str
    pairs: tuple[PairReport, ...]
    diff: FileDiff

    @property
    def changed(self) -> bool:
        """True when the text differs from the original (or the file is new)."""
        return self.original is None or self.text != self.original

    @property
    def fallbacks(self) -> list[str]:
        """The strategies other than exact that were needed."""
        return [p.strategy for p in self.pairs if p.strategy not in ("exact", "create")]


class EditError(Exception):
    """A pair that cannot be applied; nothing of the file's edit is applied."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        pair: int = 0,
        lines: Sequence[int] = (),
        region: Region | None = None,
        strategy: str = "",
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.pair = pair
        self.lines = tuple(lines)
        self.region = region
        self.strategy = strategy


def miss_message(n: int, path: str, region: Region | None, find: str) -> str:
    """The refusal of a find that matched nowhere, with the closest region."""
    msg = f"pair {n}: the find text was not found in {path}"
    if region is None:
        return msg + ", and no part of the file resembles it; read the file again"
    differing = _differing_lines(region, find)
    return (
        f"{msg}. {describe_region(region)}\n{differing}"
        "Copy the find text exactly from the file as it is now."
    )


MAX_DIFFERING_SHOWN = 5


def _differing_lines(region: Region, find: str) -> str:
    """The lines of a nearly matching region that differ beyond whitespace from the find
    text, as the file has them and as the model wrote them: what one retry must fix."""
    have = region.text.split("\n")
    wrote = find.rstrip("\n").split("\n")
    if len(wrote) != region.last_line - region.first_line + 1 or len(have) != len(wrote):
        return ""
    out = [
        f"line {region.first_line + i}: the file has {h.strip()!r}, your find text has "
        f"{w.strip()!r}"
        for i, (h, w) in enumerate(zip(have, wrote, strict=True))
        if "".join(h.split()) != "".join(w.split())
    ]
    if not out:
        return ""
    more = len(out) - MAX_DIFFERING_SHOWN
    shown = out[:MAX_DIFFERING_SHOWN] + ([f"... and {more} more"] if more > 0 else [])
    return "Lines that differ beyond whitespace:\n" + "\n".join(shown) + "\n"


def describe_region(region: Region) -> str:
    """`The closest region is lines 3-5 (83% similar):` and its text."""
    where = (
        f"line {region.first_line}"
        if region.first_line == region.last_line
        else f"lines {region.first_line}-{region.last_line}"
    )
    return f"The closest region is {where} ({region.similarity:.0%} similar):\n{region.text}"
