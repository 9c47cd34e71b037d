"""Hold a response to the published OpenAPI schema (the same check schemathesis makes,
for the responses the hand-written tests provoke)."""

from __future__ import annotations

from typing import Any

import httpx
from jsonschema import Draft202012Validator


def conforms(
    openapi: dict[str, Any], response: httpx.Response, path: str = "/agent/process"
) -> None:
    """Assert `response` has a documented status, content type and body shape."""
    method = response.request.method.lower()
    responses = openapi["paths"][path][method]["responses"]
    status = str(response.status_code)
    assert status in responses, f"status {status} is not documented for {method} {path}"
    media = response.headers["content-type"].split(";")[0]
    content = responses[status]["content"]
    assert media in content, f"{media} is not documented for {status}"
    if media != "application/json":
        return
    schema = {"components": openapi["components"], **content[media]["schema"]}
    errors = list(Draft202012Validator(schema).iter_errors(response.json()))
    assert not errors, f"{status} body breaks the schema: {[e.message for e in errors]}"
