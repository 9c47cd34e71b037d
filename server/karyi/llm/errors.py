"""From HTTP failures to `ProviderError`s that say what happened and whether to retry.

Both SDKs raise the same shapes (a status error with the response and its JSON body,
a connection error, a timeout), and the Anthropic SDK lets raw transport errors out
of a stream once it has started; each provider sorts its SDK's exceptions and calls
these functions, so the kinds and the wording are the same whichever model answers.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import time
from collections.abc import Mapping
from typing import Any

import httpx2

from karyi.llm.base import ProviderError

_BODY_KINDS = {
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "server_error": 500,
    "overloaded_error": 529,
    "api_error": 500,
    "authentication_error": 401,
    "permission_error": 403,
    "invalid_request_error": 400,
    "not_found_error": 404,
    "request_too_large": 413,
}
MALFORMED = (json.JSONDecodeError, ValueError, KeyError, TypeError, AttributeError)


class ApiError(ProviderError):
    """A `ProviderError` that also carries the server's Retry-After, in seconds."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        retryable: bool = False,
        partial: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(kind, message, retryable=retryable, partial=partial)
        self.retry_after = retry_after


_KEY_SHAPED = re.compile(
    r"\b(?:sk|pk|rk|ak|api|key|token)[-_][A-Za-z0-9_\-.*]{6,}"
    r"|\b(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{32,}\b",
    re.IGNORECASE,
)
REDACTED_KEY = "[key redacted]"


def without_credentials(error: ProviderError, key: str | None) -> ProviderError:
    """`error` with the API key, and anything shaped like a key, taken out of its message:
    servers echo the key they rejected (whole or masked), and the message reaches the
    terminal, the logs and the model's front ends."""
    message = error.message.replace(key, REDACTED_KEY) if key else error.message
    message = _KEY_SHAPED.sub(REDACTED_KEY, message)
    if message == error.message:
        return error
    wait = error.retry_after if isinstance(error, ApiError) else None
    return ApiError(
        error.kind, message, retryable=error.retryable, partial=error.partial, retry_after=wait
    )


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: `retry-after-ms`, or `retry-after` in
    seconds or as an HTTP date; None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def server_message(body: Any) -> str:
    """The human part of an error body (`error.message`, `message`, or the text)."""
    if isinstance(body, Mapping):
        error = body.get("error")
        if isinstance(error, Mapping) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str) and error:
            return error
        if body.get("message"):
            return str(body["message"])
        if body.get("detail"):
            return str(body["detail"])
        return json.dumps(body)[:500]
    return str(body or "").strip()[:500]


def _error_types(body: Any) -> set[str]:
    """The `type` and `code` an error body gives, at the top or under `error`."""
    if not isinstance(body, Mapping):
        return set()
    error = body.get("error")
    inner = error if isinstance(error, Mapping) else {}
    found = {inner.get("type"), inner.get("code"), body.get("type"), body.get("code")}
    return {str(t) for t in found if t and t != "error"}


def _body_status(body: Any) -> int | None:
    """The status an in-stream error event stands for (they arrive with HTTP 200)."""
    return next((_BODY_KINDS[t] for t in sorted(_error_types(body)) if t in _BODY_KINDS), None)


def from_status(
    status: int, headers: Mapping[str, str], body: Any, *, label: str, key_hint: str
) -> ApiError:
    """The error for an HTTP error status (or an error event inside a stream)."""
    if status < 400:
        status = _body_status(body) or 500
    said = server_message(body)
    wait = retry_after(headers)
    if status in (401, 403):
        what = "rejected the API key" if status == 401 else "refused access"
        hint = f"; check {key_hint}" if key_hint else ""
        return ApiError("auth", f"{label}: the server {what} (HTTP {status}): {said}{hint}")
    if status == 429 and "insufficient_quota" in _error_types(body):
        return ApiError("rate_limit", f"{label}: out of quota (HTTP 429): {said}")
    if status == 429:
        return ApiError(
            "rate_limit",
            f"{label}: rate limited (HTTP 429): {said}",
            retryable=True,
            retry_after=wait,
        )
    if status == 408:
        return ApiError(
            "timeout", f"{label}: the server timed out (HTTP 408): {said}", retryable=True
        )
    if status >= 500 or status == 409:
        return ApiError(
            "server",
            f"{label}: server error (HTTP {status}): {said}",
            retryable=True,
            retry_after=wait,
        )
    return ApiError(
        "bad_request", f"{label}: the server refused the request (HTTP {status}): {said}"
    )


def timeout(label: str) -> ApiError:
    """The error for a connect or read timeout."""
    return ApiError("timeout", f"{label}: the request timed out", retryable=True)


def idle(exc: BaseException, *, label: str, seconds: float) -> ApiError | None:
    """The error for a stream that went silent, if a read timeout is behind `exc`: it
    says how long the model sent nothing and which setting bounds it."""
    seen: set[int] = set()
    item: BaseException | None = exc
    while item is not None and id(item) not in seen:
        if isinstance(item, httpx2.ReadTimeout):
            return ApiError(
                "timeout",
                f"{label}: the model has sent nothing for {seconds:g}s (llm.idleTimeoutSeconds)",
                retryable=True,
            )
        seen.add(id(item))
        item = item.__cause__ or item.__context__
    return None


def connection(label: str, exc: BaseException) -> ApiError:
    """The error for a refused, dropped or reset connection."""
    return ApiError("connection", f"{label}: connection failed: {_reason(exc)}", retryable=True)


def _reason(exc: BaseException) -> str:
    """The most telling message in an exception chain (SDK errors wrap the OS error)."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    for item in reversed(seen):
        if isinstance(item, OSError) and (item.errno or item.strerror):
            return (os.strerror(item.errno) if item.errno else str(item.strerror)).lower()
    for item in reversed(seen):
        if str(item) and str(item) != "Connection error.":
            return str(item)
    return type(seen[-1]).__name__


def transport(exc: BaseException, *, label: str) -> ApiError | None:
    """The error for a raw HTTP transport exception, if `exc` is one."""
    if isinstance(exc, httpx2.TimeoutException):
        return timeout(label)
    if isinstance(exc, httpx2.TransportError):
        return connection(label, exc)
    return None


def malformed(exc: BaseException, *, label: str) -> ApiError | None:
    """The error for a stream the SDK could not parse (garbage, wrong protocol)."""
    if isinstance(exc, MALFORMED):
        detail = str(exc) or type(exc).__name__
        return ApiError("malformed", f"{label}: the server sent a malformed stream: {detail}")
    return None


def unexpected(exc: BaseException, *, label: str) -> ApiError:
    """The error for what an SDK raised besides its own API errors: a raw transport
    error, a stream it could not parse, or anything else (reported as malformed)."""
    found = transport(exc, label=label) or malformed(exc, label=label)
    return found or ApiError("malformed", f"{label}: {exc}")


def truncated(label: str, anything: bool) -> ApiError:
    """The error for a stream that ended before the reply said it was finished."""
    if not anything:
        return ApiError(
            "malformed",
            f"{label}: the server answered without any stream events "
            "(is the base URL the API's root, e.g. ending in /v1?)",
        )
    return ApiError(
        "connection",
        f"{label}: the stream ended before the model finished its reply",
        retryable=True,
    )
