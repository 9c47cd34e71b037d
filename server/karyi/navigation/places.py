"""Places in files as the servers give them and as the model reads them.

A server speaks of `uri` + zero-based line + UTF-16 column; the model reads
`path:line:column: the line's text`, the path relative to the workspace root, the line
and column counted from 1 (in characters), grouped by file and capped with the total,
so it reads them as it reads grep (docs/tools.md#definition).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from karyi.workspace.positions import codepoint_index, utf16_column

MAX_LINES = 200
"""The most locations one result lists; the total is always said."""

SYMBOL_KINDS = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum_member",
    "struct",
    "event",
    "operator",
    "type_parameter",
]
"""LSP `SymbolKind` 1..26, as the model reads them."""


def kind_name(kind: object) -> str:
    """A `SymbolKind` number as a word ("symbol" when unknown)."""
    if isinstance(kind, int) and 1 <= kind <= len(SYMBOL_KINDS):
        return SYMBOL_KINDS[kind - 1]
    return "symbol"


def uri_path(uri: str) -> Path | None:
    """A `file:` URI's path (None for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


@dataclass(frozen=True, order=True)
class Place:
    """One position: a file, a zero-based line and a zero-based UTF-16 column."""

    path: Path
    line: int
    character: int

    @classmethod
    def from_location(cls, location: Mapping[str, Any]) -> Place | None:
        """A `Location` or `LocationLink` (its selection), None for a non-file URI."""
        uri = location.get("uri") or location.get("targetUri") or ""
        rng = (
            location.get("range")
            or location.get("targetSelectionRange")
            or location.get("targetRange")
            or {}
        )
        path = uri_path(str(uri))
        start = rng.get("start") or {}
        if path is None:
            return None
        return cls(path, int(start.get("line", 0)), int(start.get("character", 0)))

    def params(self) -> dict[str, Any]:
        """`TextDocumentPositionParams` of this place."""
        return {
            "textDocument": {"uri": self.path.as_uri()},
            "position": {"line": self.line, "character": self.character},
        }


@dataclass(frozen=True)
class Symbol:
    """A declared name: its kind, the chain it is declared in, where its name is."""

    name: str
    kind: str
    container: tuple[str, ...]
    place: Place

    @property
    def qualified(self) -> str:
        """`Class.method`, `function`."""
        return ".".join([*self.container, self.name])


LineReader = Callable[[Path], list[str] | None]
"""A file's lines as the user sees them (an open buffer first); None when unreadable."""


def places_of(answer: Any) -> list[Place]:
    """The places of a definition or references answer (one location, a list, links)."""
    items = answer if isinstance(answer, list) else [answer] if answer else []
    found = (Place.from_location(item) for item in items if isinstance(item, Mapping))
    return sorted({p for p in found if p is not None})


@dataclass(frozen=True)
class Listing:
    """Lines for the model, how many there were, and what the program reads."""

    text: str
    total: int
    data: list[dict[str, Any]]


def render(
    places: Iterable[Place],
    display: Callable[[Path], str],
    lines_of: LineReader,
    *,
    notes: Mapping[Place, str] | None = None,
    first: Path | None = None,
    limit: int = MAX_LINES,
) -> Listing:
    """`path:line:column: text` a place, grouped by file (`first`'s file first), at most
    `limit` of them, and a last line with the total when some are left out."""
    ordered = sorted(set(places), key=lambda p: (p.path != first, display(p.path), p))
    out: list[str] = []
    data: list[dict[str, Any]] = []
    for place in ordered[:limit]:
        lines = lines_of(place.path) or []
        text = lines[place.line] if 0 <= place.line < len(lines) else ""
        column = codepoint_index(text, place.character) + 1
        shown = display(place.path)
        note = (notes or {}).get(place)
        out.append(
            f"{shown}:{place.line + 1}:{column}: {text.strip()}" + (f"  ({note})" if note else "")
        )
        data.append({"path": shown, "line": place.line + 1, "column": column, "text": text.strip()})
    if len(ordered) > limit:
        out.append(f"(showing {limit} of {len(ordered)}: give a path to narrow them)")
    return Listing("\n".join(out), len(ordered), data)


def name_column(line: str, name: str, near: int) -> int:
    """The UTF-16 column of `name` in `line` at or after code point `near` (else the
    first in the line, else `near`): where a server's range starts before the name."""
    for start in (near, 0):
        index = line.find(name, start)
        while index >= 0:
            before = line[index - 1] if index else " "
            after = line[index + len(name)] if index + len(name) < len(line) else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                return utf16_column(line, index)
            index = line.find(name, index + 1)
    return utf16_column(line, near)
