"""The bearer token and the bind address: who may talk to the gateway at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.gateway.config import ConfigError, GatewayConfig, check_bind, is_loopback
from karyi.main import main
from karyi.settings import Settings
from tests.gateway.conftest import Make
from tests.gateway.schema_check import conforms

TOKEN = "s3cret-token-0123456789"
READ = {"biz_params": {"tool": {"name": "read_file", "input": {"path": "README.md"}}}}


@pytest.mark.parametrize(
    ("header", "why"),
    [
        (None, "the Authorization header is missing"),
        (f"Basic {TOKEN}", "the Authorization header is not a Bearer token"),
        ("Bearer wrong-token-0123456789", "the bearer token is wrong"),
        (f"Bearer {TOKEN}x", "the bearer token is wrong"),
        ("Bearer ", "the bearer token is wrong"),
    ],
)
async def test_requests_without_the_token_are_401(make: Make, header: str | None, why: str) -> None:
    rig = make(token=TOKEN)
    headers = {"authorization": header} if header is not None else {}
    del rig.client.headers["authorization"]
    for path in ("/agent/process", "/health", "/openapi.json", "/docs", "/agent/tools"):
        method = "POST" if path == "/agent/process" else "GET"
        r = await rig.client.request(method, path, json=READ, headers=headers)
        assert r.status_code == 401, path
        assert r.headers["www-authenticate"] == 'Bearer realm="karyi"'
        assert r.json()["error"] == {
            "code": "unauthorized",
            "message": f"this gateway needs `Authorization: Bearer <token>`: {why}",
        }
    conforms(rig.openapi, r, "/agent/tools")


async def test_the_token_admits_the_request(make: Make) -> None:
    rig = make(token=TOKEN)
    assert (await rig.post(READ)).status_code == 200
    lower = await rig.client.post(
        "/agent/process", json=READ, headers={"authorization": f"bearer {TOKEN}"}
    )
    assert lower.status_code == 200


async def test_the_token_is_checked_before_the_body_is_read(make: Make) -> None:
    rig = make(token=TOKEN, max_request_bytes=1024)
    del rig.client.headers["authorization"]
    r = await rig.client.post("/agent/process", content=b"x" * 10_000)
    assert r.status_code == 401


def test_loopback_addresses() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.9.9.9", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com"]))


def test_only_loopback_may_go_without_a_token() -> None:
    check_bind("127.0.0.1", GatewayConfig())
    check_bind("::1", GatewayConfig())
    check_bind("0.0.0.0", GatewayConfig(token=TOKEN))
    for host in ("0.0.0.0", "::", "192.168.1.10"):
        with pytest.raises(ConfigError, match=f"--host {host}: listening on an address other"):
            check_bind(host, GatewayConfig())


def test_the_environment_token_wins_over_the_settings() -> None:
    settings = Settings().with_values(
        gateway={"enableShell": False, "token": "from-settings-0123456789", "maxRequestBytes": 2048}
    )
    assert GatewayConfig.from_settings(settings, {}) == GatewayConfig(
        "from-settings-0123456789", 2048
    )
    env = {"KARYI_GATEWAY_TOKEN": TOKEN}
    assert GatewayConfig.from_settings(settings, env).token == TOKEN
    with pytest.raises(ConfigError, match="at least 16 characters"):
        GatewayConfig.from_settings(settings, {"KARYI_GATEWAY_TOKEN": "short"})


def test_karyi_gateway_refuses_a_public_address_without_a_token(
    ws_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KARYI_GATEWAY_TOKEN", raising=False)
    code = main(["gateway", "--workspace", str(ws_root), "--host", "0.0.0.0", "--port", "0"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("karyi: error: --host 0.0.0.0: listening on an address other than ")
    assert "KARYI_GATEWAY_TOKEN" in err
    monkeypatch.setenv("KARYI_GATEWAY_TOKEN", "short")
    assert main(["gateway", "--workspace", str(ws_root), "--port", "0"]) == 2
    assert "at least 16 characters (it has 5)" in capsys.readouterr().err


def test_karyi_gateway_rejects_a_bad_port(
    ws_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gateway", "--workspace", str(ws_root), "--port", "70000"]) == 2
    assert "--port 70000: expected 0-65535" in capsys.readouterr().err
