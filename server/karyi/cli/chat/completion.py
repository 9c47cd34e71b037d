"""Completion in the chat's prompt: after `/` at the start, the slash commands (the
chat's own, Karyi's built-in ones and tasks, the custom commands of the workspace and
the user); after `@`, the mention words (`@diff`, `@terminal`, …) then the workspace's
files, matched fuzzily (`@smain` finds `src/main.py`). A list under the prompt shows
them; Tab takes the highlighted one, ↑/↓ move (docs/terminal.md#completion)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from textual.fuzzy import Matcher
from textual.widgets import OptionList
from textual.widgets.option_list import Option

SHOWN = 8
"""Completions listed at most."""
MENTION_WORDS = {
    "problems": "the workspace's errors and warnings",
    "terminal": "the agent's last command and its output",
    "diff": "the uncommitted changes",
    "folder:": "the files below a folder",
    "url:": "a web page",
}
_TOKEN = re.compile(r"[@/][^\s]*$")


@dataclass(frozen=True)
class Completion:
    """What replaces the word being typed, and how the list shows it."""

    insert: str
    label: str


class Completer:
    """The completions of the word before the cursor in the chat's prompt."""

    def __init__(self, root: Path, local: dict[str, str]) -> None:
        self.root = root
        self.local = local
        self.files: list[str] = []
        """The workspace's files (relative), read once when the chat opens."""
        self._commands: list[Completion] | None = None

    async def load_files(self) -> None:
        """Read the workspace's file list (as ripgrep sees it, .gitignore respected)."""
        from karyi.workspace.ripgrep import list_files

        self.files = await list_files(self.root)

    def commands(self) -> list[Completion]:
        """Every slash command, the chat's own first (read once)."""
        if self._commands is None:
            from karyi.agent.prompting.builtin_slash import BY_NAME, COMMANDS
            from karyi.agent.prompting.slash_commands import slash_commands

            named = dict(self.local)
            named.update({name: "Karyi's own" for name in COMMANDS})
            named.update({name: task.description for name, task in BY_NAME.items()})
            named.update({c["name"]: c["description"] for c in slash_commands(self.root)})
            self._commands = [Completion(f"/{n}", f"/{n}  {d}") for n, d in named.items()]
        return self._commands

    def complete(self, value: str, cursor: int) -> tuple[int, list[Completion]]:
        """(where the word starts, its completions) for the prompt's `value`."""
        found = _TOKEN.search(value[:cursor])
        if found is None:
            return cursor, []
        start, word = found.start(), found.group(0)
        if word.startswith("/"):
            if start != 0:
                return cursor, []
            hits = [c for c in self.commands() if c.insert.startswith(word)]
            return start, hits[:SHOWN]
        if start > 0 and not value[start - 1].isspace():
            return cursor, []  # me@example.org is no mention
        return start, self._mentions(word[1:])[:SHOWN]

    def _mentions(self, query: str) -> list[Completion]:
        words = [
            Completion(f"@{w}", f"@{w}  {d}")
            for w, d in MENTION_WORDS.items()
            if w.startswith(query)
        ]
        if not query:
            return words + [Completion(f"@{f}", f"@{f}") for f in self.files[:SHOWN]]
        matcher = Matcher(query)
        scored = [(matcher.match(f), f) for f in self.files]
        best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], len(s[1])))
        return words + [Completion(f"@{f}", f"@{f}") for _, f in best[:SHOWN]]


class CompletionList(OptionList):
    """The completions under the prompt (hidden when there are none)."""

    DEFAULT_CSS = """
    CompletionList { height: auto; max-height: 10; display: none; border: none;
                     padding: 0 1; background: $panel; }
    """

    def __init__(self) -> None:
        super().__init__(id="completions")
        self.can_focus = False
        self.start = 0
        self.items: list[Completion] = []

    def show(self, start: int, items: list[Completion]) -> None:
        """List `items` for the word at `start` (none: hide)."""
        self.start, self.items = start, items
        self.clear_options()
        self.add_options([Option(c.label) for c in items])
        self.display = bool(items)
        if items:
            self.highlighted = 0

    def chosen(self) -> Completion | None:
        """The highlighted completion (None: the list is hidden)."""
        if not self.items or self.highlighted is None:
            return None
        return self.items[self.highlighted]


def mentioned_files(text: str, files: list[str]) -> list[str]:
    """The workspace files `text` mentions as `@path`, each once, in order."""
    known = set(files)
    out: list[str] = []
    for word in re.findall(r"(?<![\w@])@(\S+)", text):
        path = word.rstrip(".,;:)!?'\"")
        if path in known and path not in out:
            out.append(path)
    return out
