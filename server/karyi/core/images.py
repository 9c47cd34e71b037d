"""Pictures in a user's message: checked once, carried by every layer as one type.

An `Image` is the bytes of a PNG, JPEG, GIF or WebP picture and the media type its
magic bytes prove (a file's name or a client's word is never trusted for that), at most
`MAX_IMAGE_BYTES`. Every front end makes one with `image_from_bytes`,
`image_from_base64` (an LSP or ACP client's `data`, or a `data:` URL) or
`image_from_file` (`karyi run --image`); what is not a picture of those kinds, or too
large, is an `ImageError` whose message says which and why, and nothing is changed.
The bytes never appear in a `repr` (so never in a log line); `describe()` is the safe
one-line summary. docs/images.md is the user's reference.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

MAX_IMAGE_BYTES = 3_932_160
"""3.75 MiB: base64 makes it 5 MiB, the largest picture Anthropic's API takes (OpenAI
takes 20 MB), so one limit holds for every provider."""
MAX_IMAGES = 8
"""Pictures one message may carry."""
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_DATA_URL = re.compile(r"^data:([\w/+.-]*)(;[\w=.-]+)*;base64,", re.IGNORECASE)


_BLOB = re.compile(r"(data:image/[\w+.-]+;base64,)?[A-Za-z0-9+/]{256,}={0,2}")


def elide_blobs(text: str) -> str:
    """`text` with every long base64 run (a picture's data) replaced by its length."""
    return _BLOB.sub(lambda m: f"[base64 data, {len(m.group(0))} characters]", text)


class ElideImageData(logging.Filter):
    """A log filter: a picture's bytes never reach a log line, not even the LSP
    library's own trace of what it sends (`karyi --verbose`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message when it carries base64 data; keep every record."""
        try:
            text = record.getMessage()
        except Exception:  # a bad format string: logging reports it as it would
            return True
        clean = elide_blobs(text)
        if clean != text:
            record.msg, record.args = clean, None
        return True


class ImageError(ValueError):
    """A picture was refused: not PNG, JPEG, GIF or WebP, unreadable, or too large."""


class ImageJson(TypedDict):
    """A picture in a chat message: base64 bytes, checked by the server (docs/images.md)."""

    mimeType: str
    data: str
    name: str


@dataclass(frozen=True)
class Image:
    """One checked picture: its media type, bytes and the name the user gave it."""

    mime: str
    data: bytes = field(repr=False)
    name: str = ""

    @property
    def sha256(self) -> str:
        """The bytes' hash (identifies a picture in logs and tests without its content)."""
        import hashlib  # not at start-up: the launcher imports this module (its log filter)

        return hashlib.sha256(self.data).hexdigest()

    def base64(self) -> str:
        """The bytes as base64 text, as the model APIs carry them."""
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        """A `data:` URL (OpenAI's `image_url` part, a webview's `<img src>`)."""
        return f"data:{self.mime};base64,{self.base64()}"

    def describe(self) -> str:
        """A one-line summary safe to log or show: name, type and size, never the bytes."""
        size = f"{len(self.data) / 1024:.1f} KB"
        return f"{self.name or 'image'} ({self.mime}, {size})"

    def to_json(self) -> ImageJson:
        """The canonical JSON form: `{mimeType, data (base64), name}`."""
        return {"mimeType": self.mime, "data": self.base64(), "name": self.name}

    @classmethod
    def from_json(cls, value: Any) -> Image:
        """The inverse of `to_json` (ImageError for anything else)."""
        if not isinstance(value, dict) or not isinstance(value.get("data"), str):
            raise ImageError("an image must be an object with base64 `data`")
        name = value.get("name") or ""
        return image_from_base64(value["data"], name=str(name), mime=value.get("mimeType"))


def sniff(data: bytes) -> str | None:
    """The media type the magic bytes say, or None when they name no accepted kind."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_from_bytes(data: bytes, *, name: str = "", mime: str | None = None) -> Image:
    """A checked picture from raw bytes. `mime`, when a client sends one, must agree
    with what the bytes are."""
    label = _label(name)
    if not data:
        raise ImageError(f"{label} is empty")
    if len(data) > MAX_IMAGE_BYTES:
        raise _too_large(label, len(data))
    found = sniff(data)
    if found is None:
        raise ImageError(f"{label} is not a PNG, JPEG, GIF or WebP picture (by its content)")
    if mime and mime.lower() != found:
        raise ImageError(f"{label} says {mime} but its content is {found}")
    return Image(found, data, name)


def image_from_base64(text: str, *, name: str = "", mime: str | None = None) -> Image:
    """A checked picture from base64 text or a `data:` URL (a client's message)."""
    match = _DATA_URL.match(text)
    if match:
        mime = mime or match.group(1) or None
        text = text[match.end() :]
    if len(text) > MAX_IMAGE_BYTES * 4 // 3 + 8:
        raise _too_large(_label(name), len(text) * 3 // 4)
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError(f"{_label(name)}: `data` is not valid base64") from None
    return image_from_bytes(data, name=name, mime=mime)


def image_from_file(path: Path) -> Image:
    """A checked picture from a file (`karyi run --image FILE`)."""
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise _too_large(_label(path.name), size)
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"image file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ImageError(f"image file {str(path)!r} is a directory") from None
    except OSError as exc:
        raise ImageError(f"image file {str(path)!r} cannot be read: {exc.strerror}") from None
    return image_from_bytes(data, name=path.name)


def _label(name: str) -> str:
    return f"image {name!r}" if name else "the image"


def _too_large(label: str, size: int) -> ImageError:
    return ImageError(
        f"{label} is {size / 1048576:.1f} MiB; the limit is "
        f"{MAX_IMAGE_BYTES / 1048576:.2f} MiB (docs/images.md)"
    )


def checked_count(images: Sequence[Image]) -> tuple[Image, ...]:
    """The pictures of one message, at most MAX_IMAGES of them."""
    if len(images) > MAX_IMAGES:
        raise ImageError(f"{len(images)} images in one message; at most {MAX_IMAGES}")
    return tuple(images)
