"""Gateway fixtures: the app over a real workspace, an HTTP client on it in-process, and
the same app behind a real uvicorn server on a random loopback port."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
import uvicorn

from karyi.agent.runtime import Runtime
from karyi.gateway.app import create_app
from karyi.gateway.config import GatewayConfig
from karyi.gateway.server import bind, url_of
from karyi.gateway.service import Gateway
from karyi.llm.factory import create_provider
from karyi.settings import Settings
from tests.gateway.schema_check import conforms
from tests.support.fake_model_server import FakeModelServer

Make = Callable[..., "Rig"]


async def _no_wait(_seconds: float) -> None:
    return None


class Rig:
    """An app over `root` with settings `values` (objects merged into the defaults one
    level deep), and a client that talks to it."""

    def __init__(
        self,
        root: Path,
        values: dict[str, Any],
        *,
        token: str | None = None,
        max_request_bytes: int = 1024 * 1024,
        fake: FakeModelServer | None = None,
    ) -> None:
        base = Settings().values
        merged = {
            k: {**base[k], **v} if isinstance(v, dict) and isinstance(base.get(k), dict) else v
            for k, v in values.items()
        }
        settings = Settings().with_values(**merged)
        if fake is not None:
            settings = settings.with_values(model="openai:test", baseUrl=fake.openai_url)
        self.settings = settings
        self.runtime = Runtime.open(root, settings)
        self.config = GatewayConfig(token=token, max_request_bytes=max_request_bytes)
        self.app = create_app(
            self.runtime,
            self.config,
            provider_factory=lambda: create_provider(settings, {}, sleep=_no_wait),
        )
        self.fake = fake
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app),
            base_url="http://127.0.0.1:8765",
            headers=headers,
            timeout=30,
        )

    @property
    def gateway(self) -> Gateway:
        """The app's gateway state."""
        gateway = self.app.state.gateway
        assert isinstance(gateway, Gateway)
        return gateway

    @property
    def openapi(self) -> dict[str, Any]:
        """The published schema."""
        return self.app.openapi()

    async def post(self, body: Any, **kw: Any) -> httpx.Response:
        """POST /agent/process with a JSON body; the response is held to the schema."""
        response = await self.client.post("/agent/process", json=body, **kw)
        conforms(self.openapi, response)
        return response

    async def send(self, content: bytes, **kw: Any) -> httpx.Response:
        """POST /agent/process with raw bytes (declared JSON unless `headers` say
        otherwise); the response is held to the schema."""
        headers = kw.pop("headers", {"content-type": "application/json"})
        response = await self.client.post("/agent/process", content=content, headers=headers, **kw)
        conforms(self.openapi, response)
        return response

    async def tool(self, name: str, params: dict[str, Any], **extra: Any) -> httpx.Response:
        """Call one tool through biz_params.tool."""
        return await self.post({**extra, "biz_params": {"tool": {"name": name, "input": params}}})

    async def close(self) -> None:
        """Close the client and the gateway (turns, shells, store)."""
        await self.client.aclose()
        await self.gateway.close()


@pytest_asyncio.fixture
async def make(ws_root: Path) -> AsyncIterator[Make]:
    """Build rigs over `ws_root` (`make(**settings)`); all are closed at the end."""
    made: list[Rig] = []

    def build(root: Path | None = None, **kw: Any) -> Rig:
        options = {k: kw.pop(k) for k in ("token", "max_request_bytes", "fake") if k in kw}
        rig = Rig(root or ws_root, kw, **options)
        made.append(rig)
        return rig

    yield build
    for rig in made:
        await rig.close()


@pytest_asyncio.fixture
async def rig(make: Make) -> Rig:
    """A rig with default settings (shell disabled, no token)."""
    return make()


@pytest_asyncio.fixture
async def agent_rig(make: Make, fake_llm: FakeModelServer) -> Rig:
    """A rig whose agent's model is the fake model server."""
    return make(fake=fake_llm)


class Served:
    """An ASGI app served by a real uvicorn on 127.0.0.1 in the test's event loop."""

    def __init__(self, app: Any) -> None:
        self.sock = bind("127.0.0.1", 0)
        self.url = url_of(self.sock)
        self.server = uvicorn.Server(
            uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False)
        )
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Served:
        # The socket already listens: connections wait in its backlog until uvicorn
        # accepts them, so there is nothing to wait for before the first request.
        self.task = asyncio.ensure_future(self.server.serve(sockets=[self.sock]))
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.should_exit = True
        assert self.task is not None
        await self.task
        self.sock.close()


@pytest.fixture
def served() -> type[Served]:
    """`async with served(app) as s:` serves `app` at `s.url`."""
    return Served
