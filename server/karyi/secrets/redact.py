"""Redaction: every known secret value, and its usual encodings, becomes `$KARYI{NAME}`.

A command can print a secret in many shapes; we cover the ones tools and scripts produce
by themselves: the value as is, URL-encoded, JSON-escaped, hex, and base64 (standard and
URL-safe, alone or inside a longer base64 text such as an `Authorization: Basic` header:
for that we match the part of the encoding that depends only on the secret, at each of
the three byte alignments). Values shorter than `MIN_LENGTH` are not redacted: replacing
every `abc` in every output would destroy it; `karyi var set` warns about such values.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import json
import logging
import re
import threading
import traceback
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote, quote_plus

from karyi.secrets.byte_stream import Automaton, BytesRedactor, ByteStreamRedactor, automaton

if TYPE_CHECKING:
    from karyi.core.results import ToolResult

MIN_LENGTH = 4
MIN_ENCODED = 8
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _b64_cores(raw: bytes) -> Iterable[str]:
    """Base64 characters determined by `raw` alone, at byte offsets 0, 1 and 2."""
    n = len(raw)
    for k in range(3):
        for alphabet in (base64.b64encode, base64.urlsafe_b64encode):
            text = alphabet(b"\0" * k + raw).decode("ascii")
            start = -(-8 * k // 6)
            end = (8 * (k + n)) // 6
            yield text[start:end]


def encodings(value: str) -> set[str]:
    """The shapes of `value` that redaction recognises."""
    raw = value.encode("utf-8")
    forms = {value, quote(value, safe=""), quote(value), quote_plus(value)}
    forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
    forms.add(json.dumps(value)[1:-1])
    encoded = {binascii.hexlify(raw).decode("ascii")}
    encoded.add(next(iter(encoded)).upper())
    for full in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        encoded.add(full.decode("ascii"))
    encoded.update(_b64_cores(raw))
    return {f for f in forms if len(f) >= MIN_LENGTH} | {
        f for f in encoded if len(f) >= MIN_ENCODED
    }


class Redactor:
    """Replaces known secret values in text and in nested data.

    Every form of every secret goes into one Aho-Corasick automaton (`ahocorasick-rs`,
    leftmost-longest), so a text is scanned once whatever the number of secrets and
    encodings: a regex alternation, even merged into a trie, costs 15x a `str.replace`
    of the raw values on command output; the automaton stays within 2x.
    """

    def __init__(self, secrets: Mapping[str, str]) -> None:
        names: dict[str, str] = {}
        for name, value in sorted(secrets.items()):
            if len(value) < MIN_LENGTH:
                continue
            for form in encodings(value):
                names.setdefault(form, name)
        forms = sorted(names)
        self._forms = forms
        self._placeholders = [f"$KARYI{{{names[f]}}}" for f in forms]
        self._bytes: BytesRedactor | None = None
        self.longest = max(map(len, forms), default=0)

    def __bool__(self) -> bool:
        return bool(self._forms)

    @functools.cached_property
    def _text_automaton(self) -> Automaton:
        """For text that is not ASCII, built when such a text first comes."""
        return automaton(self._forms)

    def matches(self, text: str) -> list[tuple[int, int, int]]:
        """(form, start, end) of every secret in `text`, leftmost-longest, in order."""
        if not self._forms or not text:
            return []
        if text.isascii():  # character offsets are byte offsets: scan the bytes, ~10x faster
            automaton = self._bytes_redactor().automaton
            assert automaton is not None
            return automaton.find_matches_as_indexes(text.encode("ascii"))
        try:
            return self._text_automaton.find_matches_as_indexes(text)
        except UnicodeEncodeError:  # a lone surrogate (an undecodable file name)
            return self._matches_between_surrogates(text)

    def _matches_between_surrogates(self, text: str) -> list[tuple[int, int, int]]:
        found: list[tuple[int, int, int]] = []
        start = 0
        for m in [*_SURROGATE.finditer(text), None]:
            end = m.start() if m is not None else len(text)
            if end > start:
                for form, s, e in self._text_automaton.find_matches_as_indexes(text[start:end]):
                    found.append((form, start + s, start + e))
            start = end + 1
        return found

    def placeholder(self, form: int) -> str:
        """`$KARYI{NAME}` for the secret whose form is number `form` of `matches`."""
        return self._placeholders[form]

    def redact(self, text: str) -> str:
        """`text` with every secret replaced by its placeholder."""
        found = self.matches(text)
        if not found:
            return text
        out: list[str] = []
        pos = 0
        for form, start, end in found:
            out.append(text[pos:start])
            out.append(self._placeholders[form])
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def redact_data(self, value: Any) -> Any:
        """A copy of JSON-like `value` (strings, lists, tuples, dicts) with secrets replaced."""
        if not self._forms:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, dict):
            return {self.redact_data(k): self.redact_data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.redact_data(v) for v in value)
        return value

    def redact_tree(self, value: Any) -> Any:
        """`value` with secrets replaced in every string it holds: JSON-like data and
        frozen dataclasses (an event, a call, a planned write), field by field; anything
        else is kept as it is. Unchanged parts are returned as they were."""
        if not self._forms:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                if not f.init:
                    continue
                old = getattr(value, f.name)
                new = self.redact_tree(old)
                if new is not old and new != old:
                    changes[f.name] = new
            return dataclasses.replace(value, **changes) if changes else value
        if isinstance(value, dict):
            return {self.redact_tree(k): self.redact_tree(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.redact_tree(v) for v in value)
        return value

    def redact_result(self, result: ToolResult) -> ToolResult:
        """A copy of `result` with every text field, its data and metadata redacted."""
        if not self._forms:
            return result
        error = result.error
        if error is not None:
            error = dataclasses.replace(error, message=self.redact(error.message))
        return dataclasses.replace(
            result,
            llm_content=self.redact(result.llm_content),
            display=self.redact_data(result.display),
            data=self.redact_data(result.data),
            error=error,
            metadata=self.redact_data(result.metadata),
        )

    def stream(self) -> StreamRedactor:
        """A redactor for text that arrives in pieces (a secret may straddle two pieces)."""
        return StreamRedactor(self)

    def bytes_stream(self) -> ByteStreamRedactor:
        """The same for UTF-8 bytes (a command's output file, `secrets/byte_stream.py`)."""
        return self._bytes_redactor().stream()

    def _bytes_redactor(self) -> BytesRedactor:
        if self._bytes is None:
            self._bytes = BytesRedactor(self._forms, self._placeholders)
        return self._bytes


class StreamRedactor:
    """Redacts a stream, holding back just enough text to see a secret cut in two."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._carry = ""

    def feed(self, text: str) -> str:
        """Redacted text that is safe to emit now.

        A match that starts `longest - 1` characters before the end or earlier is whole
        and final; only the text after the last such match and that point waits.
        """
        redactor = self.redactor
        if not redactor:
            return text
        text = self._carry + text
        safe = len(text) - (redactor.longest - 1)
        out: list[str] = []
        pos = 0
        for form, start, end in redactor.matches(text):
            if start >= safe:
                break
            out.append(text[pos:start])
            out.append(redactor.placeholder(form))
            pos = end
        cut = max(pos, safe)
        out.append(text[pos:cut])
        self._carry = text[cut:]
        return "".join(out)

    def flush(self) -> str:
        """Everything still held back, redacted."""
        text, self._carry = self._carry, ""
        return self.redactor.redact(text)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts messages and tracebacks before any handler sees them."""

    def __init__(self, current: Callable[[], Redactor]) -> None:
        super().__init__()
        self.current = current

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite `record` in place; never drops it."""
        redactor = self.current()
        if not redactor:
            return True
        record.msg = redactor.redact(record.getMessage())
        record.args = None
        if record.exc_info:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            record.exc_text = redactor.redact(text)
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = redactor.redact(record.exc_text)
        return True


class _HasRedactor(Protocol):
    @property
    def redactor(self) -> Redactor: ...


_LOG_SOURCES: weakref.WeakSet[Any] = weakref.WeakSet()
_BASE_FACTORY: Callable[..., logging.LogRecord] | None = None
_INSIDE = threading.local()  # building a redactor may log (reading the store)


def redact_logs_of(source: _HasRedactor) -> None:
    """Redact every log record this process makes from now on with `source`'s secrets
    (a vault; held weakly, so a closed runtime's secrets stop counting when it goes).

    Records are redacted where they are made (the log record factory), so no handler,
    whenever it was added (a library's, a test's), and no formatter ever sees a value;
    with several runtimes in one process (ACP sessions) each one's secrets count."""
    global _BASE_FACTORY
    _LOG_SOURCES.add(source)
    if _BASE_FACTORY is None:
        _BASE_FACTORY = logging.getLogRecordFactory()
        logging.setLogRecordFactory(_redacting_record)


def _redacting_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
    assert _BASE_FACTORY is not None
    record = _BASE_FACTORY(*args, **kwargs)
    if getattr(_INSIDE, "active", False):
        return record
    _INSIDE.active = True
    try:
        _redact_record(record)
    finally:
        _INSIDE.active = False
    return record


def _redact_record(record: logging.LogRecord) -> None:
    redactors = [r for source in list(_LOG_SOURCES) if (r := source.redactor)]
    if not redactors:
        return
    try:
        text = record.getMessage()
    except Exception:  # a bad format string: logging reports it later, as it would
        return
    clean = text
    for redactor in redactors:
        clean = redactor.redact(clean)
    if clean != text:
        _redact_parts(record, redactors, clean)
    if record.exc_info:
        trace = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        scrubbed = trace
        for redactor in redactors:
            scrubbed = redactor.redact(scrubbed)
        if scrubbed != trace:
            record.exc_text, record.exc_info = scrubbed, None


def _redact_parts(record: logging.LogRecord, redactors: list[Redactor], clean: str) -> None:
    """Redact the format and its arguments one by one (formatters such as uvicorn's read
    `args`); when a value still shows (split between them), the whole message instead."""

    def scrub(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        for redactor in redactors:
            value = redactor.redact(value)
        return value

    msg, args = record.msg, record.args
    record.msg = scrub(msg)
    if isinstance(args, tuple):
        record.args = tuple(scrub(a) for a in args)
    elif isinstance(args, Mapping):
        record.args = {k: scrub(v) for k, v in args.items()}
    try:
        if record.getMessage() == clean:
            return
    except Exception:
        pass
    record.msg, record.args = clean, None
