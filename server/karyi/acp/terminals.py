"""Commands shown in the client's terminal (`terminal/*`), run on Karyi's own pty.

Karyi runs every command in its persistent, sandboxed shell (`shell/`), so working
directory, environment, `<input>` and `<ctrl>` behave as in every other front end. When
the client offers terminals, each command's output (already redacted, as every event)
is also written to a file under `.karyi/acp/`, and the client's terminal runs
`python -m karyi.acp.follow FILE`, which prints it as it grows: the editor shows the
command in its terminal UI, embedded in the tool call. See docs/acp.md, "Terminals".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from pathlib import Path

from acp.interfaces import Client

from karyi.workspace.localdir import local_dir

log = logging.getLogger(__name__)

EXIT_WAIT = 10.0
"""How long the follower may take to print the rest once the command is done."""


class TerminalMirror:
    """One session's client terminals, one per running command call."""

    def __init__(self, client: Client, root: Path, session_id: str) -> None:
        self.client = client
        self.root = root
        self.session_id = session_id
        self._open: dict[str, tuple[str, Path]] = {}  # call id -> (terminal id, file)

    def terminal_of(self, call_id: str) -> str | None:
        """The client terminal showing `call_id`, if there is one."""
        entry = self._open.get(call_id)
        return entry[0] if entry else None

    async def start(self, call_id: str) -> str | None:
        """Open a client terminal for the call; None when the client refused."""
        folder = local_dir(self.root) / "acp" / self.session_id
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{_safe(call_id)}.out"
        path.write_bytes(b"")
        try:
            made = await self.client.create_terminal(
                self.session_id,
                sys.executable,
                args=["-m", "karyi.acp.follow", str(path)],
                cwd=str(self.root),
            )
        except Exception as exc:
            log.debug("terminal/create failed: %s", exc)
            path.unlink(missing_ok=True)
            return None
        self._open[call_id] = (made.terminal_id, path)
        return made.terminal_id

    def write(self, call_id: str, text: str) -> bool:
        """Append output to the call's terminal; False when it has none."""
        entry = self._open.get(call_id)
        if entry is None:
            return False
        with entry[1].open("a", encoding="utf-8", errors="replace") as out:
            out.write(text)
        return True

    async def finish(self, call_id: str) -> str | None:
        """The call is done: let the follower print the rest and exit, then release the
        terminal (the client keeps showing it in the tool call)."""
        entry = self._open.pop(call_id, None)
        if entry is None:
            return None
        terminal_id, path = entry
        done = path.with_name(path.name + ".done")
        done.touch()
        try:
            await asyncio.wait_for(
                self.client.wait_for_terminal_exit(self.session_id, terminal_id), EXIT_WAIT
            )
        except Exception as exc:
            log.debug("terminal/wait_for_exit failed: %s", exc)
        with contextlib.suppress(Exception):
            await self.client.release_terminal(self.session_id, terminal_id)
        path.unlink(missing_ok=True)
        done.unlink(missing_ok=True)
        return terminal_id


def _safe(call_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in call_id)
