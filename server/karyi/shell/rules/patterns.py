"""The rule pattern language: a pattern is written like a command, one glob per word.

Kept apart from the parser walk so the language can be read (and tested) on its own.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase


@dataclass(frozen=True)
class Pattern:
    """One rule pattern (see `karyi.shell.rules` for the language)."""

    source: str
    words: tuple[str, ...]
    open_ended: bool

    @classmethod
    def parse(cls, source: str) -> Pattern:
        """Split `source` like a command line."""
        try:
            words = shlex.split(source)
        except ValueError:
            words = source.split()
        open_ended = bool(words) and words[-1] == "*" and len(words) > 1
        if open_ended:
            words = words[:-1]
        return cls(source, tuple(words), open_ended or words == ["*"])

    def matches(self, words: Sequence[str]) -> bool:
        """Whether the command `words` matches."""
        if not self.words:
            return False
        if self.words == ("*",):
            return True
        if len(words) < len(self.words) or (not self.open_ended and len(words) != len(self.words)):
            return False
        return all(fnmatchcase(w, p) for w, p in zip(words, self.words, strict=False))
