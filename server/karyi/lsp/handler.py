"""A line of the method table (features.py): a handler named by its module and function,
imported the first time it is called.

Most handler modules need the agent stack, and `karyi lsp` answers `initialize` before
loading it (docs/architecture.md#the-front-ends). What pygls registers for a `Handler`
is a stand-in that imports the handler's module on its first call and calls the handler
as pygls would have called it:

- a synchronous handler stays synchronous (`initialize` has run when pygls answers it,
  `didChange`s are applied in the order they came, even while the agent host is being
  built) and a coroutine stays a coroutine (`$/cancelRequest` cancels the very task that
  awaits the handler);
- a coroutine handler runs once the agent host is built (`KaryiServer.ready`: the
  requests and the notifications that need the host wait for it, in the order they
  came, and the handler's module is imported after the thread that built the host
  imported the agent stack);
- the stand-in's first parameter is `ls`, so pygls passes it the server, and then takes
  `*args` only, as every command handler does, so `workspace/executeCommand` hands it
  the same arguments (pygls reads a command handler's signature for them);
- what the handler returns or raises is what the stand-in returns or raises.

tests/lsp/test_handler_table.py holds every line to its handler.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from karyi.lsp.server import KaryiServer

PACKAGE = "karyi.lsp"


@functools.cache
def _resolve(target: str) -> Callable[..., Any]:
    module, _, name = target.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(f"{PACKAGE}.{module}"), name)
    return found


@dataclass(frozen=True)
class Handler:
    """`module:function` of a handler in karyi.lsp; `sync` when it is a plain function
    (the table must say so: telling would mean importing it)."""

    target: str
    sync: bool = False

    def load(self) -> Callable[..., Any]:
        """The handler itself (its module imported now)."""
        return _resolve(self.target)

    def stand_in(self) -> Callable[..., Any]:
        """What pygls registers: the handler, imported on the first call."""
        call = _sync_stand_in(self.target) if self.sync else _async_stand_in(self.target)
        call.__name__ = self.target.partition(":")[2]
        call.__qualname__ = f"{PACKAGE}.{self.target}"
        return call


def _sync_stand_in(target: str) -> Callable[..., Any]:
    def call(ls: KaryiServer, *args: Any) -> Any:
        return _resolve(target)(ls, *args)

    return call


def _async_stand_in(target: str) -> Callable[..., Any]:
    async def call(ls: KaryiServer, *args: Any) -> Any:
        await ls.ready()  # the host, built in a thread; its module imported there too
        return await _resolve(target)(ls, *args)

    return call
