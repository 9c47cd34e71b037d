"""From HTTP answers to provider errors: Retry-After forms and status kinds."""

from __future__ import annotations

from karyi.llm.errors import from_status, retry_after


def test_retry_after_header_forms() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after-ms": "250", "retry-after": "3"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480) == 10.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None


def test_status_errors_map_to_kinds() -> None:
    def kind(status: int, body: object = None) -> tuple[str, bool]:
        error = from_status(status, {}, body, label="m", key_hint="K")
        return error.kind, error.retryable

    assert kind(401) == ("auth", False)
    assert kind(429) == ("rate_limit", True)
    assert kind(408) == ("timeout", True)
    assert kind(529) == ("server", True)
    assert kind(400) == ("bad_request", False)
    # a 429 for an exhausted quota will not pass by waiting
    quota = {"message": "You exceeded your current quota", "type": "insufficient_quota"}
    assert kind(429, quota) == ("rate_limit", False)
    assert kind(429, {"error": quota}) == ("rate_limit", False)
    # an error event inside a 200 stream is classified by its type
    assert kind(200, {"type": "error", "error": {"type": "rate_limit_error"}}) == (
        "rate_limit",
        True,
    )
