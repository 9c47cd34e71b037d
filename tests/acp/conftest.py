"""The real `karyi acp` process driven by the ACP SDK's client side, against the fake
model server. `RecordingClient` is the editor: it records every update, answers
permission requests as the test says, and (when it offers them) serves `fs/*` from its
own buffers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from asyncio.subprocess import PIPE, STDOUT
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio
from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.connection import StreamEvent
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeclineElicitationResponse,
    DeniedOutcome,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    FileSystemCapabilities,
    InitializeResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.support.fake_model_server import FakeModelServer

WAIT = 60.0
READ = 'Let me look.\n<tools><read><file src="README.md"/></read></tools>'


def edit(path: str, find: str, replace: str) -> str:
    """A toolsxml reply that edits `path`."""
    return (
        f'Editing.\n<tools><edit><file src="{path}"><find>{find}</find>'
        f"<replace>{replace}</replace></file></edit></tools>"
    )


class Terminal:
    """A terminal the client runs for the agent, as an editor's terminal panel would."""

    def __init__(self, proc: asyncio.subprocess.Process, argv: list[str]) -> None:
        self.proc = proc
        self.argv = argv
        self.output = bytearray()
        self.reader: asyncio.Future[None] | None = None
        self.released = False

    async def read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := await self.proc.stdout.read(4096):
            self.output.extend(chunk)


class RecordingClient:
    """An ACP client (the editor's side) that records what the agent sends."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.changed = asyncio.Event()
        self.permissions: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []
        self.answer: str | None = "allow_once"
        """The option the user picks; None: the user never answers (until cancelled)."""
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, Terminal] = {}
        self.raw: list[dict[str, Any]] = []
        """Every message from the agent, as JSON, in arrival order."""
        self.elicitations: list[tuple[str, Any]] = []
        self.form_answer: dict[str, Any] | None = None
        """What the user types into an elicitation form (None: they decline)."""

    def observe(self, event: StreamEvent) -> None:
        if event.direction.value == "incoming":
            self.raw.append(event.message)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        self.changed.set()

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        self.changed.set()
        if self.answer is None:
            await asyncio.Event().wait()  # never answered: the agent withdraws it
        outcome = AllowedOutcome(outcome="selected", option_id=self.answer or "")
        return RequestPermissionResponse(outcome=outcome)

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.elicitations.append((message, mode))
        if self.form_answer is None:
            return DeclineElicitationResponse(action="decline")
        return AcceptElicitationResponse(action="accept", content=self.form_answer)

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers.get(path)
        return ReadTextFileResponse(content=Path(path).read_text() if text is None else text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        Path(path).write_text(content)  # as an editor saving the buffer would
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=PIPE, stderr=STDOUT
        )
        terminal = Terminal(proc, [command, *(args or [])])
        terminal.reader = asyncio.ensure_future(terminal.read())
        self.terminals[f"term-{len(self.terminals) + 1}"] = terminal
        return CreateTerminalResponse(terminal_id=f"term-{len(self.terminals)}")

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        text = self.terminals[terminal_id].output.decode(errors="replace")
        return TerminalOutputResponse(output=text, truncated=False)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        terminal = self.terminals[terminal_id]
        await terminal.reader
        return WaitForTerminalExitResponse(exit_code=await terminal.proc.wait())

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        terminal = self.terminals[terminal_id]
        if terminal.proc.returncode is None:
            terminal.proc.kill()
            await terminal.proc.wait()
        terminal.released = True
        return ReleaseTerminalResponse()

    def kinds(self) -> list[str]:
        return [u.session_update for _, u in self.updates]

    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    def message_text(self) -> str:
        return "".join(u.content.text for u in self.of("agent_message_chunk"))

    async def wait_for(self, found: Callable[[], Any]) -> Any:
        """Wait (on events, never a sleep) until `found()` is truthy; its value."""
        while not (value := found()):
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), WAIT)
        return value


class Agent:
    """A started `karyi acp`: its connection, the recording client, the workspace."""

    def __init__(self, conn: ClientSideConnection, client: RecordingClient, root: Path) -> None:
        self.conn = conn
        self.client = client
        self.root = root

    async def initialize(
        self, fs: bool = False, terminal: bool = False, forms: bool = False
    ) -> InitializeResponse:
        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
            terminal=terminal,
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
            if forms
            else None,
        )
        return await self.conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=caps
        )

    async def new_session(self) -> str:
        return (await self.conn.new_session(cwd=str(self.root), mcp_servers=[])).session_id

    async def opened(self, session_id: str) -> list[Any]:
        """The config options of a new session once its runtime is open: its first
        `config_option_update` (`session/new` answers before, docs/acp.md#start-up)."""

        def first() -> Any:
            updates = [u for sid, u in self.client.updates if sid == session_id]
            return next((u for u in updates if u.session_update == "config_option_update"), None)

        return list((await self.client.wait_for(first)).config_options)

    async def say(self, session_id: str, text: str) -> Any:
        from acp import text_block

        return await self.conn.prompt(session_id=session_id, prompt=[text_block(text)])


Start = Callable[..., Awaitable[Agent]]


@contextlib.asynccontextmanager
async def _spawned(client: RecordingClient, *argv: str, **kwargs: Any) -> AsyncIterator[Any]:
    """`spawn_agent_process`, whose teardown closes stdin, gives the process two seconds
    to exit, then terminates it: on a loaded machine `karyi acp` can exit on its own right
    in between, and the SDK's `terminate` then raises ProcessLookupError for a process
    that ended as it should."""
    try:
        async with spawn_agent_process(client, *argv, **kwargs) as spawned:
            yield spawned
    except ProcessLookupError:
        pass


@pytest_asyncio.fixture
async def karyi_acp(
    fake_llm: FakeModelServer, ws_root: Path, _isolated_config: Path, tmp_path: Path
) -> AsyncIterator[Start]:
    """Start `karyi acp` processes (initialized with `fs` or not); all stopped after."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(
            *,
            fs: bool = False,
            terminal: bool = False,
            initialize: bool = True,
            env_changes: dict[str, str | None] | None = None,
        ) -> Agent:
            client = RecordingClient()
            env = {
                **os.environ,
                "KARYI_CONFIG_DIR": str(_isolated_config),
                "KARYI_MODEL": "openai:test-model",
                "KARYI_BASE_URL": fake_llm.openai_url,
                "OPENAI_API_KEY": "sk-test",
            }
            for name, value in (env_changes or {}).items():  # None: not set at all
                env.pop(name, None)
                if value is not None:
                    env[name] = value
            log = stack.enter_context((tmp_path / "acp-stderr.log").open("ab"))
            conn, _process = await stack.enter_async_context(
                _spawned(
                    client,
                    sys.executable,
                    "-m",
                    "karyi",
                    "acp",
                    env=env,
                    cwd=ws_root,
                    transport_kwargs={"stderr": log.fileno()},
                    observers=[client.observe],
                    use_unstable_protocol=True,  # the SDK routes elicitation/create only so
                )
            )
            agent = Agent(conn, client, ws_root)
            if initialize:
                await agent.initialize(fs=fs, terminal=terminal)
            return agent

        yield start


def notifications(client: RecordingClient) -> str:
    """Every notification and request the agent sent, as JSON text."""
    return json.dumps([m for m in client.raw if "method" in m])


def cancelled_outcome() -> RequestPermissionResponse:
    """What a client answers a permission request that was cancelled."""
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
