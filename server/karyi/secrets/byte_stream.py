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
GROUP = 64
"""Forms per automaton: the crate's SIMD prefilter (Teddy) takes at most 64 patterns. With
more, every byte goes through the automaton: ~0.55 GB/s here, against 3-6 GB/s with the
prefilter, so 20 secrets (120 forms) scan faster as two automata of 60 than as one."""
MAX_GROUPS = 4
"""Beyond this many groups, one automaton scanning every byte is as fast as the groups."""

Match = tuple[int, int, int]
"""(form, start, end), as ahocorasick-rs reports it."""


def _built(forms: list[Any], kind: type[Any]) -> Any:
    small = sum(map(len, forms)) <= DFA_SIZE
    return kind(
        forms,
        matchkind=MatchKind.LeftmostLongest,
        implementation=Implementation.DFA if small else None,
    )


class Automaton:
    """Leftmost-longest matches of many forms, exactly as one Aho-Corasick automaton over
    all of them finds them, scanned with the prefilter whenever the forms allow it.

    More than `GROUP` forms are split into groups, one automaton each. When the groups'
    matches do not overlap, they are the matches one automaton finds (it would report the
    same leftmost-longest match at each position: no group skipped one for a match that
    is not kept). When two overlap, which one wins depends on forms of other groups, so
    one automaton over every form, built then, decides for that text: a secret is never
    missed, and overlapping secrets in one output are rare.

    Only bytes are grouped: a str automaton converts the whole text at each scan, which
    costs more than the prefilter saves (ASCII text is scanned as bytes, redact.py).
    """

    def __init__(self, forms: list[Any], kind: type[Any]) -> None:
        self._forms = forms
        self._kind = kind
        count = -(-len(forms) // GROUP)
        if kind is BytesAhoCorasick and 1 < count <= MAX_GROUPS:
            self._groups = [
                (first, _built(forms[first : first + GROUP], kind))
                for first in range(0, len(forms), GROUP)
            ]
            self._whole: Any = None
        else:
            self._whole = _built(forms, kind)
            self._groups = [(0, self._whole)]

    def find_matches_as_indexes(self, haystack: Any) -> list[Match]:
        """(form, start, end) of every match, leftmost-longest, in order."""
        if len(self._groups) == 1:
            found: list[Match] = self._groups[0][1].find_matches_as_indexes(haystack)
            return found
        merged = sorted(
            (start, end, first + form)
            for first, group in self._groups
            for form, start, end in group.find_matches_as_indexes(haystack)
        )
        out: list[Match] = []
        pos = 0
        for start, end, form in merged:
            if start < pos:  # overlapping matches: one automaton over every form decides
                decided: list[Match] = self._one().find_matches_as_indexes(haystack)
                return decided
            out.append((form, start, end))
            pos = end
        return out

    def _one(self) -> Any:
        if self._whole is None:
            self._whole = _built(self._forms, self._kind)
        return self._whole


def automaton(forms: list[Any], kind: type[Any] = AhoCorasick) -> Automaton:
    """An automaton over `forms` (str for `AhoCorasick`, bytes for `BytesAhoCorasick`)."""
    return Automaton(forms, kind)


class BytesRedactor:
    """The encoded forms of a `Redactor` in one automaton (see the module docstring)."""

    def __init__(self, forms: list[str], placeholders: list[str]) -> None:
        raw = [form.encode("utf-8", "surrogatepass") for form in forms]
        self.placeholders = [p.encode("utf-8", "surrogatepass") for p in placeholders]
        self.automaton: Automaton | None = automaton(raw, BytesAhoCorasick) if raw else None
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
