"""ripgrep as the engine for searching and listing the workspace (`grep`, `glob`, `<search>`).

ripgrep comes from PyPI (the `ripgrep` wheel puts `rg` next to the interpreter). It is
run with `--no-config` (a user's RIPGREP_CONFIG_PATH must not change results), results in
path order (the same on every run: ripgrep searches in parallel and they are sorted here,
or, past a cap, ripgrep runs again in path order), honouring `.gitignore` even outside a git
repository, including hidden files but never `.git/` or `node_modules/`, and never
following symlinks out of the workspace. Matches stream in as `--json` and the process
is stopped once the cap is reached.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.workspace.globs import Matcher, walk_for
from karyi.workspace.ignore import GitIgnore

MAX_MATCHES = 200
MAX_LINE = 500
ALWAYS_EXCLUDED = ("!.git", "!node_modules")


def rg_binary() -> str:
    """The `rg` executable: next to the interpreter (the PyPI wheel), else on PATH."""
    here = Path(sys.executable).parent / "rg"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    found = shutil.which("rg")
    if found is None:
        raise ToolFailure(
            ErrorCode.TOOL_ERROR,
            "ripgrep (rg) is not installed; install karyi's dependencies (pip install ripgrep)",
        )
    return found


def base_args(*, respect_git_ignore: bool = True, sort: bool = True) -> list[str]:
    """The flags every ripgrep run uses (`sort`: in path order, which makes it serial)."""
    args = ["--no-config", "--hidden", "--no-require-git", *(["--sort", "path"] if sort else [])]
    if not respect_git_ignore:
        args.append("--no-ignore")
    for glob in ALWAYS_EXCLUDED:
        args += ["--glob", glob]
    return args


@dataclass(frozen=True)
class GrepMatch:
    """One matching line: the file (relative to the search directory), line, text."""

    path: str
    line: int
    text: str


@dataclass
class GrepResult:
    """The matches of one search, in path order, and whether the cap cut them."""

    matches: list[GrepMatch] = field(default_factory=list)
    capped: bool = False
    warnings: list[str] = field(default_factory=list)

    def by_file(self) -> dict[str, list[GrepMatch]]:
        """Matches grouped by file, in order."""
        out: dict[str, list[GrepMatch]] = {}
        for m in self.matches:
            out.setdefault(m.path, []).append(m)
        return out


def _text(obj: dict[str, Any]) -> str:
    if "text" in obj:
        return str(obj["text"])
    return base64.b64decode(obj.get("bytes", "")).decode("utf-8", errors="replace")


def _short(line: str) -> str:
    line = line.rstrip("\r\n")
    if len(line) > MAX_LINE:
        return line[:MAX_LINE] + f"... [{len(line) - MAX_LINE} more characters]"
    return line


@contextlib.asynccontextmanager
async def _rg(args: Sequence[str], cwd: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    proc = await asyncio.create_subprocess_exec(
        rg_binary(),
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=16 * 1024 * 1024,
    )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


def _where(target: Path) -> tuple[Path, list[str]]:
    """The directory to run in and the path arguments for a file or directory target."""
    if target.is_dir():
        return target, []
    return target.parent, ["--", target.name]


async def grep(
    pattern: str,
    target: Path,
    *,
    include: str | None = None,
    case_sensitive: bool = False,
    max_matches: int = MAX_MATCHES,
    respect_git_ignore: bool = True,
) -> GrepResult:
    """Lines matching the regex `pattern` under `target` (a directory or one file), in
    path order. ripgrep searches in parallel and the matches are sorted here; only when
    there are more than `max_matches` is the search done again in path order (serial),
    so the matches kept are the first ones."""
    result = await _grep(pattern, target, include, case_sensitive, max_matches, respect_git_ignore)
    if not result.capped:
        result.matches.sort(key=lambda m: m.path.split("/"))  # stable: lines stay in order
        return result
    return await _grep(
        pattern, target, include, case_sensitive, max_matches, respect_git_ignore, sort=True
    )


async def _grep(
    pattern: str,
    target: Path,
    include: str | None,
    case_sensitive: bool,
    max_matches: int,
    respect_git_ignore: bool,
    sort: bool = False,
) -> GrepResult:
    cwd, paths = _where(target)
    args = [
        "--json",
        *base_args(respect_git_ignore=respect_git_ignore, sort=sort),
        "--max-filesize",
        "20M",
    ]
    args.append("--case-sensitive" if case_sensitive else "--ignore-case")
    if include:
        args += ["--glob", include]
    args += ["-e", pattern, *paths]
    result = GrepResult()
    async with _rg(args, cwd) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        errors = asyncio.ensure_future(proc.stderr.read())  # a full stderr pipe would block rg
        try:
            await _collect(proc.stdout, result, max_matches)
        finally:
            if result.capped:
                proc.kill()
            raw_err = await errors
        code = await proc.wait()
    if result.capped:
        return result
    err = raw_err.decode("utf-8", errors="replace").strip()
    if code == 2 and not result.matches and err:
        if "regex parse error" in err or "error parsing" in err:
            detail = " ".join(line.strip() for line in err.splitlines()[1:] if line.strip())
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT,
                f"pattern: {pattern!r} is not a valid regular expression ({detail})",
            )
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"grep failed: {err.splitlines()[0]}")
    if code == 2 and err:
        result.warnings = err.splitlines()[:5]
    return result


async def _collect(stream: asyncio.StreamReader, result: GrepResult, cap: int) -> None:
    async for raw in stream:
        event = json.loads(raw)
        if event.get("type") != "match":
            continue
        if len(result.matches) >= cap:
            result.capped = True
            return
        data = event["data"]
        text = _short(_text(data["lines"]))
        result.matches.append(GrepMatch(_text(data["path"]), int(data["line_number"]), text))


@dataclass
class Listing:
    """Files found (relative paths, in path order) and whether the limit cut the list."""

    files: list[str] = field(default_factory=list)
    capped: bool = False


async def find_files(
    directory: Path,
    *,
    respect_git_ignore: bool = True,
    under: Sequence[str] = (),
    names: Sequence[str] = (),
    keep: Callable[[str], bool] | None = None,
    limit: int | None = None,
    ordered: bool = True,
) -> Listing:
    """Files under `directory` as ripgrep would search them, in path order: only those in
    the subdirectories `under` (all when empty), whose name matches one of the
    case-insensitive globs `names` (any when empty) and that `keep` accepts, at most
    `limit`. ripgrep walks in parallel and the kept files are sorted here (unless not
    `ordered`); only when more than `limit` are kept is the walk done again in path order
    (serial), streamed and stopped at the limit, so the files kept are the first ones."""
    listing = await _find(directory, respect_git_ignore, under, names, keep, limit, False)
    if not ordered and limit is None:
        return listing
    if not listing.capped:
        listing.files.sort(key=lambda rel: rel.split("/"))
        return listing
    return await _find(directory, respect_git_ignore, under, names, keep, limit, True)


async def find_matching(
    directory: Path, matcher: Matcher, ignore: GitIgnore | None, *, limit: int
) -> Listing:
    """The files under `directory` that `matcher` accepts, listing only the directories
    and names its patterns can match (`walk_for`); `ignore` None lists ignored files too."""
    walk = walk_for(directory, matcher, ignore)
    if walk.nothing:
        return Listing()
    return await find_files(
        directory,
        respect_git_ignore=ignore is not None,
        under=walk.under,
        names=walk.names,
        keep=matcher,
        limit=limit,
    )


async def _find(
    directory: Path,
    respect_git_ignore: bool,
    under: Sequence[str],
    names: Sequence[str],
    keep: Callable[[str], bool] | None,
    limit: int | None,
    sort: bool,
) -> Listing:
    args = ["--files", *base_args(respect_git_ignore=respect_git_ignore, sort=sort)]
    for name in names:
        args += ["--iglob", name]
    if under:
        args += ["--", *under]
    listing = Listing()
    async with _rg(args, directory) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        errors = asyncio.ensure_future(proc.stderr.read())
        carry = b""
        while chunk := await proc.stdout.read(256 * 1024):
            lines = (carry + chunk).split(b"\n")
            carry = lines.pop()
            if _take(lines, listing, keep, limit):
                break
        else:
            _take([carry] if carry else [], listing, keep, limit)
        if listing.capped:
            proc.kill()
        raw_err = await errors
        code = await proc.wait()
    if not listing.capped and code not in (0, 1):
        raise ToolFailure(
            ErrorCode.TOOL_ERROR, f"listing files failed: {raw_err.decode(errors='replace')[:300]}"
        )
    return listing


def _take(
    lines: list[bytes], listing: Listing, keep: Callable[[str], bool] | None, limit: int | None
) -> bool:
    """Add the kept paths of `lines`; True once the limit is passed."""
    for raw in lines:
        if not raw:
            continue
        rel = raw.decode("utf-8", errors="surrogateescape")
        if keep is not None and not keep(rel):
            continue
        if limit is not None and len(listing.files) >= limit:
            listing.capped = True
            return True
        listing.files.append(rel)
    return False


async def list_files(directory: Path, *, respect_git_ignore: bool = True) -> list[str]:
    """Every file under `directory` (relative paths, sorted), as ripgrep would search."""
    return (await find_files(directory, respect_git_ignore=respect_git_ignore)).files
