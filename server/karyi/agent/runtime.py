"""One workspace's agent machinery, assembled from settings for any front end.

The CLI, the LSP server and the gateway all need the same things: the workspace with
its path policy, the tool registry, the session store, checkpoints, a provider, and
agents built from them. They get them here, so a feature wired in once reaches all.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from karyi.agent.checkpoints import Checkpoints
from karyi.agent.conversation import Conversation
from karyi.agent.events import EventStream
from karyi.agent.executor import Approver
from karyi.agent.loop import Agent, AgentSpec
from karyi.agent.prompt import default_instructions
from karyi.agent.sessions import SessionStore
from karyi.llm.base import Provider
from karyi.llm.factory import create_provider
from karyi.protocol import get_dialect
from karyi.secrets.redact import RedactingFilter
from karyi.secrets.request import ValueAnswer, ValueRequest
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.settings import Settings
from karyi.shell.manager import ShellManager
from karyi.tools.base import ToolContext
from karyi.tools.builtin.memory import load_memory
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.tools.registry import ToolRegistry
from karyi.workspace.editor import Editor
from karyi.workspace.paths import PathPolicy
from karyi.workspace.workspace import Workspace


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
    _store: SessionStore | None = None
    _shell: ShellManager | None = None

    @classmethod
    def open(cls, root: Path, settings: Settings) -> Runtime:
        """A runtime for the workspace at `root` (which must exist).

        Log records are redacted from now on: no handler ever sees a secret's value.
        """
        runtime = cls(settings, Workspace.open(root, settings.allowed_roots))
        for handler in logging.getLogger().handlers:
            if not any(isinstance(f, RedactingFilter) for f in handler.filters):
                handler.addFilter(RedactingFilter(lambda: runtime.vault.redactor))
        return runtime

    @property
    def shell(self) -> ShellManager:
        """The shells of this workspace's sessions (started on first use)."""
        if self._shell is None:
            self._shell = ShellManager(self.workspace, self.settings, self.vault)
        return self._shell

    def apply(self, settings: Settings) -> None:
        """Use new settings from now on (the workspace keeps its documents)."""
        self.settings = settings
        self.workspace.policy = PathPolicy.create(self.workspace.root, settings.allowed_roots)

    @property
    def store(self) -> SessionStore:
        """The workspace's session store (opened on first use)."""
        if self._store is None:
            vault = self.vault
            self._store = SessionStore.for_workspace(
                self.workspace.root, redact=lambda text: vault.redactor.redact(text)
            )
        return self._store

    @property
    def checkpoints(self) -> Checkpoints:
        """The workspace's shadow-git checkpoints."""
        return Checkpoints(self.workspace.root)

    def spec(self) -> AgentSpec:
        """The default coding agent as the settings describe it."""
        s = self.settings
        return AgentSpec(
            instructions=default_instructions(),
            dialect=get_dialect(s.dialect),
            toolkit=default_toolkit(self.registry, s.profile),
            max_steps=s.max_steps,
        )

    def provider(self) -> Provider:
        """The model from the settings (raises ProviderError `config` when unusable)."""
        return create_provider(self.settings)

    def conversation(self, session_id: str | None = None) -> Conversation:
        """A stored session, or a new one."""
        if session_id:
            return Conversation.resume(self.store, session_id)
        s = self.settings
        return Conversation.start(self.store, model=s.model, dialect=s.dialect, profile=s.profile)

    def context(self, conversation: Conversation) -> ToolContext:
        """The tool context for a conversation."""
        return ToolContext(
            self.workspace,
            self.settings,
            session_id=conversation.id,
            shell=self.shell,
            secrets=self.vault,
            ask_value=self.ask_value,
            editor=self.editor,
        )

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
        root = self.workspace.root
        memory: Callable[[], str] = lambda: load_memory(root)  # noqa: E731
        return Agent(
            spec or self.spec(),
            provider or self.provider(),
            self.context(conversation),
            conversation,
            approver=approver,
            events=events,
            checkpoints=self.checkpoints,
            memory=memory,
            changes=self.changed_files,
        )

    def changed_files(self, session_id: str) -> list[str]:
        """Files the session read that changed since, each announced once."""
        docs = self.workspace.documents
        return [
            f"{self.workspace.display(c.path)} ({c.what})"
            for c in docs.changed_since_read(session_id, only_new=True)
        ]

    async def aclose(self) -> None:
        """Stop every shell process (none outlives the runtime) and close the store."""
        if self._shell is not None:
            await self._shell.close()
            self._shell = None
        self.close()

    def close(self) -> None:
        """Kill any shell process left and close the store (synchronous fallback)."""
        if self._shell is not None:
            self._shell.kill_all_now()
            self._shell = None
        if self._store is not None:
            self._store.close()
            self._store = None
