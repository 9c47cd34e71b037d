"""Command output for the model: ANSI stripped, cut head + tail, the whole kept in a file.

Output arrives as bytes in pieces of any size. `TextDecoder` turns it into text (UTF-8,
an escape sequence or a character cut between two pieces is held until complete) without
terminal control sequences. `OutputLog` keeps one command's output: all of it in memory
while it is small, then in a file (secrets redacted on the way) once it outgrows the
limit; and, for the next report, the part not reported yet as its first and last
characters. Memory stays bounded whatever a command prints.
"""

from __future__ import annotations

import codecs
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from karyi.secrets.byte_stream import ByteStreamRedactor
from karyi.secrets.redact import Redactor

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC strings
    r"|\x1b[()*+][0-9A-Za-z]"  # character set selection
    r"|\x1b[ -/]*[0-~]"  # any other two-character escape
)
_PARTIAL = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ -/]*)$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
"""`_CONTROL` as bytes: ASCII, so deleting them never splits a UTF-8 character."""
FILE_CAP = 1024 * 1024 * 1024
"""The most bytes of one command's output kept in its file: a command printing more is
a runaway; a loud build's whole output is kept."""
_CAPPED = b"\n[output file capped here]\n"


def strip_ansi(text: str) -> str:
    """`text` without escape sequences or control characters (tab, CR, LF kept)."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def collapse_cr(text: str) -> str:
    """What a terminal would show: CRLF as LF; a line rewritten with CR keeps its last form."""
    text = text.replace("\r\n", "\n")
    if "\r" not in text:
        return text
    lines = []
    for line in text.split("\n"):
        parts = [p for p in line.split("\r") if p]
        lines.append(parts[-1] if parts else "")
    return "\n".join(lines)


class TextDecoder:
    """Bytes from a terminal or pipe → clean text, for pieces cut anywhere."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._carry = ""

    def feed(self, data: bytes, final: bool = False) -> str:
        """The clean text of `data` (escape sequences cut at the end wait for the next piece)."""
        if not self._carry and b"\x1b" not in data:
            return self._plain(data, final)
        text = self._carry + self._utf8.decode(data, final)
        self._carry = ""
        if not final:
            m = _PARTIAL.search(text, max(0, len(text) - 256))
            if m:
                self._carry, text = text[m.start() :], text[: m.start()]
            elif text.endswith("\r"):  # the CR of a CRLF whose LF is in the next piece
                self._carry, text = "\r", text[:-1]
        return strip_ansi(text).replace("\r\n", "\n")

    def _plain(self, data: bytes, final: bool) -> str:
        """`feed` for a piece without escape sequences: control bytes deleted before
        decoding (a C loop, where the regex of `strip_ansi` costs most of a loud command)."""
        text = self._utf8.decode(data.translate(None, _CONTROL_BYTES), final)
        if not final and text.endswith("\r"):
            self._carry, text = "\r", text[:-1]
        return text.replace("\r\n", "\n") if "\r" in text else text


@dataclass(frozen=True)
class Report:
    """Output shown to the model: the text, what was left out, and where the whole is."""

    text: str
    omitted_chars: int = 0
    omitted_lines: int = 0
    path: str | None = None


