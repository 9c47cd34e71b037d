"""A workspace: its folders (the first is the root), the path policy over them, and
their ignore rules (docs/context.md#workspace-folders)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from karyi.core.errors import ToolFailure
from karyi.workspace.documents import DocumentStore
from karyi.workspace.ignore import GitIgnore
from karyi.workspace.paths import PathError, PathPolicy
from karyi.workspace.recovery import recover_all


@dataclass
class Workspace:
    """The folder the agent works in; every path a tool touches is resolved here."""

    policy: PathPolicy
    recovered: dict[str, list[str]] = field(default_factory=dict)
    """What `recover_writes` did, kept for "user" and "model" until `take_recovered`."""

    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str],
        extra_roots: Sequence[str | os.PathLike[str]] = (),
        folders: Sequence[str | os.PathLike[str]] = (),
    ) -> Workspace:
        """A workspace rooted at an existing directory, with more `folders`."""
        for folder in (root, *folders):
            if not os.path.isdir(folder):
                raise NotADirectoryError(f"workspace {folder} is not a directory")
        return cls(PathPolicy.create(root, extra_roots, folders))

    @property
    def root(self) -> Path:
        """The workspace root: the first folder (real path)."""
        return self.policy.root

    @property
    def folders(self) -> tuple[Path, ...]:
        """Every workspace folder, the root first."""
        return self.policy.folders

    async def set_folders(self, folders: Sequence[Path], extra_roots: Sequence[str] = ()) -> None:
        """Use these folders from now on (the editor added or removed some). The root
        stays the first folder: it holds the sessions and settings."""
        more = [f for f in folders if f.is_dir()]
        self.policy = PathPolicy.create(self.root, extra_roots, more)
        self.gitignore.roots = self.policy.folders
        if "documents" in self.__dict__:
            await self.documents.set_roots(self.policy.folders)

    @cached_property
    def gitignore(self) -> GitIgnore:
        """The git ignore rules of every folder."""
        return GitIgnore(*self.folders)

    @cached_property
    def documents(self) -> DocumentStore:
        """The document store every tool reads and writes files through."""
        return DocumentStore(self.root, self.gitignore, folders=self.folders)

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

    def recover_writes(self) -> list[str]:
        """Roll back the calls a crash cut off (`workspace/recovery.py`): a sentence per
        journal for the user, also kept in `recovered` until a front end takes it."""

        def inside(path: Path) -> bool:
            try:
                return self.policy.resolve(str(path.parent)) == path.parent
            except PathError:
                return False

        said = [r.sentence() for r in recover_all(self.root, inside, self.display)]
        for reader in ("user", "model"):
            self.recovered.setdefault(reader, []).extend(said)
        return said

    def take_recovered(self, reader: str = "user") -> str | None:
        """What start-up rolled back, once per reader: the first front end or turn to ask
        tells the user, the first turn's message tells the model (its files changed)."""
        said = self.recovered.pop(reader, [])
        return " ".join(f"{s}." for s in said) or None

    def display(self, path: Path) -> str:
        """A path as the user and the model should see it."""
        return self.policy.display(path)
