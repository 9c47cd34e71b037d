"""Bad requests: each gets a precise 4xx with the field or position, none a 500, and
none changes anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.gateway.conftest import Make, Rig


def error(body: dict[str, Any]) -> dict[str, Any]:
    return dict(body["error"])


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"input": [', "malformed JSON: Expecting value at line 1 column 12 (character 11)"),
        (
            b'{\n  "stream": true,\n  "biz_params": {"tool": }\n}',
            "malformed JSON: Expecting value at line 3 column 26 (character 45)",
        ),
        (b'{"stream": true,}', "malformed JSON: Expecting property name enclosed in double quotes"),
        (b"", "the body is empty: expected a JSON object"),
        (b"   \n", "the body is empty: expected a JSON object"),
        (b"[1, 2]", "the body must be a JSON object, not an array"),
        (b'"read_file"', "the body must be a JSON object, not a string"),
        (b"null", "the body must be a JSON object, not null"),
        (b'{"stream": NaN}', "malformed JSON: NaN is not a JSON value"),
        (b"\xff\xfe{}", "the body is not UTF-8 (invalid byte at offset 0)"),
        (b"[" * 100_000, "malformed JSON: nested too deeply"),
        (
            b'{"biz_params": {"tool": {"name": "read_file", "input": {"path": "\\ud800"}}}}',
            "biz_params.tool.input.path: the string holds a lone surrogate (not valid Unicode)",
        ),
    ],
)
async def test_unreadable_bodies_are_400_with_where(rig: Rig, raw: bytes, message: str) -> None:
    r = await rig.send(raw)
    assert r.status_code == 400
    assert error(r.json())["code"] == "invalid_request"
    assert error(r.json())["message"].startswith(message)


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({"stream": "yes"}, "invalid_request", "stream: expected true or false"),
        ({"stream": 1}, "invalid_request", "stream: expected true or false"),
        ({"session_id": 7}, "invalid_request", "session_id: expected a string"),
        (
            {"session_id": "../../etc"},
            "invalid_request",
            "session_id: String should match pattern",
        ),
        ({"input": "hello"}, "invalid_request", "input: expected a JSON array"),
        (
            {"input": [{"content": 5}]},
            "invalid_request",
            "input[0].content: expected a string or an array of text parts",
        ),
        (
            {"input": [{"role": "assistant", "content": "hi"}]},
            "invalid_request",
            "input[0].role: Input should be 'user'",
        ),
        (
            {"input": [{"content": [{"type": "image", "url": "x"}]}]},
            "invalid_request",
            "input[0].content[0].type: Input should be 'text'",
        ),
        (
            {"sesion_id": "s1"},
            "invalid_request",
            "sesion_id: unknown field (expected only: input, session_id, user_id, channel, "
            "stream, biz_params)",
        ),
        ({"biz_params": []}, "invalid_request", "biz_params: expected a JSON object"),
        (
            {"biz_params": {"tool": "read_file"}},
            "invalid_tool_input",
            "biz_params.tool: expected a JSON object",
        ),
        (
            {"biz_params": {"tool": {"name": "read_file", "input": ["a"]}}},
            "invalid_tool_input",
            "biz_params.tool.input: expected a JSON object",
        ),
        (
            {"biz_params": {"tool": {"input": {}}}},
            "invalid_tool_input",
            "biz_params.tool.name: required",
        ),
        (
            {"biz_params": {"permission": {"tool_call_id": "c1", "outcome": "maybe"}}},
            "invalid_request",
            "biz_params.permission.outcome: Input should be 'allow', 'allow_always' or 'reject'",
        ),
        (
            {
                "biz_params": {
                    "tool": {"name": "read_file", "input": {"path": "a"}},
                    "cancel": True,
                },
                "session_id": "s1",
            },
            "invalid_request",
            "biz_params.tool and biz_params.cancel: give only one of them",
        ),
        (
            {"input": [{"content": "   "}]},
            "invalid_request",
            "input: expected at least one user message with text",
        ),
        ({}, "invalid_request", "input: expected at least one user message with text"),
        (
            {"biz_params": {"cancel": True}},
            "invalid_request",
            "session_id: required with biz_params.cancel",
        ),
    ],
)
async def test_wrong_fields_are_400_naming_the_field(
    rig: Rig, body: dict[str, Any], code: str, message: str
) -> None:
    r = await rig.post(body)
    assert r.status_code == 400
    assert error(r.json())["code"] == code
    assert error(r.json())["message"].startswith(message), error(r.json())["message"]


async def test_a_body_over_the_limit_is_413_before_it_is_read(make: Make, ws_root: Path) -> None:
    rig = make(max_request_bytes=4096)
    content = "x" * 5000
    r = await rig.tool("create_file", {"path": "big.txt", "content": content})
    assert r.status_code == 413
    assert error(r.json()) == {
        "code": "payload_too_large",
        "message": f"the request body is {len(r.request.content)} bytes; this gateway accepts "
        "at most 4096 (settings gateway.maxRequestBytes)",
    }
    assert not (ws_root / "big.txt").exists()


async def test_a_streamed_body_over_the_limit_is_413(make: Make) -> None:
    rig = make(max_request_bytes=4096)

    async def chunks() -> Any:
        for _ in range(10):
            yield b"x" * 1000

    r = await rig.client.post("/agent/process", content=chunks())
    assert r.status_code == 413
    assert error(r.json())["message"].startswith("the request body is at least 5000 bytes")


async def test_a_body_just_under_the_limit_is_read(make: Make, ws_root: Path) -> None:
    rig = make(max_request_bytes=4096)
    r = await rig.tool("create_file", {"path": "ok.txt", "content": "x" * 3900})
    assert r.status_code == 200


READ = b'{"biz_params": {"tool": {"name": "create_file", "input": {"path": "x", "content": ""}}}}'


@pytest.mark.parametrize(
    "media", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
async def test_a_body_not_declared_json_is_415(rig: Rig, ws_root: Path, media: str | None) -> None:
    """The types a web page can post cross-origin without a preflight are all refused."""
    headers = {"content-type": media} if media else {}
    r = await rig.send(READ, headers=headers)
    assert r.status_code == 415
    given = f"Content-Type {media!r}" if media else "no Content-Type"
    assert error(r.json()) == {
        "code": "unsupported_media_type",
        "message": f"{given}: send the body as JSON with `Content-Type: application/json` "
        "(curl: --json '{...}')",
    }
    assert not (ws_root / "x").exists()


@pytest.mark.parametrize(
    "media", ["application/json", "application/json; charset=utf-8", "application/vnd.a+json"]
)
async def test_json_media_types_are_read(rig: Rig, media: str) -> None:
    r = await rig.send(READ, headers={"content-type": media})
    assert r.status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "192.168.1.5", "0.0.0.0"])
async def test_without_a_token_only_loopback_hosts_are_served(
    rig: Rig, ws_root: Path, host: str
) -> None:
    """A DNS-rebound page's requests carry its own host name."""
    r = await rig.send(READ, headers={"content-type": "application/json", "host": host})
    assert r.status_code == 403
    assert error(r.json()) == {
        "code": "forbidden_host",
        "message": f"Host {host!r}: without a token this gateway answers only requests "
        "addressed to localhost or a loopback address (set KARYI_GATEWAY_TOKEN to serve others)",
    }
    assert not (ws_root / "x").exists()


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:1", "127.0.0.1", "[::1]:8765", "127.1.2.3"]
)
async def test_loopback_hosts_are_served(rig: Rig, host: str) -> None:
    r = await rig.client.get("/health", headers={"host": host})
    assert r.status_code == 200