class _Window:
    """The unreported part of the output: its head, and a tail that slides."""

    def __init__(self, limit: int) -> None:
        self.head_budget = limit // 4
        self.tail_budget = limit - self.head_budget
        self._reset()

    def _reset(self) -> None:
        self.head: list[str] = []
        self.head_len = 0
        self.tail: deque[str] = deque()
        self.tail_len = 0
        self.dropped_chars = 0
        self.dropped_lines = 0

    def feed(self, text: str) -> None:
        room = self.head_budget - self.head_len
        if room > 0:
            self.head.append(text[:room])
            self.head_len += min(room, len(text))
            text = text[room:]
        if not text:
            return
        self.tail.append(text)
        self.tail_len += len(text)
        while self.tail and self.tail_len - len(self.tail[0]) >= self.tail_budget:
            self._drop(self.tail.popleft())
        if self.tail_len > 2 * self.tail_budget:  # one huge piece: cut it now
            first = self.tail[0]
            excess = self.tail_len - self.tail_budget
            self._drop(first[:excess])
            self.tail[0] = first[excess:]

    def _drop(self, text: str) -> None:
        self.dropped_chars += len(text)
        self.dropped_lines += text.count("\n")
        self.tail_len -= len(text)

    def take(self, path: str | None) -> Report:
        head, tail = "".join(self.head), "".join(self.tail)
        excess = len(tail) - self.tail_budget
        if excess > 0:
            self._drop(tail[:excess])
            tail = tail[excess:]
        chars, lines = self.dropped_chars, self.dropped_lines
        self._reset()
        if not chars:
            return Report(collapse_cr(head + tail))
        cut_head, cut_tail = _snap(head, tail)
        chars += len(head) - len(cut_head) + len(tail) - len(cut_tail)
        lines += head.count("\n") - cut_head.count("\n") + tail.count("\n") - cut_tail.count("\n")
        gap = _gap(chars, lines, path)
        joint = "" if cut_head.endswith("\n") else "\n"
        text = f"{collapse_cr(cut_head)}{joint}{gap}\n{collapse_cr(cut_tail)}"
        return Report(text, chars, lines, path)


def _snap(head: str, tail: str) -> tuple[str, str]:
    """Cut at line ends when one is near, so the model sees whole lines."""
    cut = head.rfind("\n")
    if cut >= len(head) * 0.7:
        head = head[: cut + 1]
    start = tail.find("\n")
    if 0 <= start <= len(tail) * 0.3:
        tail = tail[start + 1 :]
    return head, tail


def _gap(chars: int, lines: int, path: str | None) -> str:
    where = f"; the full output is in {path}" if path else ""
    return f"[... {chars:,} characters ({lines:,} lines) omitted{where} ...]"


class OutputLog:
    """One command's output (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        limit: int,
        redactor: Redactor | None = None,
        *,
        shown: str | None = None,
        prepare: Callable[[], None] | None = None,
    ) -> None:
        self.path = path
        self.shown = shown or str(path)
        self._prepare = prepare
        self._closed = False
        self.limit = limit
        self.total = 0
        self._pending: list[str] = []
        self._file: IO[bytes] | None = None
        self._written = 0
        self._capped = False
        self._redact: ByteStreamRedactor | None = redactor.bytes_stream() if redactor else None
        self._window = _Window(limit)

    def feed(self, text: str) -> None:
        """Add `text` (already clean)."""
        if not text:
            return
        self.total += len(text)
        self._window.feed(text)
        if self._closed:
            return
        if self._file is None:
            self._pending.append(text)
            if self.total > self.limit:
                self._open()
        else:
            self._write(text)

    def _open(self) -> None:
        if self._prepare is not None:
            self._prepare()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        pending, self._pending = "".join(self._pending), []
        self._write(pending)

    def _write(self, text: str) -> None:
        """Encode, redact (as bytes: half the cost of redacting text) and write `text`."""
        assert self._file is not None
        if self._capped:
            return  # the file is full: nothing more is written, so nothing to encode
        encoded = text.encode("utf-8", "surrogatepass")
        self._put(self._redact.feed(encoded) if self._redact is not None else encoded)

    def _put(self, data: bytes | bytearray) -> None:
        """Write redacted `data`, up to the file's cap and the mark that says so."""
        assert self._file is not None
        if self._capped or not data:
            return
        room = FILE_CAP - self._written
        if len(data) > room:  # the first byte past the cap: what fits, then the mark
            data = data[:room] + _CAPPED
            self._capped = True
        self._file.write(data)
        self._written += len(data)

    @property
    def unreported(self) -> int:
        """Characters not yet reported (including those that will be cut)."""
        w = self._window
        return w.head_len + w.tail_len + w.dropped_chars

    def take(self) -> Report:
        """The unreported output, cut to the limit, with the file named when it exists."""
        if self._file is not None and not self._closed:
            self._file.flush()
        return self._window.take(self.shown if self._file is not None else None)

    def close(self) -> None:
        """Write out what the redactor held back and close the file."""
        if self._file is None or self._closed:
            return
        self._closed = True
        if self._redact is not None:
            self._put(self._redact.flush())
        self._file.close()
