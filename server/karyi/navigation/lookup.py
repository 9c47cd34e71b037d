"""From what a model says (`Message.get_payload`, `utils.formatdate`, a path and a line)
to the position a language server asks for.

Models are bad at columns, so a name alone must do: it is looked up among the
workspace's symbols (or the outline of the file `path` names), a qualifier keeps the
symbols whose class or module chain ends with it, and the name's own column is found in
its line. Several matches are listed for the model to choose by `path`; an unknown name
is answered with the closest known ones (docs/tools.md#definition).
"""

from __future__ import annotations

import asyncio
import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from karyi.navigation.candidates import OUTLINE_FILES, files_naming
from karyi.navigation.errors import ServerError, ServerGone
from karyi.navigation.navigator import Navigator
from karyi.navigation.places import (
    LineReader,
    Place,
    Symbol,
    kind_name,
    name_column,
    uri_path,
)
from karyi.navigation.server import NavServer
from karyi.navigation.words import WordIndex
from karyi.workspace.positions import codepoint_index, utf16_column

LOCAL_SCOPES = frozenset({"function", "method", "constructor"})
"""Kinds whose children are locals, left out of an outline."""

KEYWORDS = frozenset(
    {
        "def",
        "class",
        "async",
        "function",
        "fn",
        "func",
        "let",
        "const",
        "var",
        "export",
        "pub",
        "static",
        "public",
        "private",
        "protected",
        "interface",
        "type",
        "struct",
        "enum",
        "impl",
    }
)
"""Words before a declared name: a line given without a column points past them."""


class Ambiguous(LookupError):
    """Several symbols answer to the name: the caller lists them."""

    def __init__(self, symbols: list[Symbol]) -> None:
        super().__init__(f"{len(symbols)} symbols match")
        self.symbols = symbols


class Unknown(LookupError):
    """No symbol answers to the name; `closest` are the nearest known names."""

    def __init__(self, symbol: str, closest: list[str]) -> None:
        hint = f"; the closest are {', '.join(closest)}" if closest else ""
        super().__init__(f"no symbol named {symbol!r} was found{hint}")
        self.closest = closest


@dataclass(frozen=True)
class Target:
    """What to ask about: a server and a place, plus the symbols it was chosen among."""

    server: NavServer
    place: Place
    symbols: tuple[Symbol, ...] = ()


def split_symbol(symbol: str) -> tuple[str, tuple[str, ...]]:
    """`Message.get_payload` -> ("get_payload", ("Message",)); `a::b` and `f()` too."""
    parts = [p for p in symbol.strip().removesuffix("()").replace("::", ".").split(".") if p]
    return (parts[-1] if parts else symbol), tuple(parts[:-1])


def module_chain(path: Path, root: Path) -> tuple[str, ...]:
    """`pkg/sub/mod.py` -> ("pkg", "sub", "mod") (`__init__` dropped)."""
    try:
        rel = path.relative_to(root).with_suffix("")
    except ValueError:
        rel = Path(path.stem)
    parts = tuple(rel.parts)
    return parts[:-1] if parts and parts[-1] in ("__init__", "index") else parts


def qualifies(symbol: Symbol, qualifier: tuple[str, ...], root: Path) -> bool:
    """True when the symbol's class chain, module chain or both end with `qualifier`."""
    if not qualifier:
        return True
    n = len(qualifier)
    module = module_chain(symbol.place.path, root)
    for chain in (symbol.container, module + symbol.container, module):
        if len(chain) >= n and tuple(chain[-n:]) == qualifier:
            return True
    return False


def outline(answer: Any, path: Path) -> list[Symbol]:
    """A `documentSymbol` answer (a tree or a flat list) as symbols with their chains."""
    out: list[Symbol] = []

    def walk(items: Iterable[Any], chain: tuple[str, ...]) -> None:
        for item in items:
            if not isinstance(item, Mapping):
                continue
            name = str(item.get("name", ""))
            if "location" in item:  # SymbolInformation
                place = Place.from_location(item["location"])
                container = tuple(filter(None, str(item.get("containerName") or "").split(".")))
                if place is not None:
                    out.append(Symbol(name, kind_name(item.get("kind")), container, place))
                continue
            rng = item.get("selectionRange") or item.get("range") or {}
            start = rng.get("start") or {}
            place = Place(path, int(start.get("line", 0)), int(start.get("character", 0)))
            kind = kind_name(item.get("kind"))
            out.append(Symbol(name, kind, chain, place))
            if kind not in LOCAL_SCOPES:  # a function's own variables are not its outline
                walk(item.get("children") or [], (*chain, name))

    walk(answer if isinstance(answer, list) else [], ())
    return out


def workspace_symbols(answer: Any, root: Path) -> list[Symbol]:
    """A `workspace/symbol` answer as symbols, only those inside the workspace."""
    out = []
    for item in answer if isinstance(answer, list) else []:
        location = item.get("location") if isinstance(item, Mapping) else None
        if not isinstance(location, Mapping) or "range" not in location:
            continue
        path = uri_path(str(location.get("uri", "")))
        if path is None or not path.is_relative_to(root):
            continue
        container = tuple(filter(None, str(item.get("containerName") or "").split(".")))
        place = Place.from_location(location)
        if place is not None:
            out.append(
                Symbol(str(item.get("name", "")), kind_name(item.get("kind")), container, place)
            )
    return out


