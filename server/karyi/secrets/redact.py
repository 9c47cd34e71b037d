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
import json
import logging
import re
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus

if TYPE_CHECKING:
    from karyi.core.results import ToolResult

MIN_LENGTH = 4
MIN_ENCODED = 8


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


def _trie_pattern(words: Iterable[str]) -> str:
    """One regex for many literals, merged by common prefix (longest match wins).

    A plain alternation makes the regex engine try every literal at every position;
    the trie tries one branch per character (2-3x faster on command output).
    """
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = []
        for ch in sorted(k for k in node if k):
            run, child = ch, node[ch]
            while len(child) == 1 and "" not in child:  # a chain: no recursion per char
                ((nxt, child),) = child.items()
                run += nxt
            branches.append(re.escape(run) + build(child))
        if not branches:
            return ""
        ends_here = "" in node
        if len(branches) == 1 and not ends_here:
            return branches[0]
        group = "(?:" + "|".join(branches) + ")"
        return group + "?" if ends_here else group

    return build(trie)


class Redactor:
    """Replaces known secret values in text and in nested data."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        self._names: dict[str, str] = {}
        for name, value in sorted(secrets.items()):
            if len(value) < MIN_LENGTH:
                continue
            for form in encodings(value):
                self._names.setdefault(form, name)
        forms = list(self._names)
        self.pattern = re.compile(_trie_pattern(forms)) if forms else None
        self.longest = max(map(len, forms), default=0)

    def __bool__(self) -> bool:
        return self.pattern is not None

    def _replace(self, match: re.Match[str]) -> str:
        return f"$KARYI{{{self._names[match.group(0)]}}}"

    def redact(self, text: str) -> str:
        """`text` with every secret replaced by its placeholder."""
        if self.pattern is None or not text:
            return text
        return self.pattern.sub(self._replace, text)

    def redact_data(self, value: Any) -> Any:
        """A copy of JSON-like `value` (strings, lists, tuples, dicts) with secrets replaced."""
        if self.pattern is None:
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
        if self.pattern is None:
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
        if self.pattern is None:
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


class StreamRedactor:
    """Redacts a stream, holding back just enough text to see a secret cut in two."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._carry = ""

    def feed(self, text: str) -> str:
        """Redacted text that is safe to emit now."""
        pattern = self.redactor.pattern
        if pattern is None:
            return text
        text = self._carry + text
        safe = len(text) - (self.redactor.longest - 1)
        out: list[str] = []
        pos = 0
        for m in pattern.finditer(text):
            if m.start() >= safe:
                break
            out.append(text[pos : m.start()])
            out.append(self.redactor._replace(m))
            pos = m.end()
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
        return True
