"""A language server's life: started on demand, shown the unsaved buffers, shut down
when idle, restarted once after a crash, and never waited on past the timeout."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from karyi.navigation.errors import ServerGone
from karyi.navigation.navigator import Navigator, NoServer
from karyi.navigation.server import NavServer
from karyi.settings.language_servers import LanguageServer, Navigation
from karyi.workspace.workspace import Workspace

PYRIGHT = ["basedpyright-langserver", "--stdio"]


def _navigator(
    root: Path, *, idle: float = 300, timeout: float = 60
) -> tuple[Navigator, Workspace]:
    ws = Workspace.open(root)
    servers = {"python": LanguageServer(command=PYRIGHT, extensions=[".py", ".pyi"])}
    settings = Navigation(servers=servers, idle_seconds=idle, timeout_seconds=timeout)
    return Navigator(settings, root, ws.documents), ws


def _symbols(answer: object) -> list[str]:
    assert isinstance(answer, list)
    return [str(item["name"]) for item in answer]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text("def greet(name):\n    return name\n\ngreet('x')\n")
    return root


async def test_the_unsaved_buffer_is_what_the_server_sees(project: Path) -> None:
    nav, ws = _navigator(project)
    try:
        path = project / "app.py"
        ws.documents.open_buffer(path, "def welcome(name):\n    return name\n", 3)
        server = nav.for_path(path)
        outline = await server.request(
            "textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}
        )
        assert _symbols(outline) == ["welcome"]
        ws.documents.close_buffer(path)
        outline = await server.request(
            "textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}
        )
        assert _symbols(outline) == ["greet"]
    finally:
        await nav.aclose()


async def test_an_idle_server_is_shut_down_and_starts_again(project: Path) -> None:
    nav, _ws = _navigator(project, idle=0.2)
    try:
        server = nav.for_path(project / "app.py")
        await server.request("workspace/symbol", {"query": "greet"})
        pid = server.process.pid if server.process else None
        await _wait(server.stopped)
        assert not server.running and pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert _symbols(await server.request("workspace/symbol", {"query": "greet"})) == ["greet"]
        assert server.starts == 2
    finally:
        await nav.aclose()


async def test_a_crash_is_answered_by_one_restart_then_a_clear_failure(project: Path) -> None:
    nav, _ws = _navigator(project)
    try:
        server = nav.for_path(project / "app.py")
        await server.request("workspace/symbol", {"query": "greet"})
        assert server.process is not None
        os.killpg(server.process.pid or 0, 9)
        assert _symbols(await server.request("workspace/symbol", {"query": "greet"})) == ["greet"]
        assert (server.starts, server.crashes) == (2, 1)
        assert server.process is not None
        os.killpg(server.process.pid or 0, 9)
        with pytest.raises(ServerGone, match="exited"):
            await server.request("workspace/symbol", {"query": "greet"})
    finally:
        await nav.aclose()


async def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    mute = [sys.executable, "-c", "import time; time.sleep(60)"]
    server = NavServer("python", mute, [".py"], tmp_path, _NoBuffers(), timeout=0.5, idle_seconds=9)
    try:
        with pytest.raises(TimeoutError, match=r"did not answer initialize in 0\.5 s"):
            await server.request("workspace/symbol", {"query": "x"})
    finally:
        await server.aclose()


def test_a_missing_program_or_language_is_said(project: Path) -> None:
    ws = Workspace.open(project)
    servers = {"python": LanguageServer(command=["no-such-server"], extensions=[".py"])}
    nav = Navigator(Navigation(servers=servers), project, ws.documents)
    with pytest.raises(NoServer, match=r"for python files: no-such-server is not on PATH \(inst"):
        nav.for_path(project / "app.py")
    with pytest.raises(NoServer, match=r"for \.txt files: add one to the `navigation.servers` "):
        nav.for_path(project / "notes.txt")


class _NoBuffers:
    def texts(self, extensions: frozenset[str]) -> dict[Path, str]:
        return {}


async def _wait(event: object) -> None:
    import asyncio

    assert isinstance(event, asyncio.Event)
    await asyncio.wait_for(event.wait(), 30)
