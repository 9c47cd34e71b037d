"""The agent stack behind `karyi acp`, imported after `initialize` is answered.

An editor spawns `karyi acp` with every window and waits for the `initialize` answer;
the agent stack (runtime, tools, sessions, providers) is most of the start-up cost and
nothing in that answer needs it. `initialize` starts loading it in a thread once its
answer is on its way; a new session's runtime opens after it (in the background:
`session/new` answers at once) and `session/load` waits for it (docs/acp.md#start-up).
"""

from __future__ import annotations

import asyncio
import importlib
import threading

from karyi.core.collector import fewer_collections

MODULES = (
    "karyi.settings",
    "karyi.agent.runtime",
    "karyi.agent.host",
    "karyi.acp.session",
    "karyi.acp.replay",
    "karyi.acp.editor",
    "karyi.acp.terminals",
    "karyi.acp.config_options",
    "karyi.acp.listing",
    "karyi.acp.stored",
    "karyi.acp.elicitation",
    "karyi.acp.builder",
)
"""What a session needs; `tests/acp/test_startup.py` checks none loads before."""


class AgentStack:
    """Imports `MODULES` once, off the event loop; later callers wait for that import."""

    def __init__(self, modules: tuple[str, ...] = MODULES) -> None:
        self.modules = modules
        self._lock = threading.Lock()
        self._loaded = False

    @property
    def loaded(self) -> bool:
        """True once every module is imported."""
        return self._loaded

    async def load(self) -> None:
        """Import the stack in a thread (at once when it is already loaded)."""
        if not self._loaded:
            await asyncio.to_thread(self._import)

    def _import(self) -> None:
        with self._lock, fewer_collections():
            for name in self.modules:
                importlib.import_module(name)
            self._loaded = True


agent_stack = AgentStack()
"""The process's one stack (imports are process-wide)."""
