"""One workspace's agent machinery, assembled from settings for any front end.

The CLI, the LSP server and the gateway all need the same things: the workspace with
its path policy, the tool registry, the session store, checkpoints, a provider, and
agents built from them. They get them here, so a feature wired in once reaches all.
"""

from __future__ import annotations

from collections.abc import Callable
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
from karyi.settings import Settings
from karyi.tools.base import ToolContext
from karyi.tools.builtin.memory import load_memory
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.tools.registry import ToolRegistry
from karyi.workspace.paths import PathPolicy
from karyi.workspace.workspace import Workspace


@dataclass
class Runtime:
    """Everything needed to run agents in one workspace."""

    settings: Settings
    workspace: Workspace
    registry: ToolRegistry = field(default_factory=builtin_registry)
    _store: SessionStore | None = None

    @classmethod
    def open(cls, root: Path, settings: Settings) -> Runtime:
        """A runtime for the workspace at `root` (which must exist)."""
        return cls(settings, Workspace.open(root, settings.allowed_roots))

    def apply(self, settings: Settings) -> None:
        """Use new settings from now on (the workspace keeps its documents)."""
        self.settings = settings
        self.workspace.policy = PathPolicy.create(self.workspace.root, settings.allowed_roots)

    @property
    def store(self) -> SessionStore:
        """The workspace's session store (opened on first use)."""
        if self._store is None:
            self._store = SessionStore.for_workspace(self.workspace.root)
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
        return ToolContext(self.workspace, self.settings, session_id=conversation.id)

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

    def close(self) -> None:
        """Release the session store."""
        if self._store is not None:
            self._store.close()
            self._store = None
