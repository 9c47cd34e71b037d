"""The method table (lsp/features.py) names each handler as `module:function` and pygls
registers a stand-in that imports it on the first call (lsp/handler.py): every line
must name a handler that pygls would call exactly as it calls the stand-in."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from pygls.feature_manager import has_ls_param_or_annotation

from karyi.lsp.features import COMMANDS, FEATURES, create_server
from karyi.lsp.handler import Handler
from karyi.lsp.server import KaryiServer

LINES = [*FEATURES.items(), *COMMANDS.items()]
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def shape(handler: Any) -> list[tuple[str, Any]]:
    """What pygls reads of a handler's signature: names and kinds of its parameters."""
    return [(p.name, p.kind) for p in inspect.signature(handler).parameters.values()]


@pytest.mark.parametrize(("name", "line"), LINES, ids=[name for name, _ in LINES])
def test_a_line_says_whether_its_handler_is_a_coroutine(name: str, line: Handler) -> None:
    handler = line.load()
    assert inspect.iscoroutinefunction(handler) is not line.sync, name
    assert inspect.iscoroutinefunction(line.stand_in()) is not line.sync, name


@pytest.mark.parametrize(("name", "line"), LINES, ids=[name for name, _ in LINES])
def test_pygls_hands_the_server_and_the_params_to_the_handler(name: str, line: Handler) -> None:
    handler, stand_in = line.load(), line.stand_in()
    assert has_ls_param_or_annotation(handler, KaryiServer), name
    assert has_ls_param_or_annotation(stand_in, KaryiServer), name
    rest = [kind for _, kind in shape(handler)[1:]]
    assert all(kind in POSITIONAL or kind == inspect.Parameter.VAR_POSITIONAL for kind in rest)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_command_takes_its_arguments_as_its_stand_in_does(name: str) -> None:
    """pygls converts `workspace/executeCommand` arguments by the handler's signature."""
    assert shape(COMMANDS[name].load()) == shape(COMMANDS[name].stand_in())


def test_the_tables_register_a_stand_in_per_line() -> None:
    server = create_server()
    registered = server.protocol.fm
    assert set(registered.features) == set(FEATURES)
    assert set(registered.commands) == set(COMMANDS)
    for method, line in FEATURES.items():  # how pygls decides to run what it registered
        assert asyncio.iscoroutinefunction(registered.features[method]) is not line.sync


def test_a_stand_in_returns_and_raises_what_its_handler_does() -> None:
    to_path = Handler("editor_context:uri_path", sync=True).stand_in()
    assert to_path("file:///tmp/a%20b.py") == "/tmp/a b.py"
    folders = Handler("lifecycle:workspace_folders", sync=True).stand_in()
    with pytest.raises(AttributeError):
        folders(None)  # not an InitializeParams: the handler's own error, unchanged


def test_cancelling_a_coroutine_stand_in_cancels_its_handler() -> None:
    """The stand-in awaits its handler in the caller's task: `$/cancelRequest` cancels
    what it would have cancelled without the stand-in."""

    async def cancelled() -> None:
        server = KaryiServer()
        building = asyncio.Event()

        async def build() -> None:  # a host that is never built
            building.set()
            await asyncio.Event().wait()

        server.build = build
        task = asyncio.ensure_future(Handler("agent_host:shutdown").stand_in()(server))
        await building.wait()  # the handler is waiting in `ls.ready()`
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert server.starting is not None and not server.starting.cancelled()  # shielded
        server.starting.cancel()

    asyncio.run(cancelled())