async def test_with_a_token_any_host_is_served(make: Make) -> None:
    rig = make(token="a-token-of-24-characters")
    r = await rig.client.get("/health", headers={"host": "gateway.example.com"})
    assert r.status_code == 200


async def test_seed_example_body_with_input_and_tool(rig: Rig) -> None:
    """docs/gateway.md's example: `input` beside `biz_params.tool` (the tool runs)."""
    body = {
        "input": [
            {
                "role": "user",
                "type": "message",
                "content": [{"type": "text", "text": "请读取 README.md"}],
            }
        ],
        "session_id": "s1",
        "user_id": "u1",
        "channel": "console",
        "stream": False,
        "biz_params": {"tool": {"name": "read_file", "input": {"path": "README.md"}}},
    }
    r = await rig.post(body)
    assert (r.status_code, r.json()["content"]) == (200, "# Demo\n\nHello.\n")


async def test_wrong_method_and_unknown_route(rig: Rig) -> None:
    r = await rig.client.get("/agent/process")
    assert (r.status_code, r.headers["allow"]) == (405, "POST")
    assert error(r.json())["code"] == "method_not_allowed"
    r = await rig.client.post("/agent/nope", json={})
    assert (r.status_code, error(r.json())["code"]) == (404, "not_found")


async def test_health_and_schema_and_docs(rig: Rig) -> None:
    assert (await rig.client.get("/health")).json() == {"ok": True, "version": "0.1.0"}
    schema = (await rig.client.get("/openapi.json")).json()
    assert schema["paths"]["/agent/process"]["post"]["requestBody"]["required"] is True
    page = await rig.client.get("/docs")
    assert page.status_code == 200
    assert "<script" not in page.text and "POST /agent/process" in page.text
