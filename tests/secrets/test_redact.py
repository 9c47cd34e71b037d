"""Redaction: values and their usual encodings become $KARYI{NAME}, everywhere."""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import logging
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.secrets.redact import MIN_LENGTH, RedactingFilter, Redactor, encodings, redact_logs_of

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


def _reference(secrets: dict[str, str], text: str) -> str:
    """The naive definition: at each position the longest form of any secret, else a char."""
    names: dict[str, str] = {}
    for name, value in sorted(secrets.items()):
        if len(value) >= MIN_LENGTH:
            for form in encodings(value):
                names.setdefault(form, name)
    out, i = [], 0
    while i < len(text):
        here = [f for f in names if text.startswith(f, i)]
        if here:
            form = max(here, key=len)
            out.append(f"$KARYI{{{names[form]}}}")
            i += len(form)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# A tiny alphabet, so secrets overlap, share prefixes and contain each other.
_VALUES = st.text(alphabet="ab/+=é", min_size=2, max_size=9)
_SECRETS = st.dictionaries(st.sampled_from(["A", "B", "C", "D"]), _VALUES, max_size=4)


@st.composite
def _case(draw: st.DrawFn) -> tuple[dict[str, str], str, list[int]]:
    secrets = draw(_SECRETS)
    pieces = [f for v in secrets.values() for f in sorted(encodings(v))] or ["x"]
    parts = draw(st.lists(st.sampled_from(pieces) | st.text(alphabet="ab/+=é\n", max_size=5)))
    text = "".join(parts)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    return secrets, text, cuts


@given(_case())
@settings(max_examples=300, deadline=None)
def test_the_automaton_matches_the_naive_definition(
    case: tuple[dict[str, str], str, list[int]],
) -> None:
    secrets, text, _cuts = case
    assert Redactor(secrets).redact(text) == _reference(secrets, text)


@given(_case())
@settings(max_examples=300, deadline=None)
def test_a_stream_cut_anywhere_redacts_like_the_whole(
    case: tuple[dict[str, str], str, list[int]],
) -> None:
    secrets, text, cuts = case
    stream = Redactor(secrets).stream()
    bounds = [0, *cuts, len(text)]
    out = [stream.feed(text[a:b]) for a, b in itertools.pairwise(bounds)]
    assert "".join(out) + stream.flush() == _reference(secrets, text)


@given(_case(), st.lists(st.integers(0, 10_000), max_size=8))
@settings(max_examples=300, deadline=None)
def test_a_byte_stream_cut_anywhere_redacts_like_the_whole_text(
    case: tuple[dict[str, str], str, list[int]], byte_cuts: list[int]
) -> None:
    """The output file's redaction works on UTF-8 bytes, cut anywhere: inside a secret,
    inside an encoded form, inside a character of two bytes."""
    secrets, text, _cuts = case
    data = text.encode()
    stream = Redactor(secrets).bytes_stream()
    bounds = [0, *sorted(c % (len(data) + 1) for c in byte_cuts), len(data)]
    out = [stream.feed(data[a:b]) for a, b in itertools.pairwise(bounds)]
    assert b"".join(out) + stream.flush() == _reference(secrets, text).encode()


def test_a_byte_stream_one_byte_at_a_time() -> None:
    text = f"é={SECRET}&hex={binascii.hexlify(SECRET.encode()).decode()}\n" * 3
    stream = R.bytes_stream()
    out = b"".join(stream.feed(bytes([b])) for b in text.encode()) + stream.flush()
    assert out.decode() == R.redact(text) == "é=$KARYI{GH}&hex=$KARYI{GH}\n" * 3
    assert Redactor({}).bytes_stream().feed(b"as is") == b"as is"


def test_one_character_at_a_time() -> None:
    text = f"token={SECRET}&b64={base64.b64encode(SECRET.encode()).decode()}\n" * 3
    stream = R.stream()
    out = "".join(stream.feed(ch) for ch in text) + stream.flush()
    assert out == R.redact(text) == "token=$KARYI{GH}&b64=$KARYI{GH}\n" * 3


def test_text_with_lone_surrogates() -> None:
    text = f"\udcff{SECRET}\ud800-{SECRET}\udc80"
    assert R.redact(text) == "\udcff$KARYI{GH}\ud800-$KARYI{GH}\udc80"


def test_without_secrets_text_is_returned_as_is() -> None:
    empty = Redactor({"TINY": "abc"})
    text = "nothing abc here"
    assert not empty
    assert empty.redact(text) is text
    assert empty.stream().feed(text) == text


class _Source:
    """A vault's face for `redact_logs_of`."""

    def __init__(self, *values: str) -> None:
        self.redactor = Redactor({f"K{i}": v for i, v in enumerate(values)})


def test_every_log_record_is_redacted_where_it_is_made(caplog: pytest.LogCaptureFixture) -> None:
    """Handlers added after the runtime opened (a test's, a library's) and secrets of a
    second runtime in the same process (ACP sessions) are covered too."""
    first, second = _Source("first-secret-value-1"), _Source("second-secret-value-2")
    redact_logs_of(first)
    redact_logs_of(second)
    caplog.set_level(logging.INFO)
    log = logging.getLogger("karyi.test.redact")
    log.info("sending %s and %s", "first-secret-value-1", "second-secret-value-2")
    log.info('%s - "%s %s"', "127.0.0.1", "GET", "/x?t=second-secret-value-2")
    try:
        raise ValueError("first-secret-value-1")
    except ValueError:
        log.exception("failed")
    assert "secret-value" not in caplog.text
    assert caplog.records[0].getMessage() == "sending $KARYI{K0} and $KARYI{K0}"
    assert caplog.records[1].args == ("127.0.0.1", "GET", "/x?t=$KARYI{K0}")  # args kept
    log.info("plain %s", "text")
    assert caplog.records[-1].args == ("text",)  # untouched when nothing is secret
