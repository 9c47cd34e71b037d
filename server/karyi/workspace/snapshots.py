"""A version of a file's text as tools see it, and how disk bytes become one.

A snapshot's `version` is a digest of its content: two reads of the same content have
the same version wherever they came from (disk or an editor buffer), which is what the
read records compare.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

BOM = b"\xef\xbb\xbf"


def digest(data: bytes) -> str:
    """The version of a content: a short BLAKE2b digest."""
    return hashlib.blake2b(data, digest_size=12).hexdigest()


@dataclass(frozen=True)
class Stamp:
    """What a stat says about a file's identity and last change."""

    mtime_ns: int
    size: int
    ino: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        """The stamp of a stat result."""
        return cls(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


@dataclass(frozen=True)
class Snapshot:
    """One version of a file's text as a tool sees it."""

    path: Path
    text: str
    version: str
    source: str  # "disk" or "buffer"
    size: int  # bytes on disk, or of the buffer in UTF-8
    lossy: bool = False  # undecodable bytes were replaced by U+FFFD
    bom: bool = False
    truncated: bool = False  # larger than the read limit: `text` is the head only
    stamp: Stamp | None = None
    buffer_version: int | None = None


def decode_snapshot(path: Path, data: bytes, limit: int, stamp: Stamp) -> Snapshot:
    """The snapshot of a file's bytes: BOM dropped, UTF-8 (lossy if need be), cut at `limit`."""
    truncated = len(data) > limit
    if truncated:
        data = data[:limit]
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    try:
        text, lossy = body.decode("utf-8"), False
    except UnicodeDecodeError:
        text, lossy = body.decode("utf-8", errors="replace"), True
        if truncated and text.endswith("\ufffd"):
            text = text.rstrip("\ufffd")  # a character cut at the limit
    return Snapshot(
        path,
        text,
        digest(body),
        "disk",
        stamp.size,
        lossy=lossy,
        bom=bom,
        truncated=truncated,
        stamp=stamp,
    )
