"""A workspace: its root, the path policy over it, and its ignore rules."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from karyi.core.errors import ToolFailure
from karyi.workspace.documents import DocumentStore
from karyi.workspace.ignore import GitIgnore
from karyi.workspace.paths import PathError, PathPolicy


@dataclass
class Workspace:
    """The folder the agent works in; every path a tool touches is resolved here."""

    policy: PathPolicy

    @classmethod
    def open(
        cls, root: str | os.PathLike[str], extra_roots: Sequence[str | os.PathLike[str]] = ()
    ) -> Workspace:
        """A workspace rooted at an existing directory."""
        if not os.path.isdir(root):
            raise NotADirectoryError(f"workspace {root} is not a directory")
        return cls(PathPolicy.create(root, extra_roots))

    @property
    def root(self) -> Path:
        """The workspace root (real path)."""
        return self.policy.root

    @cached_property
    def gitignore(self) -> GitIgnore:
        """The workspace's git ignore rules."""
        return GitIgnore(self.root)

    @cached_property
    def documents(self) -> DocumentStore:
        """The document store every tool reads and writes files through."""
        return DocumentStore(self.root, self.gitignore)

    def resolve(self, raw: object, *, param: str = "path") -> Path:
        """`PathPolicy.resolve`, raising ToolFailure so tools can let it propagate."""
        try:
            return self.policy.resolve(raw, param=param)
        except PathError as exc:
            raise ToolFailure(exc.code, exc.message) from None

    def resolve_entry(self, raw: object, *, param: str = "path") -> Path:
        """`PathPolicy.resolve_entry` (a symlink itself, not its target), as ToolFailure."""
        try:
            return self.policy.resolve_entry(raw, param=param)
        except PathError as exc:
            raise ToolFailure(exc.code, exc.message) from None

    def display(self, path: Path) -> str:
        """A path as the user and the model should see it."""
        return self.policy.display(path)
