"""One ACP session: its own runtime (the session's `cwd` is the workspace root, the
client's MCP servers join the settings), an `AgentHost` holding the live session, and
the turn in progress: events become `session/update`s in order, and every call Karyi
would ask about becomes a `session/request_permission`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from acp import RequestError, tool_terminal_ref, update_tool_call
from acp.schema import (
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    PermissionOption,
    PromptResponse,
    RequestPermissionResponse,
    SessionInfoUpdate,
    ToolCallProgress,
    ToolCallUpdate,
)

from karyi.acp.config_options import Option, choice, config_options, options_update
from karyi.acp.editor import AcpEditor
from karyi.acp.kinds import tool_kind
from karyi.acp.listing import iso_time
from karyi.acp.permissions import decision_from, options_for, tool_call_for
from karyi.acp.prompts import Block, prompt_images, prompt_text
from karyi.acp.session_modes import MODE
from karyi.acp.slash_commands import answered_here, available_commands, expand
from karyi.acp.task_sessions import ReadOnly
from karyi.acp.terminals import TerminalMirror
from karyi.acp.updates import (
    Content,
    Update,
    UpdateMapper,
    mode_update,
    plan_update,
    stop_reason,
)
from karyi.agent.events import (
    Event,
    Mode,
    Subagent,
    Todos,
    ToolAwaitingPermission,
    ToolDone,
    ToolOutput,
    ToolRunning,
    TurnStarted,
)
from karyi.agent.host import AgentHost, LiveSession, NotPending, SessionBusy
from karyi.agent.prompting.slash_commands import load_commands
from karyi.agent.review.approval import Decision
from karyi.agent.runtime import Runtime
from karyi.core.images import ImageError
from karyi.llm.unconfigured import UnconfiguredProvider
from karyi.protocol.calls import ToolCall
from karyi.settings import Settings
from karyi.tools.context import TodoItem

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Start:
    """Open the client terminal of a command call."""

    call_id: str


@dataclass(frozen=True)
class _Finish:
    """A command call is done: close its terminal, then send its last update."""

    call_id: str
    update: ToolCallProgress


Notice = Update | AvailableCommandsUpdate | ConfigOptionUpdate | SessionInfoUpdate
_QueueItem = Notice | ToolAwaitingPermission | ToolOutput | _Start | _Finish | None


class AuthRequired(RuntimeError):
    """The session's model needs an API key and none is set (ACP `auth_required`)."""


class SessionClient(Protocol):
    """What a session sends to the client (the SDK's agent-side connection)."""

    async def session_update(self, session_id: str, update: Notice) -> None:
        """`session/update`."""
        ...

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        """`session/request_permission`."""
        ...


