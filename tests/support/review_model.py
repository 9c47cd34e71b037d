"""A project under git with a change to review, and a fake model that answers each
reviewer of `karyi review` from its own script (they run in parallel, so the order of
their requests is not known; the fake server's responder picks by the system prompt)."""

from __future__ import annotations

import subprocess
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .fake_model_server import FakeModelServer, Received
from .replies import Reply

ORIGINAL = "def average(items):\n    return sum(items) / len(items)\n"
CHANGED = (
    "def average(items):\n"
    "    total = sum(items)\n"
    "    return total / len(items)\n"
    "\n"
    "\n"
    "def ratio(a, b):\n"
    "    return a / b\n"
)
"""`src/calc.py` before and after the change: lines 2-7 are changed."""


def git(root: Path, *args: str) -> str:
    """Run git in `root` with a fixed identity."""
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=T", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def project_with_change(root: Path) -> Path:
    """`root` as a git repository whose last commit has `ORIGINAL` and whose working tree
    has `CHANGED` (uncommitted)."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "calc.py").write_text(ORIGINAL)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    (root / "src" / "calc.py").write_text(CHANGED)
    return root


def finding(
    path: str, line: int, severity: str, title: str, *, suggestion: str | None = None
) -> str:
    """A toolsxml call reporting one finding (`calls` makes a reply of them)."""
    inner = f"<suggestion>{suggestion}</suggestion>" if suggestion is not None else ""
    return (
        f'<report_finding path="{path}" line="{line}" severity="{severity}" '
        f'title="{title}" body="Because.">{inner}</report_finding>'
    )


def calls(*elements: str) -> str:
    """A toolsxml reply making these calls."""
    return "Reporting.\n<tools>" + "".join(elements) + "</tools>"


def reviewer_of(received: Received) -> str:
    """Which reviewer sent a request: the name its system prompt starts with (OpenAI's
    first message, Anthropic's `system`, a string or text blocks)."""
    body = received.body
    system: Any = body.get("system") or body["messages"][0]["content"]
    if isinstance(system, list):
        system = "".join(str(block.get("text", "")) for block in system)
    return str(system).removeprefix("You are ").split(",", 1)[0]


class Reviewers:
    """Each reviewer's replies in order; a reviewer past its script says it is done."""

    def __init__(self, fake: FakeModelServer, script: Mapping[str, Sequence[str]]) -> None:
        self.left = {name: deque(replies) for name, replies in script.items()}
        self.lock = threading.Lock()
        fake.responder = self.answer

    def answer(self, received: Received) -> Reply:
        """The next reply of the reviewer that asks."""
        with self.lock:
            queue = self.left.get(reviewer_of(received))
            text = queue.popleft() if queue else "Nothing to report."
        return Reply(text=text)
