"""Redaction of UTF-8 bytes arriving in pieces: a command's output on its way to its file.

The same forms and placeholders as the text `Redactor`, matched on the encoded bytes:
scanning bytes costs little more than half of scanning the same text (no character
offsets to work out), and a loud command's output file is the largest text Karyi
redacts. UTF-8 keeps matches on character boundaries (a form starts with a lead byte
and a continuation byte never does), so the result is the text redaction's, encoded.
"""

from __future__ import annotations

from typing import Any

from ahocorasick_rs import AhoCorasick, BytesAhoCorasick, Implementation, MatchKind

DFA_SIZE = 50_000
"""Total length of all forms (characters or bytes) up to which an automaton is a DFA."""


def automaton(forms: list[Any], kind: type[Any] = AhoCorasick) -> Any:
    """An Aho-Corasick automaton over `forms` (str for `AhoCorasick`, bytes for
    `BytesAhoCorasick`): a DFA while it stays small (the fastest scan), the crate's
    choice beyond."""
    small = sum(map(len, forms)) <= DFA_SIZE
    return kind(
        forms,
        matchkind=MatchKind.LeftmostLongest,
        implementation=Implementation.DFA if small else None,
    )


class BytesRedactor:
    """The encoded forms of a `Redactor` in one automaton (see the module docstring)."""

    def __init__(self, forms: list[str], placeholders: list[str]) -> None:
        raw = [form.encode("utf-8", "surrogatepass") for form in forms]
        self.placeholders = [p.encode("utf-8", "surrogatepass") for p in placeholders]
        self.automaton: BytesAhoCorasick | None = automaton(raw, BytesAhoCorasick) if raw else None
        self.longest = max(map(len, raw), default=0)

    def redact(self, data: bytes) -> bytes:
        """`data` with every form replaced by its placeholder."""
        if self.automaton is None or not data:
            return data
        out: list[bytes] = []
        pos = 0
        for form, start, end in self.automaton.find_matches_as_indexes(data):
            out.append(data[pos:start])
            out.append(self.placeholders[form])
            pos = end
        if not pos:
            return data
        out.append(data[pos:])
        return b"".join(out)

    def stream(self) -> ByteStreamRedactor:
        """A redactor for bytes that arrive in pieces (a secret may straddle two)."""
        return ByteStreamRedactor(self)


class ByteStreamRedactor:
    """Redacts a byte stream, holding back just enough to see a secret cut in two."""

    def __init__(self, redactor: BytesRedactor) -> None:
        self.redactor = redactor
        self._carry = b""

    def feed(self, data: bytes) -> bytes | bytearray:
        """Redacted bytes that are safe to write now: a match that starts `longest - 1`
        bytes before the end or earlier is whole and final; the rest waits. The pieces
        between matches are copied once, into the result (a loud command's output may
        hold a secret on every line)."""
        redactor = self.redactor
        automaton = redactor.automaton
        if automaton is None:
            return data
        if self._carry:
            data = self._carry + data
        safe = len(data) - (redactor.longest - 1)
        view = memoryview(data)
        out: bytearray | None = None
        pos = 0
        for form, start, end in automaton.find_matches_as_indexes(data):
            if start >= safe:
                break
            if out is None:
                out = bytearray()
            out += view[pos:start]
            out += redactor.placeholders[form]
            pos = end
        cut = max(pos, safe)
        self._carry = data[cut:]
        if out is None:
            return data[:cut]
        out += view[pos:cut]
        return out

    def flush(self) -> bytes:
        """Everything still held back, redacted."""
        data, self._carry = self._carry, b""
        return self.redactor.redact(data)
