"""Previews of an edit while the model is still writing it (docs/protocol.md, "Drafts").

After each chunk of a reply, the parser's partial call (`StreamParser.partial`) is
worked out like the finished call would be, through the tool's own `planned_writes`:
the path through the one path policy, the file read through the document store, the
edit engine in memory; nothing is written. The value still being written counts up to
its last complete line, so a preview only ever shows whole lines and never half of a
secret (events pass the vault's redactor like every event). A call whose file is not
known yet, whose find text does not match, or that fails in any way shows nothing.
When the call is complete a `done` draft says so, and its proposal takes over.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from karyi.agent.events import Event, ToolDraft
from karyi.protocol.base import StreamParser
from karyi.protocol.calls import PartialCall, ToolCall
from karyi.tools.context import ToolContext
from karyi.tools.registry import Toolkit
from karyi.workspace.editor import PlannedWrite

if TYPE_CHECKING:
    from karyi.tools.builtin.mutating import MutatingTool

log = logging.getLogger(__name__)

DRAFT_INTERVAL = 0.1
"""Seconds between two drafts of one call: the preview keeps up with the model's
writing without an update per token."""
_PATH_KEYS = frozenset({"src", "path", "file_path", "filePath", "target_file"})
_FIND_OF = {"replace": "find", "new_string": "old_string", "newContent": "oldContent"}
"""The text a replacement replaces, by the replacement's parameter name."""


@dataclass
class Drafts:
    """The drafts of one reply's calls; `update` after each chunk, `settle` per call."""

    toolkit: Toolkit
    ctx: ToolContext
    emit: Callable[[Event], None]
    clock: Callable[[], float] = time.monotonic
    interval: float = DRAFT_INTERVAL
    _shown: dict[int, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Per call (by index): each file and its text, as last sent."""
    _last: float = float("-inf")
    _timer: asyncio.TimerHandle | None = None

    def update(self, parser: StreamParser) -> None:
        """Send the draft of the call being written, when it changed. The partial call
        is looked at once per interval at most (its cost grows with the call, so the
        parse stays linear however small the chunks); what arrives in between is looked
        at when the interval is over, even if no chunk follows (the model may pause)."""
        self.stop()
        now = self.clock()
        if now - self._last < self.interval:
            self._later(parser, self.interval - (now - self._last))
            return
        self._last = now
        partial = parser.partial()
        if partial is None:
            return
        found = self.toolkit.get(partial.name)
        if found is None or not found.changes_files:
            return
        from karyi.tools.builtin.mutating import MutatingTool  # with the first draft

        try:
            tool = found.loaded()  # a built-in tool's code, imported on its first draft
        except Exception as exc:  # its call will say why; no draft meanwhile
            log.debug("no draft for %s: %s", partial.name, exc)
            return
        if not isinstance(tool, MutatingTool):
            return
        writes = self._writes(tool, partial)
        texts = tuple((str(w.path), w.after) for w in writes)
        if not writes or self._shown.get(partial.index) == texts:
            return
        self._shown[partial.index] = texts
        self.emit(ToolDraft(partial.index, tool.name, partial.call_id, tuple(writes)))

    def stop(self) -> None:
        """No draft is due any more (the call closed, the turn was cancelled)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _later(self, parser: StreamParser, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # driven without a loop (a test moving the clock)
            return
        self._timer = loop.call_later(delay, self.update, parser)

    def settle(self, call: ToolCall) -> None:
        """The call is complete: its draft (if one was shown) gives way to the proposal."""
        self.stop()
        if self._shown.pop(call.index, None) is not None:
            self.emit(ToolDraft(call.index, call.name, call.id, (), done=True))

    def _writes(self, tool: MutatingTool[Any], partial: PartialCall) -> list[PlannedWrite]:
        params, written = _whole_lines(tool, partial)
        if params is None:
            return []
        try:
            writes = tool.planned_writes(params, self.ctx)
        except Exception as exc:  # not complete enough yet: show nothing
            log.debug("no draft for %s yet: %s", partial.name, exc)
            return []
        from karyi.tools.builtin.write import WholeFileTool

        if isinstance(tool, WholeFileTool):
            writes = [_aligned(w, written) for w in writes]
        return [w for w in writes if w.after != w.before]


def _whole_lines(
    tool: MutatingTool[Any], partial: PartialCall
) -> tuple[dict[str, Any] | None, str | None]:
    """The partial call's parameters with the open value cut after its last line break
    (None while a path is still being written), and that value."""
    if not partial.open:
        return partial.params, None
    key = partial.open[-1]
    if key in _PATH_KEYS or key in tool.path_params:
        return None, None
    params = _copy_path(partial.params, partial.open)
    holder: Any = params
    for k in partial.open[:-1]:
        holder = holder[k]
    value = holder[key]
    if not isinstance(value, str):
        return params, None
    lines = value[: value.rfind("\n") + 1]
    find = holder.get(_FIND_OF.get(str(key), ""), "\n") if isinstance(holder, dict) else "\n"
    if isinstance(find, str) and find and not find.endswith("\n"):
        lines = lines[:-1]  # the text after the found one goes on its last line
    holder[key] = lines
    return params, lines


def _copy_path(params: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
    """`params` with the containers along `path` copied (the parser's own stay intact)."""
    top = dict(params)
    holder: Any = top
    for k in path[:-1]:
        child = holder[k]
        holder[k] = dict(child) if isinstance(child, dict) else list(child)
        holder = holder[k]
    return top


def _aligned(w: PlannedWrite, written: str | None) -> PlannedWrite:
    """A whole-file write still arriving replaces only the part of the file it has
    reached: the rest of the old text stays, so the preview does not show it deleted.
    (Not for a find/replace: its replacement is never the file's whole text.)"""
    if written is None or w.before is None or w.after != written:
        return w
    old = w.before.splitlines(keepends=True)
    new = written.splitlines(keepends=True)
    blocks = difflib.SequenceMatcher(None, new, old, autojunk=False).get_matching_blocks()
    reached = max((b.b + b.size for b in blocks if b.size), default=0)
    return replace(w, after=written + "".join(old[reached:]))
