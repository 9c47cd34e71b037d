"""Agent events as ACP `session/update`s: message and thought chunks, tool calls with
their kind, status, locations and content (diffs for edits, output for the rest), and
usage. Events reach this module already redacted (agent/events.py `EventStream.redact`),
so no secret value can reach a notification. See docs/acp.md for the table.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    Cost,
    CurrentModeUpdate,
    FileEditToolCallContent,
    PlanEntryStatus,
    StopReason,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    UserMessageChunk,
)
from acp.schema import UsageUpdate as AcpUsage

from karyi.acp.kinds import tool_kind
from karyi.agent import events as ev
from karyi.agent.turn.spec import TurnResult
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation
from karyi.tools.context import TodoItem
from karyi.workspace.editor import PlannedWrite

Update = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AcpUsage
    | AgentPlanUpdate
    | CurrentModeUpdate
)
Content = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
Locate = Callable[[ToolCall], list[Path]]

OUTPUT_TAIL = 8000
"""How much of a running command's output a tool call shows (the end of it)."""
RESULT_LIMIT = 4000
PLAN_STATUS: dict[str, PlanEntryStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
}


def diff_content(files: tuple[PlannedWrite, ...]) -> list[Content]:
    """Each file's change as ACP `diff` content (oldText absent for a new file)."""
    return [tool_diff_content(str(f.path), f.after, f.before) for f in files]


def confirmation_content(conf: Confirmation | None) -> list[Content]:
    """What a permission request shows: the diff of an edit, else the command or URL and
    whether it runs in the OS sandbox."""
    if conf is None:
        return []
    if conf.files:
        return diff_content(conf.files)
    lines = [text for text in (conf.details, conf.url, conf.diff) if text]
    if conf.sandboxed is not None:
        lines.append(sandbox_line(conf.sandboxed))
    return [tool_content(text_block("\n\n".join(lines)))] if lines else []


def sandbox_line(sandboxed: bool) -> str:
    """The words every front end uses (lsp/approvals.py, cli/ask.py)."""
    return "Runs in the OS sandbox." if sandboxed else "Runs NOT sandboxed."


def mode_update(mode: str) -> CurrentModeUpdate:
    """`current_mode_update`: the session's mode changed (`session/set_mode`, `/plan`)."""
    return CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)


def plan_update(items: tuple[TodoItem, ...] | list[TodoItem]) -> AgentPlanUpdate:
    """The task list as ACP's `plan` (the whole list each time, as ACP wants it)."""
    return update_plan(
        plan_entry(i.text, status=PLAN_STATUS.get(i.status, "pending")) for i in items
    )


