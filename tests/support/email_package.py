"""The standard library's `email` package as a workspace none of us wrote, and a ground
truth for its names from Python's own parser (`ast`), for the navigation tests and bench.

The package is copied as `emailpkg` with its own imports renamed (`email.utils` ->
`emailpkg.utils`): under its real name a type checker resolves `email` to the
standard library's stubs, not to the copy.
"""

from __future__ import annotations

import ast
import email
import re
import shutil
from pathlib import Path

PACKAGE = "emailpkg"


def copy_email(root: Path) -> Path:
    """`root/emailpkg`: the stdlib `email` package, imports renamed; returns `root`."""
    source = Path(email.__file__).parent
    target = root / PACKAGE
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.rst"))
    for path in target.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"\bfrom email\b", f"from {PACKAGE}", text)
        text = re.sub(r"\bimport email\b", f"import {PACKAGE}", text)
        text = re.sub(r"\bemail\.([a-z_])", rf"{PACKAGE}.\1", text)
        path.write_text(text, encoding="utf-8")
    return root


Place = tuple[str, int, int]
"""A path relative to the root, a line from 1, a column from 1."""


def _column(lines: list[str], line: int, name: str, start: int = 0) -> int | None:
    found = re.search(rf"\b{re.escape(name)}\b", lines[line - 1][start:])
    return None if found is None else start + found.start() + 1


def identifier_places(root: Path, name: str) -> set[Place]:
    """Every place `name` is written as an identifier (a name, an attribute, a def or
    class, an import, a keyword argument, a parameter) or as an `__all__` entry."""
    out: set[Place] = set()
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        rel = str(path.relative_to(root))
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            for line, start in _spots(node, name):
                column = _column(lines, line, name, start)
                if column is not None:
                    out.add((rel, line, column))
    return out


def _spots(node: ast.AST, name: str) -> list[tuple[int, int]]:
    """Where in `node` to look for `name`: (line, the column to search from)."""
    if isinstance(node, ast.Name) and node.id == name:
        return [(node.lineno, node.col_offset)]
    if isinstance(node, ast.Attribute) and node.attr == name and node.end_lineno:
        return [(node.end_lineno, (node.end_col_offset or 0) - len(name))]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [(node.lineno, node.col_offset)] if node.name == name else []
    if isinstance(node, ast.alias) and name in (node.name.split(".")[-1], node.asname):
        return [(node.lineno, node.col_offset)]
    if isinstance(node, ast.keyword | ast.arg) and name in (getattr(node, "arg", None),):
        return [(node.lineno, node.col_offset)]
    if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
    ):
        return [
            (elt.lineno, elt.col_offset)
            for elt in ast.walk(node.value)
            if isinstance(elt, ast.Constant) and elt.value == name
        ]
    return []


def declaration(root: Path, name: str, owner: str | None = None) -> Place:
    """Where `def name` / `class name` is written (inside class `owner` when given)."""
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(tree):
            if owner is not None and not (isinstance(node, ast.ClassDef) and node.name == owner):
                continue
            scope = node.body if owner is not None and isinstance(node, ast.ClassDef) else [node]
            for item in scope:
                if isinstance(item, ast.FunctionDef | ast.ClassDef) and item.name == name:
                    column = _column(lines, item.lineno, name, item.col_offset)
                    assert column is not None
                    return (str(path.relative_to(root)), item.lineno, column)
    raise LookupError(name)
