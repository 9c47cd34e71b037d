"""The one path policy every tool and every entry point goes through (docs/security.md).

A workspace has one or more folders (docs/context.md#workspace-folders); the first is the
root. With several, a relative path that starts with a folder's name is taken from that
folder (`api/src/app.py`), any other from the root, and paths are shown the same way.
A path is resolved against the workspace root, normalised, and must stay inside the
workspace or an extra allowed root both as written and after every symlink is
resolved; the system directories (docs/security.md) are refused even inside an allowed root.
Each refusal says which rule refused it, so the model can correct the call.
"""

from __future__ import annotations

import functools
import os
import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from karyi.core.errors import ErrorCode

SYSTEM_DIRS: tuple[str, ...] = (
    "/bin",
    "/sbin",
    "/usr",
    "/lib",
    "/lib64",
    "/etc",
    "/proc",
    "/sys",
    "/dev",
    "/boot",
    "/run",
    "/var/run",
)


class PathError(Exception):
    """A path the policy refuses, with the gateway's error code and the reason."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


_VARIABLE = re.compile(r"(?:^|/)\$(?:\w|\{)|\$\{")
_ENCODED = re.compile(r"%(?:2e|2f|5c)", re.IGNORECASE)


def _literal_path(raw: str, param: str) -> str:
    """The path `raw` plainly means, or PathError when it is written in a form the policy
    does not expand (it would otherwise be taken as an odd name inside the workspace).

    A `file:` URI becomes its path (then checked like any path). Shell variables, `~user`,
    percent-encoded dots and separators, and backslash traversal are refused with what
    to write instead."""
    if raw[:5].lower() == "file:":
        url = urllib.parse.urlsplit(raw)
        if url.netloc not in ("", "localhost") or url.query or url.fragment:
            raise PathError(
                ErrorCode.INVALID_TOOL_INPUT,
                f"{param} {raw!r}: only a local file: URI (file:///absolute/path) names a path",
            )
        return urllib.parse.unquote(url.path)
    if _VARIABLE.search(raw):
        raise PathError(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{param} {raw!r}: variables like $HOME are not expanded in paths; write the path "
            "itself, relative to the workspace or absolute",
        )
    if raw.startswith("~") and not raw.startswith(("~/",)) and raw != "~":
        raise PathError(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{param} {raw!r}: '~user' is not expanded in paths; write the absolute path",
        )
    if _ENCODED.search(raw):
        raise PathError(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{param} {raw!r}: percent-encoding is not decoded in paths; write '.', '/' and "
            "'\\' as they are",
        )
    if "\\" in raw and ".." in re.split(r"[\\/]", raw):
        raise PathError(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{param} {raw!r}: '\\' is not a path separator here; write '/' (and no '..' "
            "that leaves the workspace)",
        )
    return raw


def within(path: str, directory: str) -> bool:
    """True when `path` is `directory` or below it (both absolute and normalised)."""
    if directory == "/":
        return path.startswith("/")
    return path == directory or path.startswith(directory + "/")


def _with_real(dirs: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for d in dirs:
        for form in (os.path.normpath(d), os.path.realpath(d)):
            if form not in out:
                out.append(form)
    return tuple(out)


@dataclass(frozen=True)
class PathPolicy:
    """Allowed roots and protected directories; `resolve` is the only way in."""

    root: Path
    extra_roots: tuple[Path, ...] = ()
    protected: tuple[str, ...] = field(default=SYSTEM_DIRS)
    more_folders: tuple[Path, ...] = ()
    """The workspace folders after the first (the root)."""

    @classmethod
    def create(
        cls,
        root: str | os.PathLike[str],
        extra_roots: Sequence[str | os.PathLike[str]] = (),
        folders: Sequence[str | os.PathLike[str]] = (),
    ) -> PathPolicy:
        """A policy for workspace `root`, its other `folders` and the allowed
        `extra_roots` (relative ones from `root`)."""
        base = Path(os.path.realpath(os.path.abspath(os.path.expanduser(root))))

        def real(r: str | os.PathLike[str]) -> Path:
            return Path(os.path.realpath(base / os.path.expanduser(str(r))))

        more = tuple(dict.fromkeys(p for p in map(real, folders) if p != base))
        extras = tuple(p for p in map(real, extra_roots) if p not in more and p != base)
        return cls(base, extras, more_folders=more)

    @property
    def folders(self) -> tuple[Path, ...]:
        """The workspace folders, the root first."""
        return (self.root, *self.more_folders)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The workspace folders first, then the extra allowed roots."""
        return (*self.folders, *self.extra_roots)

    @functools.cached_property
    def folder_names(self) -> dict[str, Path]:
        """Each folder by the name paths start with (a repeated name gets `-2`, `-3`)."""
        names: dict[str, Path] = {}
        for folder in self.folders:
            name, n = folder.name or "root", 1
            while name in names:
                n += 1
                name = f"{folder.name}-{n}"
            names[name] = folder
        return names

    def folder_of(self, path: Path | str) -> Path | None:
        """The (innermost) workspace folder that holds `path`, or None."""
        text = str(path)
        inside = [f for f in self.folders if within(text, str(f))]
        return max(inside, key=lambda f: len(str(f))) if inside else None

    @functools.cached_property
    def _protected_forms(self) -> tuple[str, ...]:
        """The protected directories as written and as resolved (computed once)."""
        return _with_real(self.protected)

    def _protected_dir(self, path: str) -> str | None:
        for d in self._protected_forms:
            if within(path, d):
                return d
        return None

    def _inside_roots(self, path: str) -> bool:
        return any(within(path, str(r)) for r in self.roots)

    def _roots_text(self) -> str:
        extra = ", ".join(str(r) for r in self.extra_roots)
        where = (
            f"the workspace folders {', '.join(str(f) for f in self.folders)}"
            if self.more_folders
            else f"the workspace {self.root}"
        )
        return where + (f" or the allowed roots {extra}" if extra else "")

    def resolve(self, raw: object, *, param: str = "path") -> Path:
        """The real absolute path for `raw`, or PathError saying which rule refused it."""
        lexical = self._lexical(raw, param)
        real = os.path.realpath(lexical)
        self._check_real(real, raw, param)
        return Path(real)

    def resolve_entry(self, raw: object, *, param: str = "path") -> Path:
        """The directory entry `raw` names, not what a symlink there points to.

        For operations on names (delete, move): removing `node_modules/pkg`, a link into
        the sources, must remove the link and never the sources it points to. The folder
        holding the entry is resolved and checked like any path; the entry itself is not
        followed.
        """
        lexical = self._lexical(raw, param)
        parent, name = os.path.split(lexical)
        if not name or not os.path.islink(lexical):
            return self.resolve(raw, param=param)
        real_parent = os.path.realpath(parent)
        self._check_real(real_parent, raw, param)
        entry = os.path.join(real_parent, name)
        self._check_real(entry, raw, param)
        return Path(entry)

    def _lexical(self, raw: object, param: str) -> str:
        """`raw` made absolute and normalised without touching the disk, or PathError."""
        if not isinstance(raw, str) or not raw.strip():
            raise PathError(ErrorCode.INVALID_TOOL_INPUT, f"{param}: expected a non-empty path")
        if "\x00" in raw:
            raise PathError(ErrorCode.INVALID_TOOL_INPUT, f"{param}: a path cannot contain NUL")
        plain = _literal_path(raw, param)
        text = os.path.expanduser(plain) if plain.startswith("~") else plain
        joined = text if os.path.isabs(text) else self._join(text)
        lexical = os.path.normpath(joined)
        if lexical.startswith("//"):
            lexical = "/" + lexical.lstrip("/")
        if not self._inside_roots(lexical):
            why = "'..' leads" if ".." in Path(text).parts else "it is"
            raise PathError(
                ErrorCode.FORBIDDEN_PATH,
                f"{param} {raw!r}: {why} outside {self._roots_text()} ({lexical})",
            )
        if blocked := self._protected_dir(lexical):
            raise PathError(
                ErrorCode.FORBIDDEN_PATH,
                f"{param} {raw!r}: {lexical} is inside the protected system directory {blocked}",
            )
        return lexical

    def _join(self, text: str) -> str:
        """A relative path made absolute: from the folder its first part names (when the
        workspace has several), else from the root."""
        if self.more_folders:
            first, _, rest = text.removeprefix("./").partition("/")
            folder = self.folder_names.get(first)
            if folder is not None:
                return os.path.join(folder, rest)
        return os.path.join(self.root, text)

    def _check_real(self, real: str, raw: object, param: str) -> None:
        """Refuse a resolved path outside the roots or inside a protected directory."""
        if not self._inside_roots(real):
            raise PathError(
                ErrorCode.FORBIDDEN_PATH,
                f"{param} {raw!r}: a symlink leads to {real}, outside {self._roots_text()}",
            )
        if blocked := self._protected_dir(real):
            raise PathError(
                ErrorCode.FORBIDDEN_PATH,
                f"{param} {raw!r}: a symlink leads to {real}, inside the protected system "
                f"directory {blocked}",
            )

    def display(self, path: Path) -> str:
        """How to name `path` to the user and the model: relative inside the workspace,
        `folder/path` when the workspace has several folders."""
        text = str(path)
        if self.more_folders and (folder := self.folder_of(text)) is not None:
            name = next(n for n, f in self.folder_names.items() if f == folder)
            rel = os.path.relpath(text, folder)
            return name if rel == "." else f"{name}/{rel}"
        if within(text, str(self.root)):
            rel = os.path.relpath(text, self.root)
            return "." if rel == "." else rel
        return text