async def symbols_named(
    nav: Navigator, symbol: str, path: Path | None, lines_of: LineReader
) -> tuple[list[Symbol], list[Symbol]]:
    """The symbols matching `symbol` (in `path` when given) and every symbol looked at."""
    name, qualifier = split_symbol(symbol)
    seen: list[Symbol] = []
    if path is not None and await asyncio.to_thread(path.is_file):
        server = nav.for_path(path)
        answer = await server.request(
            "textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}
        )
        seen = outline(answer, path)
    else:
        for language in nav.languages_present():
            try:
                server = nav.server(language)
                words = nav.words(server.extensions)
                seen += await _declared_in(server, name, path or nav.root, nav.root, words)
            except ServerGone:
                if nav.installed(language):
                    raise  # a server that would not start is passed over: its language has none
    matches = [s for s in seen if s.name == name and qualifies(s, qualifier, nav.root)]
    unique: dict[tuple[Path, str], Symbol] = {}
    for match in sorted(matches, key=lambda s: (_is_stub(s.place.path), s.place)):
        # a module's symbol and its stub's (overloads too) are one: the module's
        unique.setdefault((_unstubbed(match.place.path), match.qualified), match)
    return sorted((_at_name(s, lines_of) for s in unique.values()), key=lambda s: s.place), seen


async def _declared_in(
    server: NavServer, name: str, under: Path, root: Path, words: WordIndex | None = None
) -> list[Symbol]:
    """The symbols of the few files that hold `name` as a word (their outlines), else
    of the server's workspace search, under `under`."""
    buffers = server.overlay.texts(server.extensions)
    files = await files_naming(under, name, server.extensions, buffers, words)
    if files is not None and len(files) <= OUTLINE_FILES:
        out: list[Symbol] = []
        for file in files:
            uri = {"textDocument": {"uri": file.as_uri()}}
            out += outline(await server.request("textDocument/documentSymbol", uri), file)
        return out
    answer = await server.request("workspace/symbol", {"query": name})
    return [s for s in workspace_symbols(answer, root) if s.place.path.is_relative_to(under)]


def _is_stub(path: Path) -> bool:
    return path.name.endswith((".pyi", ".d.ts"))


def _unstubbed(path: Path) -> Path:
    """`m.pyi` -> `m.py`, `m.d.ts` -> `m.ts`: a stub and its module share a key."""
    if path.name.endswith(".d.ts"):
        return path.with_name(path.name.removesuffix(".d.ts") + ".ts")
    return path.with_suffix(".py") if path.suffix == ".pyi" else path


def _at_name(symbol: Symbol, lines_of: LineReader) -> Symbol:
    """The symbol with its place moved onto its name (a range may start at `def`)."""
    lines = lines_of(symbol.place.path) or []
    if not 0 <= symbol.place.line < len(lines):
        return symbol
    line = lines[symbol.place.line]
    near = codepoint_index(line, symbol.place.character)
    column = name_column(line, symbol.name, near)
    place = Place(symbol.place.path, symbol.place.line, column)
    return Symbol(symbol.name, symbol.kind, symbol.container, place)


async def closest_names(nav: Navigator, symbol: str, seen: list[Symbol]) -> list[str]:
    """The known names nearest to `symbol` (the symbols already seen, then a wider
    search by the name's first letters)."""
    name, _qualifier = split_symbol(symbol)
    pool = {s.name: s for s in seen}
    if len(pool) < 50:
        for language in nav.languages_present():
            try:
                answer = await nav.server(language).request("workspace/symbol", {"query": name[:2]})
            except (ServerError, ServerGone):  # no project open yet, or no server: no names
                continue
            pool.update({s.name: s for s in workspace_symbols(answer, nav.root)})
    names = difflib.get_close_matches(name, list(pool), n=5, cutoff=0.6)
    return [pool[n].qualified for n in names]


def first_name(line: str) -> int:
    """The index of the first identifier of `line` that is not a declaring keyword."""
    for found in re.finditer(r"[A-Za-z_$][\w$]*", line):
        if found.group() not in KEYWORDS:
            return found.start()
    return len(line) - len(line.lstrip())


async def locate(
    nav: Navigator,
    lines_of: LineReader,
    *,
    symbol: str | None,
    path: Path | None,
    line: int | None,
    column: int | None,
) -> Target:
    """The one place a call is about; `Ambiguous` or `Unknown` when a name does not say."""
    if path is not None and line is not None:
        server = nav.for_path(path)
        text = (lines_of(path) or [])[line - 1 : line] or [""]
        if column is not None:
            character = utf16_column(text[0], max(0, column - 1))
        elif symbol:
            character = name_column(text[0], split_symbol(symbol)[0], 0)
        else:
            character = utf16_column(text[0], first_name(text[0]))
        return Target(server, Place(path, line - 1, character))
    if not symbol:
        raise ValueError("give a symbol, or a path and a line")
    matches, seen = await symbols_named(nav, symbol, path, lines_of)
    if not matches:
        raise Unknown(symbol, await closest_names(nav, symbol, seen))
    if len(matches) > 1:
        raise Ambiguous(matches)
    return Target(nav.for_path(matches[0].place.path), matches[0].place, tuple(matches))
