"""bashlex, loaded without rebuilding its parser tables on every start.

bashlex builds the LALR tables of its bash grammar each time it is imported (its copy of
PLY never reads a table file back): a tenth of a second or more of every `karyi exec`
and of the first judged command of every session. `grammar_tables.json` beside this
file holds the tables built once (`python -m karyi.shell.rules.grammar` writes it); they
are used when bashlex's grammar is the one they were built from, which a digest of its
productions tells. For any other grammar (another bashlex version) the tables are built
as bashlex always did, so the parse is bashlex's own either way.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

TABLES = Path(__file__).with_name("grammar_tables.json")

Tables = dict[str, Any]
source = ""
"""Where this process's bashlex tables came from: "saved", "built", or "" (not loaded)."""


def grammar_digest(productions: list[Any]) -> str:
    """A digest of a PLY grammar's productions, in order: tables fit only their grammar."""
    text = "\n".join(f"{p.number} {p.str} {p.prec}" for p in productions)
    return hashlib.sha256(text.encode()).hexdigest()


def _saved(digest: str) -> tuple[dict[int, dict[str, int]], dict[int, dict[str, int]]] | None:
    """The saved action and goto tables when they were built from grammar `digest`."""
    try:
        data = json.loads(TABLES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("grammar") != digest:
        return None
    action = {int(state): row for state, row in data["action"].items()}
    goto = {int(state): row for state, row in data["goto"].items()}
    return action, goto


class _SavedTable:
    """What bashlex's `yacc()` uses of an `LRTable`, from the saved tables."""

    def __init__(self, grammar: Any, action: dict[int, dict[str, int]], goto: Any) -> None:
        self.grammar = grammar
        self.lr_productions = grammar.Productions
        self.lr_action = action
        self.lr_goto = goto
        self.sr_conflicts: list[Any] = []
        self.rr_conflicts: list[Any] = []

    def bind_callables(self, pdict: dict[str, Any]) -> None:
        """Attach the grammar's action functions (as `LRTable.bind_callables`)."""
        for production in self.lr_productions:
            production.bind(pdict)


def _table_maker(real: Callable[..., Any], built: list[Any] | None) -> Callable[..., Any]:
    def make(grammar: Any, log: Any = None) -> Any:
        saved = _saved(grammar_digest(grammar.Productions)) if built is None else None
        global source
        if saved is not None:
            source = "saved"
            return _SavedTable(grammar, *saved)
        source = "built"
        table = real(grammar, log)
        if built is not None:
            built.append(table)
        return table

    return make


def load_bashlex(built: list[Any] | None = None) -> ModuleType:
    """The `bashlex` module, its parser made from the saved tables when they fit; with
    `built`, the tables are built afresh and put in `built` (a new interpreter only)."""
    if "bashlex" in sys.modules:
        return sys.modules["bashlex"]
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None:
        raise ImportError("bashlex is not installed")
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package  # so `bashlex.yacc` loads before the parser is built
    try:
        yacc: Any = importlib.import_module("bashlex.yacc")
        real = yacc.LRTable
        yacc.LRTable = _table_maker(real, built)
        try:
            spec.loader.exec_module(package)
        finally:
            yacc.LRTable = real
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise
    return package


def built_tables() -> Tables:
    """bashlex's tables built afresh, as `grammar_tables.json` holds them (call it in a
    new interpreter: bashlex builds its parser once per process)."""
    built: list[Any] = []
    load_bashlex(built)
    if not built:
        raise RuntimeError("bashlex was loaded already: build the tables in a new process")
    table = built[0]
    return {
        "grammar": grammar_digest(table.lr_productions),
        "action": table.lr_action,
        "goto": table.lr_goto,
    }


def main() -> None:
    """Write `grammar_tables.json` for the installed bashlex."""
    tables = built_tables()
    TABLES.write_text(json.dumps(tables, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {TABLES} ({len(tables['action'])} states)")


if __name__ == "__main__":
    main()
