"""Problems after every edit: the diagnostics an edit added or fixed, told to the model.

After a call changed files, the diagnostics of those files are compared with the ones
from before, and the new errors and warnings (and the ones the edit fixed) are appended
to the call's result, so the model repairs its own breakage in its next step.

Two sources give diagnostics behind one interface (docs/context.md#diagnostics): the
editor (the language server front end asks VS Code, `karyi/diagnostics`) and Karyi's
own language-server clients (`agent/diagnostics/lsp_clients.py`, `ruff server` for Python by
default). Every wait is bounded: a slow or crashed server costs at most
`diagnostics.waitSeconds` and a note, never the turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from karyi.core.results import ToolResult
from karyi.tools.context import ToolContext
from karyi.workspace.editor import WriteRecord

SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
REPORTED = (1, 2)
"""Only errors and warnings are told: hints and infos are noise for the model."""
MAX_LISTED = 20


@dataclass(frozen=True)
class Problem:
    """One diagnostic of one file (0-based line and character, LSP severity)."""

    path: Path
    line: int
    character: int
    severity: int
    message: str
    source: str = ""
    code: str = ""

    @classmethod
    def from_lsp(cls, path: Path, raw: Mapping[str, Any]) -> Problem:
        """A diagnostic in LSP JSON form (the editor's or a language server's)."""
        start = (raw.get("range") or {}).get("start") or {}
        code = raw.get("code")
        if isinstance(code, dict):
            code = code.get("value")
        return cls(
            path,
            int(start.get("line", 0)),
            int(start.get("character", 0)),
            int(raw.get("severity") or 1),
            "; ".join(
                line.strip() for line in str(raw.get("message", "")).splitlines() if line.strip()
            ),
            str(raw.get("source") or ""),
            "" if code is None else str(code),
        )

    def key(self) -> tuple[Path, int, str, str, str]:
        """What stays the same when lines above move: new and fixed are told by this."""
        return (self.path, self.severity, self.source, self.code, self.message)

    def render(self, display: str) -> str:
        """`src/app.py:3:5: error: Undefined name `foo` (ruff F821)`."""
        origin = " ".join(p for p in (self.source, self.code) if p)
        where = f"{display}:{self.line + 1}:{self.character + 1}"
        severity = SEVERITIES.get(self.severity, "error")
        return f"{where}: {severity}: {self.message}" + (f" ({origin})" if origin else "")


class ProblemSource(Protocol):
    """Where diagnostics come from (the editor, or Karyi's language-server clients)."""

    @property
    def name(self) -> str:
        """How the note names the source: `the editor`, `ruff server`."""
        ...

    @property
    def live(self) -> bool:
        """True: diagnostics of the files as the editor holds them now (the texts given
        are ignored), so the `before` must be asked before the call runs. False: of the
        texts given, so both are asked after it."""
        ...

    def covers(self, path: Path) -> bool:
        """True when this source can diagnose `path` (a server for its language)."""
        ...

    async def problems(self, files: Mapping[Path, str]) -> dict[Path, list[Problem]]:
        """The problems of each file as it reads the given text (or as the editor has it).
        May raise; the caller bounds the wait."""
        ...

    async def everywhere(self, files: Sequence[Path]) -> dict[Path, list[Problem]]:
        """The workspace's current problems (`@problems`): the editor's of every file it
        knows, or those of `files` as they are on disk."""
        ...


@dataclass
class ProblemCheck:
    """One call's check: the baseline before it runs, the comparison after."""

    source: ProblemSource
    wait: float
    paths: Sequence[Path] = ()
    before: dict[Path, list[Problem]] | None = None
    asked: bool = False
    """True once a live source was asked for `before` (None then: it failed)."""
    note: str = ""

    async def start(self) -> None:
        """For a live source, the diagnostics of the files the call names, before it runs
        and before the user is asked about it (a preview changes the editor's buffers).
        A file not on disk yet has none: nothing to ask or wait for."""
        if self.source.live:
            paths = [p for p in self.paths if self.source.covers(p) and p.exists()]
            self.before = await self._bounded({p: "" for p in paths}) if paths else {}
            self.asked = True

    async def finish(
        self, result: ToolResult, journal: Sequence[WriteRecord], ctx: ToolContext
    ) -> ToolResult:
        """`result` with what the call's writes added and fixed (redacted like any result).
        When the `before` could not be had, only the note: nothing to compare with."""
        writes = [w for w in journal if self.source.covers(w.path)]
        if not writes:
            return result
        before = self.before if self.asked else {}
        if not self.source.live:
            before = await self._bounded({w.path: w.before or "" for w in writes})
        after = (
            await self._bounded({w.path: w.after for w in writes}) if before is not None else None
        )
        if before is None or after is None:
            text = self.note
        else:
            text = report(before, after, ctx.workspace.display, self.source.name)
        if not text:
            return result
        told = _appended(result, text)
        return ctx.secrets.redactor.redact_result(told) if ctx.secrets is not None else told

    async def _bounded(self, files: dict[Path, str]) -> dict[Path, list[Problem]] | None:
        try:
            return await asyncio.wait_for(self.source.problems(files), self.wait)
        except TimeoutError:
            self.note = (
                f"(No diagnostics: {self.source.name} did not answer within {self.wait:g}s.)"
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a crashed server: the edit stands, the model is told
            self.note = f"(No diagnostics: {self.source.name} failed: {exc})"
        return None


def _appended(result: ToolResult, text: str) -> ToolResult:
    data = result.data
    if isinstance(data, dict):
        data = {**data, "diagnostics": text}
    elif isinstance(data, str):
        data = f"{data}\n\n{text}"
    return dataclasses.replace(result, llm_content=f"{result.llm_content}\n\n{text}", data=data)


def _delta(minuend: Iterable[Problem], subtrahend: Iterable[Problem]) -> list[Problem]:
    """The problems of `minuend` not matched (by key, counting repeats) in `subtrahend`."""
    left = Counter(p.key() for p in subtrahend)
    out = []
    for p in minuend:
        if left[p.key()] > 0:
            left[p.key()] -= 1
        else:
            out.append(p)
    return out


def report(
    before: Mapping[Path, list[Problem]],
    after: Mapping[Path, list[Problem]],
    display: Any,
    source: str,
) -> str:
    """The text appended to the result: new problems, then fixed ones; empty if neither."""
    old = [p for ps in before.values() for p in ps if p.severity in REPORTED]
    new = [p for ps in after.values() for p in ps if p.severity in REPORTED]
    added = sorted(_delta(new, old), key=lambda p: (str(p.path), p.line, p.character))
    fixed = sorted(_delta(old, new), key=lambda p: (str(p.path), p.line, p.character))
    lines = []
    if added:
        lines.append(f"New problems after this edit ({source}); fix them:")
        lines += [f"- {p.render(display(p.path))}" for p in added[:MAX_LISTED]]
        if len(added) > MAX_LISTED:
            lines.append(f"- … and {len(added) - MAX_LISTED} more")
    if fixed:
        lines.append(f"Problems this edit fixed ({source}):")
        lines += [f"- {p.render(display(p.path))}" for p in fixed[:MAX_LISTED]]
        if len(fixed) > MAX_LISTED:
            lines.append(f"- … and {len(fixed) - MAX_LISTED} more")
    return "\n".join(lines)


def render_all(found: Mapping[Path, list[Problem]], display: Any) -> str:
    """Every error and warning, by file (for `@problems`); empty when there is none."""
    lines = []
    for path in sorted(found, key=str):
        for p in sorted(found[path], key=lambda p: (p.line, p.character)):
            if p.severity in REPORTED:
                lines.append(f"- {p.render(display(p.path))}")
    return "\n".join(lines)
