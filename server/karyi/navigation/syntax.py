"""The syntactic fallback: a tree-sitter index of what the workspace's files declare, for
languages no language server answers for (docs/context.md#where-navigation-answers-come-from).

It knows declarations only (functions, methods, types, fields, constants), found by
parsing, never by resolving a use: enough for `definition` and `symbols` by name, not for
references or renames. It is built lazily: a name's lookup parses the files that hold the
word (the same `rg -l -w` pass as `candidates.py`, so the workspace's ignore rules hold)
and a search parses the files ripgrep lists; each file's declarations are kept until its
mtime (or its unsaved buffer) changes.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from karyi.navigation.candidates import files_naming
from karyi.navigation.grammars import BY_EXTENSION, SCOPES, TYPES, Grammar
from karyi.navigation.places import Place, Symbol
from karyi.navigation.words import WordIndex
from karyi.workspace.ripgrep import find_files

LOCALS = frozenset({"function", "method", "constructor"})
"""Kinds whose inner declarations are locals, left out (as a server's outline does)."""
SEARCH_FILES = 5_000
"""The most files one `symbols` query parses."""

Buffers = Callable[[frozenset[str]], dict[Path, str]]
"""The unsaved buffers with one of the extensions, by path (the navigator's overlay)."""
Words = Callable[[frozenset[str]], WordIndex]
"""The warm word index of the files with the extensions (the navigator's)."""


@dataclass(frozen=True)
class _Found:
    pattern: int
    kind: str
    name: str
    start: int
    end: int
    row: int
    column: int
    container: tuple[str, ...]


def _captures(grammar: Grammar, source: bytes) -> list[_Found]:
    """Each declared name once (the first pattern that matched it wins)."""
    from tree_sitter import Parser, QueryCursor

    language, query = grammar.load()
    tree = Parser(language).parse(source)
    found: dict[int, _Found] = {}
    for pattern, captures in QueryCursor(query).matches(tree.root_node):
        names = captures.get("name")
        kinds = [k for k in captures if k not in ("name", "container")]
        if not names or not kinds:
            continue
        name, node = names[0], captures[kinds[0]][0]
        if name.start_byte in found and found[name.start_byte].pattern <= pattern:
            continue
        outer = captures.get("container")
        scope = (outer[0].text or b"").decode("utf-8", "replace") if outer else ""
        container = tuple(filter(None, scope.split("::")))
        found[name.start_byte] = _Found(
            pattern,
            kinds[0],
            (name.text or b"").decode("utf-8", "replace"),
            node.start_byte,
            node.end_byte,
            name.start_point.row,
            name.start_point.column,
            container,
        )
    return sorted(found.values(), key=lambda f: (f.start, -f.end))


def declarations(path: Path, source: bytes) -> list[Symbol]:
    """What `path` declares (its grammar chosen by extension), in file order, each with
    the chain of types, modules or namespaces around it."""
    grammar = BY_EXTENSION.get(path.suffix.lower())
    if grammar is None:
        return []
    lines = source.split(b"\n")
    out: list[Symbol] = []
    open_scopes: list[tuple[_Found, tuple[str, ...]]] = []
    for item in _captures(grammar, source):
        while open_scopes and open_scopes[-1][0].end <= item.start:
            open_scopes.pop()
        outer = open_scopes[-1] if open_scopes else None
        if outer is not None and outer[0].kind in LOCALS:
            continue  # a function's own declarations are not the file's
        chain = (*(outer[1] if outer else ()), *item.container)
        kind = item.kind
        if kind == "function" and outer is not None and outer[0].kind in TYPES:
            kind = "method"
        if item.kind in SCOPES or item.kind in LOCALS:
            open_scopes.append((item, (*chain, item.name)))
        if kind == "impl":
            continue
        prefix = lines[item.row][: item.column].decode("utf-8", "replace")
        character = len(prefix.encode("utf-16-le")) // 2
        out.append(Symbol(item.name, kind, chain, Place(path, item.row, character)))
    return out


class SyntaxIndex:
    """Declarations by file, parsed on demand and kept while the file is unchanged."""

    def __init__(self, root: Path, buffers: Buffers, words: Words | None = None) -> None:
        self.root = root
        self.buffers = buffers
        self.words = words
        self._parsed: dict[Path, tuple[object, list[Symbol]]] = {}

    @staticmethod
    def grammar(path: Path) -> Grammar | None:
        """The grammar that parses `path`, if any."""
        return BY_EXTENSION.get(path.suffix.lower())

    def outline(self, path: Path) -> list[Symbol]:
        """What one file declares (its unsaved buffer when open)."""
        grammar = self.grammar(path)
        if grammar is None:
            return []
        return self._symbols(path, self.buffers(frozenset(grammar.extensions)).get(path))

    async def named(self, name: str, under: Path, grammars: Iterable[Grammar]) -> list[Symbol]:
        """The declarations of `name` under `under` in the languages of `grammars`."""
        extensions = frozenset(e for g in grammars for e in g.extensions)
        if not extensions:
            return []
        buffers = self.buffers(extensions)
        if await asyncio.to_thread(under.is_file):
            files: list[Path] | None = [under] if under.suffix.lower() in extensions else []
        else:
            index = self.words(extensions) if self.words else None
            files = await files_naming(under, name, extensions, buffers, index)
        if files is None:
            files = await self._listed(under, extensions)
        found = await asyncio.to_thread(self._all, files or [], buffers)
        return [s for s in found if s.name == name]

    async def search(self, query: str, under: Path, grammars: Iterable[Grammar]) -> list[Symbol]:
        """The declarations under `under` whose names hold `query` (any case)."""
        extensions = frozenset(e for g in grammars for e in g.extensions)
        if not extensions:
            return []
        buffers = self.buffers(extensions)
        is_file = await asyncio.to_thread(under.is_file)
        files = [under] if is_file else await self._listed(under, extensions)
        found = await asyncio.to_thread(self._all, files, buffers)
        needle = query.lower()
        return [s for s in found if needle in s.name.lower()]

    async def _listed(self, under: Path, extensions: frozenset[str]) -> list[Path]:
        globs = [f"*{ext}" for ext in sorted(extensions)]
        listing = await find_files(under, names=globs, limit=SEARCH_FILES, ordered=False)
        return [under / rel for rel in listing.files]

    def _all(self, files: Iterable[Path], buffers: dict[Path, str]) -> list[Symbol]:
        out: list[Symbol] = []
        for path in files:
            out += self._symbols(path, buffers.get(path))
        return out

    def _symbols(self, path: Path, text: str | None) -> list[Symbol]:
        """A file's declarations, parsed again only when its mtime, size or buffer moved."""
        if text is not None:
            key: object = ("buffer", hash(text))
        else:
            try:
                stat = os.stat(path)
            except OSError:
                return []
            key = (stat.st_mtime_ns, stat.st_size)
        cached = self._parsed.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        if text is not None:
            source = text.encode("utf-8")
        else:
            try:
                source = path.read_bytes()
            except OSError:
                return []
        symbols = declarations(path, source)
        self._parsed[path] = (key, symbols)
        return symbols
