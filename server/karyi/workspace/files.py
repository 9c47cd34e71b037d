"""The file layer under every profile's read tools: text reads, listings, file facts.

Profiles differ in names, parameters and output shapes, never in how a file is read:
binary detection, decoding, line windows and truncation live here once.
"""

from __future__ import annotations

import mimetypes
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.workspace.ignore import GitIgnore

SNIFF_BYTES = 8192
MAX_LINE_CHARS = 2000
DEFAULT_LINE_LIMIT = 2000
MAX_READ_BYTES = 20 * 1024 * 1024
_TEXT_CONTROL = {7, 8, 9, 10, 12, 13, 27}


def human_size(size: int) -> str:
    """`1.2 KB` style sizes for listings."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def looks_binary(head: bytes) -> bool:
    """True for data that is not text: a NUL byte, or mostly control characters."""
    if not head:
        return False
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4:  # a multi-byte character cut by the sniff window
            return False
    odd = sum(1 for b in head if b < 32 and b not in _TEXT_CONTROL)
    return odd / len(head) > 0.1


def _stat(path: Path, display: str) -> os.stat_result:
    try:
        return path.stat()
    except FileNotFoundError:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{display}: no such file or directory") from None
    except PermissionError:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{display}: permission denied") from None
    except OSError as exc:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{display}: {exc.strerror}") from None


def require_file(path: Path, display: str) -> os.stat_result:
    """The file's stat; a precise failure when it is missing or not a regular file."""
    st = _stat(path, display)
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{display} is a directory, not a file: list it instead of reading it",
        )
    if not stat.S_ISREG(st.st_mode):
        raise ToolFailure(ErrorCode.INVALID_TOOL_INPUT, f"{display} is not a regular file")
    return st


def require_dir(path: Path, display: str) -> os.stat_result:
    """The directory's stat; a precise failure when it is missing or a file."""
    st = _stat(path, display)
    if not stat.S_ISDIR(st.st_mode):
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT, f"{display} is a file, not a directory: read it instead"
        )
    return st


@dataclass(frozen=True)
class TextWindow:
    """A window of a text file's lines, with everything needed to say what was cut."""

    text: str
    first_line: int  # 1-based; 0 when the window is empty
    last_line: int
    total_lines: int
    size: int
    shortened_lines: int
    lossy: bool

    @property
    def truncated(self) -> bool:
        """True when lines before or after the window exist."""
        return self.first_line > 1 or self.last_line < self.total_lines


def read_bytes(path: Path, display: str, max_bytes: int = MAX_READ_BYTES) -> tuple[bytes, int]:
    """A regular file's bytes (at most `max_bytes`) and its full size; binary refused."""
    st = require_file(path, display)
    try:
        with path.open("rb") as fh:
            data = fh.read(max_bytes)
    except PermissionError:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{display}: permission denied") from None
    if looks_binary(data[:SNIFF_BYTES]):
        raise binary_failure(path, display, st.st_size)
    return data, st.st_size


def binary_failure(path: Path, display: str, size: int) -> ToolFailure:
    """The failure for a file that is not text, naming its type and size."""
    kind = mimetypes.guess_type(path.name)[0] or "binary data"
    return ToolFailure(
        ErrorCode.BINARY_FILE,
        f"{display} is a binary file ({kind}, {human_size(size)}); it cannot be shown as text",
    )


def decode(data: bytes) -> tuple[str, bool]:
    """Text from bytes: UTF-8 (BOM dropped); undecodable bytes become U+FFFD, flagged lossy."""
    try:
        return data.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        return data.decode("utf-8-sig", errors="replace"), True


def split_lines(text: str) -> list[str]:
    """Lines with their endings kept; only LF (and CRLF) end a line, as editors count."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def read_window(
    path: Path,
    display: str,
    *,
    offset: int = 0,
    limit: int | None = DEFAULT_LINE_LIMIT,
    max_line: int = MAX_LINE_CHARS,
) -> TextWindow:
    """Lines `offset`..`offset+limit` of a text file read from disk (see `text_window`)."""
    data, size = read_bytes(path, display)
    text, lossy = decode(data)
    return text_window(
        text, display, size=size, lossy=lossy, offset=offset, limit=limit, max_line=max_line
    )


def text_window(
    text: str,
    display: str,
    *,
    size: int,
    lossy: bool = False,
    offset: int = 0,
    limit: int | None = DEFAULT_LINE_LIMIT,
    max_line: int = MAX_LINE_CHARS,
) -> TextWindow:
    """Lines `offset`..`offset+limit` (0-based offset) of a text, long lines shortened."""
    lines = split_lines(text)
    total = len(lines)
    if offset > total or (offset == total and total > 0):
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"offset {offset} is past the end of {display}, which has {total} lines",
        )
    end = total if limit is None else min(total, offset + limit)
    shortened = 0
    picked: list[str] = []
    for line in lines[offset:end]:
        body = line.rstrip("\r\n")
        if len(body) > max_line:
            shortened += 1
            line = body[:max_line] + "... [line truncated]" + line[len(body) :]
        picked.append(line)
    first = offset + 1 if end > offset else 0
    return TextWindow("".join(picked), first, end, total, size, shortened, lossy)


@dataclass(frozen=True)
class Entry:
    """One directory entry for listings."""

    name: str
    is_dir: bool
    size: int
    modified: float
    is_symlink: bool


def list_dir(
    path: Path, display: str, *, ignore: GitIgnore | None = None
) -> tuple[list[Entry], int]:
    """Entries of a directory, directories first then by name; and how many git ignores."""
    require_dir(path, display)
    entries: list[Entry] = []
    ignored = 0
    try:
        scan = list(os.scandir(path))
    except PermissionError:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{display}: permission denied") from None
    for item in scan:
        try:
            is_dir = item.is_dir()
            st = item.stat(follow_symlinks=True)
            size, mtime = (0 if is_dir else st.st_size), st.st_mtime
        except OSError:
            is_dir, size, mtime = False, 0, 0.0
        if ignore is not None and ignore.ignored(Path(item.path), is_dir):
            ignored += 1
            continue
        entries.append(Entry(item.name, is_dir, size, mtime, item.is_symlink()))
    entries.sort(key=lambda e: (not e.is_dir, e.name.lower(), e.name))
    return entries, ignored


def iso_time(ts: float) -> str:
    """A timestamp in ISO 8601 UTC."""
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def file_info(path: Path, display: str) -> dict[str, object]:
    """Facts about a file or directory, for `get_file_info`."""
    try:
        lst = path.lstat()
    except FileNotFoundError:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{display}: no such file or directory") from None
    st = _stat(path, display)
    is_dir = stat.S_ISDIR(st.st_mode)
    info: dict[str, object] = {
        "name": path.name,
        "path": display,
        "absolutePath": str(path),
        "type": "directory" if is_dir else "file" if stat.S_ISREG(st.st_mode) else "other",
        "isFile": stat.S_ISREG(st.st_mode),
        "isDirectory": is_dir,
        "isSymlink": stat.S_ISLNK(lst.st_mode),
        "size": st.st_size,
        "created": iso_time(getattr(st, "st_birthtime", st.st_ctime)),
        "modified": iso_time(st.st_mtime),
        "accessed": iso_time(st.st_atime),
        "permissions": stat.filemode(st.st_mode),
    }
    if stat.S_ISREG(st.st_mode):
        info["mimeType"] = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        info["extension"] = path.suffix
    return info