class AcpSession:
    """A live ACP session and its running turn."""

    def __init__(
        self,
        client: SessionClient,
        runtime: Runtime,
        host: AgentHost,
        live: LiveSession,
        editor: AcpEditor | None,
        terminals: TerminalMirror | None = None,
        *,
        booleans: bool = False,
    ) -> None:
        self.client = client
        self.runtime = runtime
        self.host = host
        self.live = live
        self.editor = editor
        self.terminals = terminals
        self.booleans = booleans
        """The client shows boolean config options (schema 1.18)."""
        self._mirrored: set[str] = set()
        self.mapper = UpdateMapper(self._locate, live.agent.provider.context_window)
        self.cancelled = False
        self.read_only: str | None = None
        """Why the session takes no prompt (a background task's, task_sessions.py)."""
        self._queue: asyncio.Queue[_QueueItem] = asyncio.Queue()
        self._asks: set[asyncio.Task[None]] = set()
        self._key_checked = True
        self.plan_told: list[TodoItem] = []
        """The task list as the client last heard it: a list changed outside a turn (a
        resumed session's) goes out with the next turn, never between turns."""
        """False after `logout`: the next prompt makes the model again, with the key
        that is left (or asks for sign-in)."""
        known, self._models_complete = host.catalog.known(runtime.settings, runtime.model_env())
        self.models = [e.id for e in known]
        """The models on offer, as the VS Code picker lists them (agent/models.py)."""

    @property
    def id(self) -> str:
        """The session id (the stored session's)."""
        return self.live.id

    def _locate(self, call: ToolCall) -> list[Path]:
        tool = self.live.agent.spec.toolkit.get(call.name)
        if tool is None:
            return []
        keys = tool.resources(call.params, self.live.agent.ctx)
        return [Path(k.removeprefix("file:")) for k in sorted(keys) if k.startswith("file:")]

    @property
    def mode(self) -> str:
        """The session's mode (`plan` or `act`)."""
        return self.live.agent.mode

    async def set_mode(self, mode: str) -> None:
        """Switch modes between turns, and tell the client (SessionBusy during one): the
        mode and the mode config option stay in step."""
        if self.live.agent.busy:
            raise SessionBusy(f"session {self.id} is running a turn: cancel it first")
        self.live.agent.set_mode(mode)
        await self.client.session_update(self.id, mode_update(self.mode))
        await self.client.session_update(self.id, options_update(self.options()))

    def options(self) -> list[Option]:
        """The session's config options with their current values."""
        choices = self.host.choices(self.id)
        settings = self.runtime.settings
        return config_options(settings, choices, self.mode, self.models, booleans=self.booleans)

    async def refresh_models(self) -> None:
        """Read the model server's list when it was not cached yet, and announce the
        options again (`config_option_update`) when it offers more models."""
        if self._models_complete:
            return
        settings = self.runtime.settings
        entries, note = await self.host.catalog.models(settings, self.runtime.model_env())
        self._models_complete = True
        if note:
            log.info("the model list: %s", note)
        models = [e.id for e in entries]
        if models != self.models:
            self.models = models
            await self.client.session_update(self.id, options_update(self.options()))

    async def configure(self, config_id: str, value: str | bool) -> list[Option]:
        """`session/set_config_option`, from the next turn (SessionBusy during one;
        UnknownOption for what is not offered). Returns every option, as changed."""
        if self.live.agent.busy:
            raise SessionBusy(f"session {self.id} is running a turn: cancel it first")
        choices = self.host.choices(self.id)
        picked = choice(self.options(), config_id, value, self.runtime.settings, choices)
        if config_id == MODE:
            self.live.agent.set_mode(str(value))
            await self.client.session_update(self.id, mode_update(self.mode))
        else:
            provider = self.host.choose(self.id, **picked.changes)
            self.mapper.context_window = provider.context_window
        return self.options()

    def signed_out(self) -> None:
        """`logout` removed the stored key: the next prompt checks for one again."""
        self._key_checked = False

    def model_settings(self) -> Settings:
        """The settings of the session's model (its own choice, else the settings')."""
        return self.runtime.settings_for(self.host.choices(self.id))

    def _signed_in(self) -> None:
        """AuthRequired when the session's model still has no key (a key set since, in
        the environment's keyring by `karyi login`, is picked up here; one removed by
        `logout` is missed here)."""
        if self._key_checked and not isinstance(self.live.agent.provider, UnconfiguredProvider):
            return
        self._key_checked = True
        provider = self.host.choose(self.id)
        if isinstance(provider, UnconfiguredProvider) and provider.key_missing:
            raise AuthRequired(provider.error.message)

    async def announce(self) -> None:
        """Tell the client the slash commands and the models the model's server lists
        (after the session's id reached it: the list may take a moment). The task list
        is a turn's update: it goes with the history or the next turn."""
        try:
            root = self.runtime.workspace.root
            custom = await asyncio.to_thread(load_commands, root)
            await self.client.session_update(self.id, available_commands(list(custom.values())))
            await self.refresh_models()
        except Exception as exc:
            log.debug("announcing the session failed: %s", exc)

    async def send(self, updates: list[Update]) -> None:
        """Send updates now (the history of session/load)."""
        for update in updates:
            await self.client.session_update(self.id, update)

    async def prompt(self, blocks: list[Block]) -> PromptResponse:
        """Run one turn; every update is sent before the response (SessionBusy while
        the session runs one: the updates of a turn have one queue; ReadOnly for a task's)."""
        if self.read_only:
            raise ReadOnly(self.read_only)
        if self.live.agent.busy:
            raise SessionBusy(f"session {self.id} is already running a turn: cancel it first")
        self._signed_in()
        text, context = prompt_text(blocks)
        try:
            images = prompt_images(blocks)
        except ImageError as exc:
            raise RequestError.invalid_params({"field": "prompt", "message": str(exc)}) from None
        text = expand(text)
        if (answered := await answered_here(self, text)) is not None:
            return answered
        self.cancelled = False
        self.mapper.reset_usage()
        todos = list(self.live.conversation.todos)
        if todos != self.plan_told:  # changed since the client last heard it
            self._queue.put_nowait(plan_update(todos))
            self.plan_told = todos
        pump = asyncio.ensure_future(self._pump())
        try:
            _, result = await self.host.chat(
                self.id, text, context=context, images=images, listener=self._on
            )
        finally:
            for task in list(self._asks):
                task.cancel()
            self._queue.put_nowait(None)
            await pump
        # The stable schema has no `usage` in the answer: the turn's tokens go in `_meta`.
        usage = {
            "totalTokens": result.input_tokens + result.output_tokens,
            "inputTokens": result.input_tokens,
            "outputTokens": result.output_tokens,
            "cachedReadTokens": result.cached_tokens,
        }
        reason = stop_reason(result, self.cancelled)
        return PromptResponse(stop_reason=reason, field_meta={"usage": usage})

    def cancel(self) -> None:
        """`session/cancel`: questions still open are withdrawn (rejected as cancelled),
        the running calls and the model's reply stop; the prompt answers `cancelled`."""
        self.cancelled = True
        for task in list(self._asks):
            task.cancel()
        for pending in self.host.pending(self.id):
            self._answer(pending.request.call.id, Decision(False, "the user cancelled the turn"))
        self.host.cancel(self.id)

    def _on(self, event: Event) -> None:
        if isinstance(event, TurnStarted):  # the title is set from the first prompt
            title = self.live.conversation.title or None
            now = iso_time(time.time())
            self._queue.put_nowait(
                SessionInfoUpdate(session_update="session_info_update", title=title, updated_at=now)
            )
        if isinstance(event, Todos):
            self.plan_told = list(event.items)
        if self._mirror(event):
            return
        for update in self.mapper.updates(event):
            self._queue.put_nowait(update)
        if isinstance(event, Mode):  # `/plan`, `/act`: the mode option follows
            self._queue.put_nowait(options_update(self.options()))
        awaiting = _awaiting(event)
        if awaiting is not None:
            self._queue.put_nowait(awaiting)

    def _mirror(self, event: Event) -> bool:
        """Route a command's events to its client terminal (when the client offers
        terminals); True when `event` was fully taken care of."""
        if self.terminals is None:
            return False
        if isinstance(event, ToolRunning) and tool_kind(event.call.name) == "execute":
            self._mirrored.add(event.call.id)
            self._queue.put_nowait(_Start(event.call.id))
        elif isinstance(event, ToolOutput) and event.call_id in self._mirrored:
            self._queue.put_nowait(event)
            return True
        elif isinstance(event, ToolDone) and event.call.id in self._mirrored:
            self._mirrored.discard(event.call.id)
            for update in self.mapper.updates(event):
                if isinstance(update, ToolCallProgress):
                    self._queue.put_nowait(_Finish(event.call.id, update))
            return True
        return False

    async def _terminal(self, item: _Start | _Finish | ToolOutput) -> None:
        """The client-terminal side of a command call (see acp/terminals.py)."""
        mirror = self.terminals
        assert mirror is not None
        if isinstance(item, _Start):
            terminal = await mirror.start(item.call_id)
            if terminal is not None:
                shown = update_tool_call(item.call_id, content=[tool_terminal_ref(terminal)])
                await self.client.session_update(self.id, shown)
        elif isinstance(item, ToolOutput):
            if not mirror.write(item.call_id, item.text):  # no terminal: show it as text
                for update in self.mapper.updates(item):
                    await self.client.session_update(self.id, update)
        else:
            terminal = await mirror.finish(item.call_id)
            update = item.update
            if terminal is not None:
                content: list[Content] = [tool_terminal_ref(terminal), *(update.content or [])]
                update = update.model_copy(update={"content": content})
            await self.client.session_update(self.id, update)

    async def _pump(self) -> None:
        """Send the turn's updates in the order the events came; a question is asked
        only after the updates before it (the tool call it is about) were sent."""
        while (item := await self._queue.get()) is not None:
            try:
                if isinstance(item, ToolAwaitingPermission):
                    task = asyncio.ensure_future(self._ask(item))
                    self._asks.add(task)
                    task.add_done_callback(self._asks.discard)
                elif isinstance(item, _Start | _Finish | ToolOutput):
                    await self._terminal(item)
                else:
                    await self.client.session_update(self.id, item)
            except Exception as exc:  # a client gone away must not stop the turn
                log.debug("session/update failed: %s", exc)

    async def _ask(self, event: ToolAwaitingPermission) -> None:
        try:
            response = await self.client.request_permission(
                self.id, tool_call_for(event), options_for(event)
            )
            decision = decision_from(response)
        except asyncio.CancelledError:
            decision = Decision(False, "the user cancelled the turn")
        except Exception as exc:
            decision = Decision(False, f"the editor could not ask the user ({exc})")
        if self.cancelled:
            decision = Decision(False, "the user cancelled the turn")
        self._answer(event.call.id, decision)

    def _answer(self, call_id: str, decision: Decision) -> None:
        with contextlib.suppress(NotPending):  # the turn already ended or moved on
            self.host.answer(self.id, call_id, decision)

    async def close(self) -> None:
        """Cancel the turn and release the runtime (shells, MCP servers, the store)."""
        await self.host.close()


def _awaiting(event: Event) -> ToolAwaitingPermission | None:
    """The permission request in `event`, also inside a subagent's events."""
    while isinstance(event, Subagent):
        event = event.event
    return event if isinstance(event, ToolAwaitingPermission) else None
