"""Pictures in the chat's messages: `@shot.png` names one (in the workspace, or by a
path from `~` or `/`), and a picture file's path pasted into the prompt (dropping a
file on most terminals pastes its path) becomes such a mention. The pictures go with
the message as every front end sends them, checked the same way (docs/images.md).

A terminal gives no clipboard pictures through a pseudo-terminal: only text is pasted.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from textual import events
from textual.widgets import Input

from karyi.cli.chat.completion import mentioned_files

if TYPE_CHECKING:
    from karyi.core.images import Image

SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
"""The file names taken for pictures (their content is checked when they are sent)."""
_MENTION = re.compile(r"(?<![\w@])@(\S+)")


def is_picture_name(name: str) -> bool:
    """Whether `name` ends like a PNG, JPEG, GIF or WebP file."""
    return Path(name).suffix.lower() in SUFFIXES


def _resolve(raw: str, root: Path) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else root / path


def pasted_picture(text: str, root: Path) -> Path | None:
    """The picture file a paste names: one path, maybe quoted, shell-escaped or a
    `file://` URI (what terminals paste for a dropped file); None for anything else."""
    text = text.strip()
    if not text or "\n" in text:
        return None
    if text.startswith("file://"):
        text = unquote(urlsplit(text).path)
    else:
        try:
            words = shlex.split(text)
        except ValueError:
            return None
        if len(words) != 1:
            return None
        text = words[0]
    path = _resolve(text, root)
    return path if is_picture_name(path.name) and path.is_file() else None


def mention_of(path: Path, root: Path) -> str:
    """`@path` for the prompt: relative inside the workspace; a space-free path only."""
    try:
        shown = str(path.relative_to(root))
    except ValueError:
        shown = str(path)
    return f"@{shown}"


def mentioned_pictures(text: str, root: Path) -> list[Path]:
    """The picture files `text` mentions as `@path`, each once, in order."""
    out: list[Path] = []
    for word in _MENTION.findall(text):
        word = word.rstrip(".,;:)!?'\"")
        path = _resolve(word, root)
        if is_picture_name(word) and path.is_file() and path not in out:
            out.append(path)
    return out


def message_parts(text: str, root: Path, files: list[str]) -> tuple[str, tuple[Image, ...]]:
    """What goes with a message: the context naming the workspace files it mentions
    as `@path` (as an editor sends it), and the pictures it mentions, checked
    (ImageError names the first one refused)."""
    from karyi.core.images import checked_count, image_from_file

    named = [f for f in mentioned_files(text, files) if not is_picture_name(f)]
    context = f"Files the user mentioned (read them as needed): {', '.join(named)}"
    pictures = [image_from_file(p) for p in mentioned_pictures(text, root)]
    return context if named else "", checked_count(pictures)


class PromptInput(Input):
    """The chat's prompt: a pasted picture file's path becomes its `@` mention."""

    root: Path | None = None
    """The workspace (set once it is open): relative mentions are taken from it."""

    def on_paste(self, event: events.Paste) -> None:
        """A picture's path: `@path ` at the cursor; anything else is pasted as text."""
        if self.root is None:
            return
        picture = pasted_picture(event.text, self.root)
        if picture is None or " " in str(picture):
            return
        event.prevent_default()  # not Input's own paste of the raw text
        event.stop()
        self.insert_text_at_cursor(mention_of(picture, self.root) + " ")