class UpdateMapper:
    """The updates of one session's events; remembers what each call has shown so far
    (its diffs, its output), because ACP replaces a call's content as a whole."""

    def __init__(self, locate: Locate, context_window: int) -> None:
        self._locate = locate
        self.context_window = context_window
        """The model's context window (`usage_update` size); follows a model switch."""
        self._output: dict[str, str] = {}
        self._diffs: dict[str, list[Content]] = {}
        self._usage = (0, 0)
        self._announced: set[str] = set()
        """Ids of the calls the client was told of with `tool_call`."""

    def updates(self, event: ev.Event) -> list[Update]:
        """The session updates `event` becomes (none for bookkeeping events). Every call
        is announced with `tool_call` before any update for it: a call refused before it
        ran (unknown tool, malformed, the plan-mode gate, a rule) has no `ToolQueued`, so
        its `ToolDone` becomes the `tool_call` itself, `failed` with the reason."""
        if isinstance(event, ev.ToolDone):
            if event.call.id not in self._announced:
                return [self._refused(event)]
            self._announced.discard(event.call.id)
        return self._updates(event)

    def _updates(self, event: ev.Event) -> list[Update]:
        if isinstance(event, ev.Text):
            return self._text(event.text, event.channel)
        if isinstance(event, ev.ToolQueued):
            return [self._start(event.call, event.description)]
        if isinstance(event, ev.ToolAwaitingPermission):
            content = confirmation_content(event.confirmation)
            return [update_tool_call(event.call.id, content=content)] if content else []
        if isinstance(event, ev.ToolRunning):
            return [update_tool_call(event.call.id, status="in_progress")]
        if isinstance(event, ev.ToolOutput):
            return self._output_of(event.call_id, event.text)
        if isinstance(event, ev.FileChanged):
            diffs = diff_content(event.files)
            self._diffs[event.call.id] = diffs
            locations = [ToolCallLocation(path=str(f.path)) for f in event.files]
            return [update_tool_call(event.call.id, content=diffs, locations=locations)]
        if isinstance(event, ev.ToolDone):
            return [self._done(event)]
        if isinstance(event, ev.Notice):
            return [update_agent_thought_text(f"[{event.topic}] {event.message}\n")]
        if isinstance(event, ev.Usage):
            return self._usage_of(event)
        if isinstance(event, ev.Error):
            return [
                update_agent_message_text(
                    f"\n\nKaryi stopped ({event.error_kind}): {event.message}\n"
                )
            ]
        if isinstance(event, ev.Todos):
            return [plan_update(event.items)]
        if isinstance(event, ev.Mode):
            return [mode_update(event.mode)]
        if isinstance(event, ev.Hook):
            said = event.stderr or event.stdout
            if event.status == "ok" and not said:
                return []
            return [update_agent_thought_text(f"[hook {event.event}: {event.status}] {said}\n")]
        if isinstance(event, ev.Subagent):
            return self._subagent(event)
        return []

    def _text(self, text: str, channel: str) -> list[Update]:
        if not text:
            return []
        if channel == "thinking":
            return [update_agent_thought_text(text)]
        return [update_agent_message_text(text)]

    def _refused(self, event: ev.ToolDone) -> ToolCallStart:
        """A call that never ran, announced once, already finished."""
        done = self._done(event)
        start = self._start(event.call, f"{event.call.name} (refused)")
        status: ToolCallStatus = "completed" if event.result.success else "failed"
        return start.model_copy(update={"status": status, "content": done.content})

    def _start(self, call: ToolCall, title: str) -> ToolCallStart:
        self._announced.add(call.id)
        try:
            paths = self._locate(call)
        except Exception:  # a call naming a path outside the workspace has none to show
            paths = []
        return start_tool_call(
            call.id,
            title,
            kind=tool_kind(call.name),
            status="pending",
            locations=[ToolCallLocation(path=str(p)) for p in paths],
            raw_input=call.params,
        )

    def _output_of(self, call_id: str, text: str) -> list[Update]:
        shown = (self._output.get(call_id, "") + text)[-OUTPUT_TAIL:]
        self._output[call_id] = shown
        return [update_tool_call(call_id, content=[tool_content(text_block(shown))])]

    def _done(self, event: ev.ToolDone) -> ToolCallProgress:
        result = event.result
        text = result.llm_content
        if len(text) > RESULT_LIMIT:
            text = text[:RESULT_LIMIT] + f"\n[… {len(text) - RESULT_LIMIT} more characters]"
        content: list[Content] = [*self._diffs.pop(event.call.id, [])]
        if text:
            content.append(tool_content(text_block(text)))
        self._output.pop(event.call.id, None)
        status: ToolCallStatus = "completed" if result.success else "failed"
        return update_tool_call(event.call.id, status=status, content=content)

    def _usage_of(self, event: ev.Usage) -> list[Update]:
        # The loop's usage is the turn's running total; the context in use is what the
        # latest model call read and wrote.
        last_in, last_out = self._usage
        self._usage = (event.input_tokens, event.output_tokens)
        used = max(0, event.input_tokens - last_in) + max(0, event.output_tokens - last_out)
        cost = None
        if event.session_cost is not None:
            cost = Cost(amount=round(event.session_cost, 6), currency="USD")
        return [
            AcpUsage(session_update="usage_update", used=used, size=self.context_window, cost=cost)
        ]

    def reset_usage(self) -> None:
        """A new turn starts counting from zero."""
        self._usage = (0, 0)

    def _subagent(self, event: ev.Subagent) -> list[Update]:
        inner = event.event
        if isinstance(inner, ev.Text):  # the subagent's words are the parent's thinking
            return [update_agent_thought_text(inner.text)] if inner.text else []
        if isinstance(inner, ev.Usage | ev.Error | ev.Notice | ev.Todos | ev.Mode):
            return []
        return self.updates(inner)


def stop_reason(result: TurnResult, cancelled: bool) -> StopReason:
    """ACP's stop reason for how a turn ended (docs/acp.md)."""
    if cancelled or result.stop_reason == "cancelled":
        return "cancelled"
    if result.stop_reason == "max_steps":
        return "max_turn_requests"
    if result.finish in ("length", "max_tokens"):
        return "max_tokens"
    if result.finish in ("refusal", "content_filter"):
        return "refusal"
    return "end_turn"  # an answer, or an error the user was told about in the message
