"""A real terminal for end-to-end tests of full-screen programs: tmux runs the command
on its own server (a private socket, no user configuration), the test types keys and
reads the screen back. Every wait is for something on the screen, never for a time."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.support.waiting import eventually_sync

PATIENCE = 60.0


class Tmux:
    """One tmux session running one command, `width` × `height` cells."""

    def __init__(self, workdir: Path) -> None:
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed: `make test` installs it (apt)")
        self.socket = f"karyi-test-{uuid.uuid4().hex[:8]}"
        self.workdir = workdir
        self.status = workdir / f"{self.socket}.status"
        self.config = workdir / f"{self.socket}.conf"

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(self.config), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return done.stdout

    def start(
        self,
        command: Sequence[str],
        env: Mapping[str, str],
        *,
        cwd: Path | None = None,
        size: tuple[int, int] = (100, 40),
    ) -> None:
        """Run `command` with `env` added, in `cwd` (default: `workdir`); its exit status
        is kept."""
        assignments = [f"{k}={v}" for k, v in env.items()]
        line = shlex.join(["env", *assignments, *command])
        script = f"{line}; echo $? > {shlex.quote(str(self.status))}"
        width, height = size
        self.config.write_text(
            f"set -g default-size {width}x{height}\nset -s escape-time 0\nset -g status off\n"
        )
        self._tmux(
            "new-session",
            "-d",
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(cwd or self.workdir),
            "sh",
            "-c",
            script,
        )

    def screen(self) -> str:
        """What the terminal shows now, one line per row."""
        return self._tmux("capture-pane", "-p", "-t", "0")

    def wait_for(self, text: str) -> str:
        """The screen once it shows `text` (AssertionError, with the screen, if never)."""
        try:
            return eventually_sync(
                lambda: self._showing(text, True), f"{text!r} on the screen", PATIENCE
            )
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen:\n{self.screen()}") from None

    def wait_gone(self, text: str) -> str:
        """The screen once `text` is no longer on it."""
        return eventually_sync(lambda: self._showing(text, False), f"{text!r} gone", PATIENCE)

    def _showing(self, text: str, shown: bool) -> str | None:
        screen = self.screen()
        return screen if (text in screen) == shown else None

    def type(self, text: str) -> None:
        """Type `text` literally."""
        self._tmux("send-keys", "-t", "0", "-l", text)

    def keys(self, *keys: str) -> None:
        """Press keys by tmux name (`Enter`, `Escape`, `C-d`, `y`)."""
        self._tmux("send-keys", "-t", "0", *keys)

    def exit_status(self) -> int:
        """The command's exit status, once it has ended."""
        found = eventually_sync(
            lambda: self.status.read_text().strip() if self.status.exists() else None,
            "the command ended",
            PATIENCE,
        )
        return int(found)

    def close(self) -> None:
        """Kill this test's tmux server (and whatever still runs in it)."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)


def python_env() -> dict[str, str]:
    """The variables a child needs to find this Python's packages and the test's config."""
    keep = ("PATH", "HOME", "KARYI_CONFIG_DIR", "PYTHONPATH", "VIRTUAL_ENV", "LANG")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    return env
