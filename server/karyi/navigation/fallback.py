"""Where no language server answers: the syntactic fallback's part in finding a symbol.

`locate_any` is `lookup.locate` that, when the symbol's language has no server (none set
up, its program missing, or it would not start), raises `OnlySyntax`: a `NoServer` that
says so plainly, carrying the declarations the tree-sitter index found by name.
`definition` and `symbols` answer from those, marked as syntactic; the tools that need
a server (`references`, `calls`, `hover`, `rename`) report the message
(docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from karyi.navigation.errors import ServerGone
from karyi.navigation.lookup import Target, Unknown, first_name, locate, qualifies, split_symbol
from karyi.navigation.navigator import Navigator, NoServer
from karyi.navigation.places import LineReader, Symbol
from karyi.workspace.positions import codepoint_index

SYNTACTIC = (
    "(syntactic: found by parsing with tree-sitter, as no language server answers for "
    "{title}; declarations of that name, not resolved uses)"
)
"""The line a syntactic answer carries."""


class OnlySyntax(NoServer):
    """No server answers for the symbol's language; `symbols` are its declarations by name."""

    def __init__(self, message: str, symbols: list[Symbol], title: str) -> None:
        super().__init__(message)
        self.symbols = symbols
        self.title = title

    @property
    def note(self) -> str:
        """The one line that marks an answer from these symbols as syntactic."""
        return SYNTACTIC.format(title=self.title)


def _title(path: Path) -> str:
    from karyi.navigation.grammars import BY_EXTENSION

    grammar = BY_EXTENSION.get(path.suffix.lower())
    return f"{grammar.title} files" if grammar else f"{path.suffix or path.name} files"


def definitions_only(symbols: list[Symbol]) -> list[Symbol]:
    """The symbols less the C prototypes of functions whose body is also found."""
    bodies = {s.qualified for s in symbols if s.kind != "prototype"}
    kept = [s for s in symbols if s.kind != "prototype" or s.qualified not in bodies]
    return sorted(kept, key=lambda s: s.place)


async def syntactic(nav: Navigator, symbol: str, under: Path) -> list[Symbol]:
    """The declarations named `symbol` (qualifier honoured) in the files under `under` of
    the languages no server answers for."""
    name, qualifier = split_symbol(symbol)
    found = await nav.syntax.named(name, under, nav.unserved())
    return definitions_only([s for s in found if qualifies(s, qualifier, nav.root)])


def _word_at(lines_of: LineReader, path: Path, line: int, column: int | None) -> str:
    text = ((lines_of(path) or [])[line - 1 : line] or [""])[0]
    start = first_name(text) if column is None else codepoint_index(text, column - 1)
    for found in re.finditer(r"[A-Za-z_$][\w$]*", text):
        if found.start() <= start < found.end() or found.start() >= start:
            return found.group()
    return ""


async def locate_any(
    nav: Navigator,
    lines_of: LineReader,
    *,
    symbol: str | None,
    path: Path | None,
    line: int | None,
    column: int | None,
) -> Target:
    """`locate`, else `OnlySyntax` for a symbol whose language has no server (see the
    module's docstring)."""
    try:
        return await locate(nav, lines_of, symbol=symbol, path=path, line=line, column=column)
    except (NoServer, ServerGone) as exc:
        if path is None or nav.syntax.grammar(path) is None or nav.installed_for(path):
            raise
        reason = exc
    except Unknown:
        if not symbol:
            raise
        found = await syntactic(nav, symbol, path or nav.root)
        if not found:
            raise
        where = found[0].place.path
        raise OnlySyntax(nav.missing(where), found, _title(where)) from None
    if line is not None:
        word = _word_at(lines_of, path, line, column)
        found = await syntactic(nav, word, nav.root) if word else []
    else:
        under = path if await asyncio.to_thread(path.exists) else nav.root
        found = await syntactic(nav, symbol or "", under)
    message = nav.missing(path) if isinstance(reason, ServerGone) else str(reason)
    raise OnlySyntax(message, found, _title(path))
