"""One workspace's agent machinery, assembled from settings for any front end.

The CLI, the LSP server and the gateway all need the same things: the workspace with
its path policy, the tool registry, the session store, checkpoints, a provider, and
agents built from them. They get them here, so a feature wired in once reaches all.

The runtime also owns what agents share beyond one call: the artifacts of every session
(in the session database), the subagents of settings `agents` (each agent gets a
runner), and the tools found at run time, registered in the profiles `discovered`
(settings `tools.discoveryCommand`) and `mcp` (settings `mcpServers`, through an
`McpManager` started on the first turn and closed by `aclose`). Every agent's toolkit
gets those tools at the start of each turn (and is told of SKILL.md files left out).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from karyi.agent.model_keys import key_environment
from karyi.agent.own_servers import OwnServers
from karyi.agent.prompting.rules import RuleFile, rule_files, rules_text
from karyi.agent.subagent_defs import definitions
from karyi.agent.tool_context import tool_context
from karyi.core.atomic import sweep_and_log
from karyi.secrets.redact import redact_logs_of
from karyi.secrets.request import ValueAnswer, ValueRequest
from karyi.secrets.store import SecretStore, config_dir
from karyi.secrets.vault import Vault
from karyi.settings import Settings
from karyi.tools.base import Tool
from karyi.tools.builtin.subagents import configured
from karyi.tools.discovery import DiscoveryError, discover
from karyi.tools.profiles import DYNAMIC_PROFILES, PROFILES, builtin_registry, default_toolkit
from karyi.tools.registry import ToolRegistry
from karyi.tools.skill_files import load_skills
from karyi.workspace.editor import Editor
from karyi.workspace.localdir import local_dir
from karyi.workspace.paths import PathPolicy
from karyi.workspace.workspace import Workspace

if TYPE_CHECKING:
    # The agent loop, sessions, model clients and language servers are imported where
    # they are first used: `karyi exec` runs tools with a runtime and needs none of them.
    from karyi.agent.diagnostics.problems import ProblemSource
    from karyi.agent.events import EventStream
    from karyi.agent.review.approval import Approver
    from karyi.agent.session.artifacts import ArtifactStore
    from karyi.agent.session.checkpoints import Checkpoints
    from karyi.agent.session.conversation import Conversation
    from karyi.agent.session.store import SessionStore
    from karyi.agent.turn.loop import Agent
    from karyi.agent.turn.spec import AgentSpec
    from karyi.llm.base import Provider
    from karyi.navigation.editor import EditorSource
    from karyi.navigation.navigator import Navigator
    from karyi.shell.manager import ShellManager
    from karyi.tools.context import ToolContext
    from karyi.tools.mcp.manager import McpManager
    from karyi.tools.mcp.status import ServerStatus


@dataclass
class Runtime:
    """Everything needed to run agents in one workspace."""

    settings: Settings
    workspace: Workspace
    registry: ToolRegistry = field(default_factory=builtin_registry)
    vault: Vault = field(default_factory=lambda: Vault(SecretStore.default()))
    ask_value: Callable[[ValueRequest], Awaitable[ValueAnswer | None]] | None = None
    """How the front end asks its user for a secret (`get_value`); None: it cannot."""
    editor: Editor | None = None
    """The front end's editor, which owns the files open in it (the language server)."""
    editor_problems: ProblemSource | None = None
    editor_navigation: EditorSource | None = None
    """The editor's diagnostics and language features, where its front end gives them."""
    _servers: OwnServers = field(init=False)
    _store: SessionStore | None = None
    _shell: ShellManager | None = None
    _artifacts: dict[bool, ArtifactStore] = field(default_factory=dict)
    _mcp: McpManager | None = None
    _retired: list[McpManager] = field(default_factory=list)
    _discovery: list[str] | None = None
    """Warnings of the last discovery; None until tools were discovered."""
    _tools_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    sweeping: threading.Thread | None = None  # removes what crashed writes left (`open`)

    def __post_init__(self) -> None:
        self._servers = OwnServers(self.workspace)
        for profile in DYNAMIC_PROFILES:
            self.registry.declare(profile)
        self._register_subagent_tool()

    @classmethod
    def open(cls, root: Path, settings: Settings, folders: Sequence[Path] = ()) -> Runtime:
        """A runtime for the workspace at `root` and its other `folders` (which must exist).

        Log records are redacted from now on: no handler ever sees a secret's value.
        """
        runtime = cls(settings, Workspace.open(root, settings.allowed_roots, folders))
        runtime.workspace.recover_writes()  # calls a crash cut off, rolled back and told
        runtime.sweeping = threading.Thread(
            target=sweep_and_log,
            args=(root, *folders, config_dir()),
            name="karyi-sweep",
            daemon=True,
        )
        runtime.sweeping.start()
        redact_logs_of(runtime.vault)
        return runtime

    @property
    def shell(self) -> ShellManager:
        """The shells of this workspace's sessions (started on first use)."""
        if self._shell is None:
            from karyi.shell.manager import ShellManager  # with the first command

            self._shell = ShellManager(self.workspace, self.settings, self.vault)
        return self._shell

    async def close_session(self, session_id: str) -> None:
        """Release what the session holds here: its terminal."""
        if self._shell is not None:
            await self._shell.close(session_id)

    def apply(self, settings: Settings) -> None:
        """Use new settings from now on (the workspace keeps its documents); changed
        MCP servers or discovery commands are started again on the next turn."""
        old, self.settings = self.settings, settings
        self.workspace.policy = PathPolicy.create(
            self.workspace.root, settings.allowed_roots, self.workspace.policy.more_folders
        )
        self._register_subagent_tool()
        if _changed(old, settings, "mcpServers") and self._mcp is not None:
            self._retired.append(self._mcp)
            self._mcp = None
        if _changed(old, settings, "tools"):
            self._discovery = None
        self._servers.apply(old, settings)

    def _register_subagent_tool(self) -> None:
        agents = {n: d.description for n, d in definitions(self.settings).items()}
        self.registry.register("research", configured(agents))

    # -- run-time tools ---------------------------------------------------------------------

    @property
    def mcp(self) -> McpManager:
        """The MCP servers of the settings (none started until `extra_tools` or `start`).
        The MCP SDK is imported here, on first use: it is most of a cold start."""
        from karyi.tools.mcp.manager import McpManager

        if self._mcp is None:
            self._mcp = McpManager(
                self.settings.mcp_servers,
                root=self.workspace.root,
                lookup=self.vault.lookup,
                log_dir=local_dir(self.workspace.root) / "mcp",
                refusal=self.settings.mcp_refusal,
            )
        return self._mcp

    async def rediscover(self) -> list[str]:
        """Run the discovery command again; its tools replace the discovered ones.
        Returns the warnings (a failed discovery leaves no discovered tools)."""
        taken = {t.name for p in PROFILES for t in self.registry.profile(p).values()}
        try:
            found = await discover(self.settings, self.workspace.root, taken)
        except DiscoveryError as exc:
            self.registry.set_profile("discovered", [])
            self._discovery = [f"tools.discoveryCommand failed: {exc}"]
            return self._discovery
        self.registry.set_profile("discovered", found.tools)
        self._discovery = found.warnings
        return self._discovery

    async def extra_tools(self) -> tuple[list[Tool], list[str]]:
        """The discovered and MCP tools (found on first use) and warnings about them."""
        async with self._tools_lock:
            for retired in self._retired:
                await retired.close()
            self._retired.clear()
            if self._discovery is None:
                await self.rediscover()
            warnings = [*(self._discovery or []), *load_skills(self.workspace.folders).warnings]
            if self.settings.mcp_servers or self._mcp is not None:
                mcp = self.mcp
                await mcp.start()
                self.registry.set_profile("mcp", mcp.tools())
                warnings += mcp.warnings
        tools = [t for p in DYNAMIC_PROFILES for t in self.registry.profile(p).values()]
        return tools, warnings

    async def restart_mcp(self, name: str) -> ServerStatus:
        """Start MCP server `name` again (KeyError when the settings have no such server);
        its tools replace the ones it had, from the next model call on."""
        async with self._tools_lock:
            status = await self.mcp.restart(name)
            self.registry.set_profile("mcp", self.mcp.tools())
        return status

    def artifact_store(self, persisted: bool = True) -> ArtifactStore:
        """Artifacts of stored sessions (in the session database), or of unstored ones."""
        from karyi.agent.session.artifacts import ArtifactStore

        if persisted not in self._artifacts:
            vault = self.vault
            path = self.store.path if persisted else None
            self._artifacts[persisted] = ArtifactStore(path, lambda t: vault.redactor.redact(t))
        return self._artifacts[persisted]

    @property
    def store(self) -> SessionStore:
        """The workspace's session store (opened on first use)."""
        from karyi.agent.session.store import SessionStore

        if self._store is None:
            vault = self.vault
            self._store = SessionStore.for_workspace(
                self.workspace.root, redact=lambda text: vault.redactor.redact(text)
            )
        return self._store

    @property
    def checkpoints(self) -> Checkpoints:
        """The workspace's shadow-git checkpoints (each folder's files, docs/context.md)."""
        from karyi.agent.session.checkpoints import Checkpoints

        return Checkpoints(self.workspace.root, folders=self.workspace.folders[1:])

    def spec(self) -> AgentSpec:
        """The default coding agent as the settings describe it."""
        from karyi.agent.prompting.system_prompt import default_instructions
        from karyi.agent.turn.spec import AgentSpec
        from karyi.protocol import get_dialect

        s = self.settings
        return AgentSpec(
            instructions=default_instructions(),
            dialect=get_dialect(s.dialect),
            toolkit=default_toolkit(self.registry, s.profile, memory=s.memory.auto),
            max_steps=s.max_steps,
        )

    def provider(self, model: str | None = None) -> Provider:
        """The model from the settings, or `model` when a session chose another (raises
        ProviderError `config` when unusable)."""
        from karyi.llm.factory import create_provider

        settings = self.settings.for_model(model)
        return create_provider(settings, self.model_env(settings))

    def settings_for(self, changes: Mapping[str, Any]) -> Settings:
        """The settings with a session's own choices (its model, its thinking budget); a
        model of another provider is reached at that provider's own address."""
        settings = self.settings.for_model(changes.get("model"))
        rest = {k: v for k, v in changes.items() if k != "model"}
        return settings.with_values(**rest) if rest else settings

    def model_env(self, settings: Settings | None = None) -> dict[str, str]:
        """The environment the model's key is taken from (`key_environment`)."""
        return key_environment(settings or self.settings, self.vault)

    def conversation(
        self, session_id: str | None = None, *, new_id: str | None = None
    ) -> Conversation:
        """A stored session, or a new one (with the id `new_id` when given; unsaved where
        the disk refuses writes)."""
        from karyi.agent.session.conversation import Conversation

        if session_id:
            return Conversation.resume(self.store, session_id)
        s = self.settings
        return Conversation.start_or_unsaved(
            lambda: self.store, model=s.model, dialect=s.dialect, profile=s.profile, sid=new_id
        )

    def context(self, conversation: Conversation) -> ToolContext:
        """The tool context for a conversation."""
        persisted = conversation.store is not None
        book = self.artifact_store(persisted).book(conversation.id)
        return tool_context(self, conversation.id, artifacts=book)

    def agent(
        self,
        conversation: Conversation,
        *,
        approver: Approver,
        provider: Provider | None = None,
        events: EventStream | None = None,
        spec: AgentSpec | None = None,
    ) -> Agent:
        """An agent for `conversation` wired to this workspace."""
        from karyi.agent.subagents import Subagents
        from karyi.agent.telemetry import watch
        from karyi.agent.turn.loop import Agent
        from karyi.agent.turn.spec import TurnServices

        session_id = conversation.id
        provider = provider or self.provider()
        agent = Agent(
            spec or self.spec(),
            provider,
            self.context(conversation),
            conversation,
            TurnServices(
                approver,
                events=events,
                checkpoints=self.checkpoints,
                rules=lambda: self.vault.redactor.redact(rules_text(self.rules(session_id))),
                changes=self.changed_files,
                tool_source=self.extra_tools,
                problems=self.problems(),
            ),
        )
        agent.ctx.subagents = Subagents(
            self, provider=provider, approver=approver, permissions=agent.permissions
        )
        watch(agent, self.settings, self.vault)  # OpenTelemetry, when on (docs/telemetry.md)
        return agent

    def rules(self, session_id: str | None = None) -> list[RuleFile]:
        """The rule files in force for a session (docs/context.md#rules): the user's, each
        root's, and the nearest AGENTS.md above every file the session worked on."""
        touched = [p for p, _v in self.workspace.documents.reads.paths(session_id or "")]
        return rule_files(self.workspace.folders, touched, memory=self.settings.memory)

    def problems(self) -> ProblemSource | None:
        """Where the problems after an edit come from (`diagnostics.source`,
        docs/context.md#diagnostics): the editor's when it gives them, else Karyi's own
        language servers (started on first use); None when switched off."""
        mode = self.settings.diagnostics.source
        if mode == "off":
            return None
        if mode in ("auto", "editor") and self.editor_problems is not None:
            return self.editor_problems
        if mode == "editor":
            return None
        return self._servers.diagnostics(self.settings)

    @property
    def navigator(self) -> Navigator:
        """The workspace's language servers for the navigation tools (each language's
        started by its first call, docs/context.md#where-navigation-answers-come-from)."""
        return self._servers.navigator(self.settings, self.editor_navigation)

    def changed_files(self, session_id: str) -> list[str]:
        """Files the session read that changed since, each announced once."""
        docs = self.workspace.documents
        return [
            f"{self.workspace.display(c.path)} ({c.what})"
            for c in docs.changed_since_read(session_id, only_new=True)
        ]

    async def aclose(self) -> None:
        """Stop every shell process, MCP and language server, and close the store."""
        for manager in [*self._retired, *([self._mcp] if self._mcp else [])]:
            await manager.close()
        self._retired.clear()
        self._mcp = None
        await self._servers.aclose()
        if self._shell is not None:
            await self._shell.close()
            self._shell = None
        self.close()

    def close(self) -> None:
        """Kill any shell process left and close the store (synchronous fallback)."""
        if self._shell is not None:
            self._shell.kill_all_now()
            self._shell = None
        for artifacts in self._artifacts.values():
            artifacts.close()
        self._artifacts.clear()
        if self._store is not None:
            self._store.close()
            self._store = None


def _changed(old: Settings, new: Settings, key: str) -> bool:
    return json.dumps(old.values.get(key), sort_keys=True) != json.dumps(
        new.values.get(key), sort_keys=True
    )
