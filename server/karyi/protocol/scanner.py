"""An append-only text buffer read front to back by resumable generator readers.

Dialect parsers are written as plain top-down code made of `yield from scanner.x(...)`
steps. A reader that needs more text yields; the parser's `feed()` resumes it when a
chunk arrives. Readers hand consumed text to a sink as they go and keep only a short
tail (the longest partial delimiter), so the buffer stays small and the total work is
linear in the length of the reply, however it is chunked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator

Sink = Callable[[str], None]

NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def _discard(_text: str) -> None:
    return None


class Scanner:
    """Holds the unread part of the stream and offers incremental readers over it.

    One consumed character is kept before `pos` so patterns may look behind.
    """

    def __init__(self) -> None:
        self.buf = ""
        self.pos = 0
        self.eof = False
        self._record: list[str] | None = None

    def push(self, chunk: str) -> None:
        """Append a chunk; text consumed earlier is dropped."""
        if self.pos > 1:
            self.buf = self.buf[self.pos - 1 :]
            self.pos = 1
        self.buf += chunk

    def close(self) -> None:
        """Mark the end of the stream: readers stop waiting and report what they have."""
        self.eof = True

    def unread(self, text: str) -> None:
        """Put `text` back in front of the unread part: a parser that consumed it inside
        a malformed call reads the calls written after that call again (its recovery)."""
        self.buf = self.buf[: self.pos] + text + self.buf[self.pos :]

    def start_recording(self) -> None:
        """Begin collecting every consumed character (the source text of one call)."""
        self._record = []

    def stop_recording(self) -> str:
        """Stop collecting and return what was consumed since `start_recording`."""
        text = "".join(self._record or ())
        self._record = None
        return text

    def consume(self, end: int, sink: Sink = _discard) -> None:
        """Consume up to buffer index `end`, passing the text to `sink`."""
        if end > self.pos:
            text = self.buf[self.pos : end]
            sink(text)
            if self._record is not None:
                self._record.append(text)
            self.pos = end

    def until(self, needle: str, sink: Sink = _discard) -> Generator[None, None, bool]:
        """Consume through `needle`, passing the text before it to `sink`.

        Returns False when the stream ended first (all remaining text went to `sink`).
        """
        keep = len(needle) - 1
        while True:
            i = self.buf.find(needle, self.pos)
            if i >= 0:
                self.consume(i, sink)
                self.consume(i + len(needle))
                return True
            if self.eof:
                self.consume(len(self.buf), sink)
                return False
            self.consume(max(self.pos, len(self.buf) - keep), sink)
            yield

    def until_re(
        self, pattern: re.Pattern[str], longest: int, sink: Sink = _discard
    ) -> Generator[None, None, re.Match[str] | None]:
        """Consume through the first match of `pattern`, passing the text before it to `sink`.

        `pattern` must be self-delimiting (a match, once found, never changes with more
        text: fixed strings, or a trailing lookahead) and `longest` bounds the length of a
        match plus its lookahead. Returns None when the stream ended first.
        """
        keep = longest - 1
        while True:
            m = pattern.search(self.buf, self.pos)
            if m:
                self.consume(m.start(), sink)
                self.consume(m.end())
                return m
            if self.eof:
                self.consume(len(self.buf), sink)
                return None
            self.consume(max(self.pos, len(self.buf) - keep), sink)
            yield

    def peek(self, n: int) -> Generator[None, None, str]:
        """Wait until `n` characters are available (or the stream ended); consume nothing."""
        while len(self.buf) - self.pos < n and not self.eof:
            yield
        return self.buf[self.pos : self.pos + n]

    def skip_space(self) -> Generator[None, None, None]:
        """Consume whitespace; stop at the first other character or the end of the stream."""
        while True:
            n = len(self.buf)
            i = self.pos
            while i < n and self.buf[i] in " \t\r\n":
                i += 1
            self.consume(i)
            if i < n or self.eof:
                return
            yield

    def at_end(self) -> bool:
        """True when every character has been consumed and the stream is closed."""
        return self.eof and self.pos >= len(self.buf)
