"""Redaction: values and their usual encodings become $KARYI{NAME}, everywhere."""

from __future__ import annotations

import base64
import binascii
import json
import logging
from urllib.parse import quote

from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.secrets.redact import RedactingFilter, Redactor

SECRET = "ghp_Zx9!secret/token+value"
R = Redactor({"GH": SECRET, "TINY": "abc"})


def test_the_value_and_its_encodings() -> None:
    raw = SECRET.encode()
    forms = [
        SECRET,
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
        quote(SECRET, safe=""),
        binascii.hexlify(raw).decode(),
        json.dumps(SECRET)[1:-1],
    ]
    for form in forms:
        assert R.redact(f"<{form}>") == "<$KARYI{GH}>", form


def test_base64_inside_a_longer_text_at_any_alignment() -> None:
    for prefix in ("u:", "us:", "use:", "user:"):
        blob = base64.b64encode(f"{prefix}{SECRET}".encode()).decode()
        redacted = R.redact(blob)
        assert "$KARYI{GH}" in redacted and len(redacted) < len(blob)


def test_short_values_are_not_redacted() -> None:
    assert R.redact("abcabc") == "abcabc"


def test_results_are_redacted_in_every_field() -> None:
    result = ToolResult.fail(
        ErrorCode.TOOL_ERROR,
        f"failed with {SECRET}",
        data={"out": [SECRET], SECRET: 1},
        token=SECRET,
    )
    clean = R.redact_result(result)
    assert SECRET not in repr(clean.to_dict())
    assert clean.error is not None and clean.error.message == "failed with $KARYI{GH}"
    assert clean.data == {"out": ["$KARYI{GH}"], "$KARYI{GH}": 1}
    assert result.llm_content == f"failed with {SECRET}"  # the original is untouched


def test_logs_are_redacted(caplog: object) -> None:
    logger = logging.getLogger("karyi.test.redact")
    handler = logging.Handler()
    records: list[logging.LogRecord] = []
    handler.emit = records.append  # type: ignore[method-assign]
    handler.addFilter(RedactingFilter(lambda: R))
    logger.addHandler(handler)
    try:
        logger.warning("token %s", SECRET)
        try:
            raise ValueError(SECRET)
        except ValueError:
            logger.exception("boom")
    finally:
        logger.removeHandler(handler)
    assert records[0].getMessage() == "token $KARYI{GH}"
    assert records[1].exc_text is not None and SECRET not in records[1].exc_text
    assert "ValueError: $KARYI{GH}" in records[1].exc_text


def test_long_values_and_shared_prefixes() -> None:
    key = "-----BEGIN KEY-----" + "abcDEF123/+" * 400  # longer than Python's recursion limit
    r = Redactor({"KEY": key, "SHORT": "prefix-1234", "LONG": "prefix-123456"})
    assert r.redact(f"<{key}>") == "<$KARYI{KEY}>"
    assert r.redact(base64.b64encode(key.encode()).decode()) == "$KARYI{KEY}"
    assert r.redact("prefix-123456 prefix-1234") == "$KARYI{LONG} $KARYI{SHORT}"
