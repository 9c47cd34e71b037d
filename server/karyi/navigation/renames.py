"""A rename as a language server works it out, made whole: every declaration, every file.

`textDocument/rename` answers a `WorkspaceEdit`; `texts_after` applies it to the files'
current texts (the editor's buffers first) and gives each changed file's new text. A
server that resolves callers through a stub renames only half of a symbol declared in
both a module and its stub (`.py`/`.pyi`, `.ts`/`.d.ts`): `rename_everywhere` renames
at the sibling's declaration too and merges the two edits
(docs/tools.md#rename).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from karyi.navigation.lookup import outline
from karyi.navigation.places import Place, Symbol, uri_path
from karyi.navigation.server import NavServer
from karyi.workspace.positions import splice_range

Edit = tuple[tuple[int, int, int, int], str]
"""A text edit: (start line, start UTF-16 column, end line, end column), new text."""


class RenameRefused(ValueError):
    """The server cannot rename there, or wants more than text edits."""


def edits_of(answer: Any) -> dict[Path, set[Edit]]:
    """A `WorkspaceEdit`'s text edits by file (`changes` or `documentChanges`); file
    creations, renames and deletions are refused."""
    out: dict[Path, set[Edit]] = {}
    if not isinstance(answer, Mapping):
        raise RenameRefused("the language server cannot rename this symbol")
    pairs: list[tuple[str, Any]] = list((answer.get("changes") or {}).items())
    for change in answer.get("documentChanges") or []:
        if "kind" in change:
            raise RenameRefused(
                f"the rename would {change['kind']} files, which Karyi does not do through it"
            )
        pairs.append((change["textDocument"]["uri"], change.get("edits") or []))
    for uri, edits in pairs:
        path = uri_path(str(uri))
        if path is None:
            continue
        for edit in edits:
            rng = edit["range"]
            start, end = rng["start"], rng["end"]
            key = (start["line"], start["character"], end["line"], end["character"])
            out.setdefault(path, set()).add((key, str(edit.get("newText", ""))))
    return out


def texts_after(edits: Mapping[Path, set[Edit]], read: Callable[[Path], str]) -> dict[Path, str]:
    """Each file's text with its edits applied (from the last to the first)."""
    out: dict[Path, str] = {}
    for path, items in edits.items():
        text = read(path)
        for rng, new in sorted(items, reverse=True):
            text = splice_range(text, rng, new)
        out[path] = text
    return out


def sibling(path: Path) -> Path | None:
    """The stub of a module or the module of a stub, when it exists."""
    name = path.name
    candidates: list[Path] = []
    if name.endswith(".pyi"):
        candidates = [path.with_suffix(".py")]
    elif name.endswith(".py"):
        candidates = [path.with_suffix(".pyi")]
    elif name.endswith(".d.ts"):
        stem = name.removesuffix(".d.ts")
        candidates = [path.with_name(stem + ext) for ext in (".ts", ".js")]
    elif path.suffix in (".ts", ".js"):
        candidates = [path.with_name(path.stem + ".d.ts")]
    return next((c for c in candidates if c.is_file()), None)


async def _declared(server: NavServer, path: Path) -> list[Symbol]:
    answer = await server.request(
        "textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}
    )
    return outline(answer, path)


async def twin_declarations(server: NavServer, place: Place) -> list[Place]:
    """Where the symbol declared at `place`'s definition is declared again in the
    sibling module or stub (same name, same class chain)."""
    answer = await server.request("textDocument/definition", place.params())
    items = answer if isinstance(answer, list) else [answer] if answer else []
    found: list[Place] = []
    for item in items:
        at = Place.from_location(item) if isinstance(item, Mapping) else None
        twin = sibling(at.path) if at is not None else None
        if at is None or twin is None:
            continue
        here = [s for s in await _declared(server, at.path) if s.place.line == at.line]
        if not here:
            continue
        chain = (*here[0].container, here[0].name)
        for symbol in await _declared(server, twin):
            if (*symbol.container, symbol.name) == chain:
                found.append(symbol.place)
    return found


async def rename_everywhere(
    server: NavServer, place: Place, new_name: str
) -> dict[Path, set[Edit]]:
    """The edits of renaming the symbol at `place` to `new_name`, at its own
    declaration and its twin's in a stub or module."""
    edits = edits_of(
        await server.request("textDocument/rename", {**place.params(), "newName": new_name})
    )
    for twin in await twin_declarations(server, place):
        answer = await server.request("textDocument/rename", {**twin.params(), "newName": new_name})
        for path, items in edits_of(answer).items():
            edits.setdefault(path, set()).update(items)
    return edits
