"""The agents settings `agents` define, and the built-in ones: what they are, not how
they run (`agent/subagents.py` runs them). A runtime registers `call_subagent` with
their descriptions at start; nothing here needs the agent loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from karyi.core.typed_json import to_json
from karyi.settings import Settings

_ARTIFACTS = (
    "research.create_artifact",
    "research.read_artifact",
    "research.update_artifact",
    "research.rewrite_artifact",
)
BUILTIN: dict[str, dict[str, Any]] = {
    "explore": {
        "description": "answers questions about the code in this workspace by reading it "
        "(read-only: search, list and read files)",
        "tools": ["karyi.read", "vecli.ls", "vecli.grep", "vecli.glob", "vecli.read_many_files"],
        "maxSteps": 30,
    },
    "search": {
        "description": "researches a question on the web (web search) and reports findings "
        "with sources, keeping notes in artifacts",
        "tools": ["research.web_search", *_ARTIFACTS],
        "maxSteps": 20,
    },
    "crawl": {
        "description": "reads given web pages and PDFs (web fetch) and extracts what the "
        "task asks for, with sources, into its answer or an artifact",
        "tools": ["research.web_fetch", *_ARTIFACTS],
        "maxSteps": 20,
    },
}


@dataclass(frozen=True)
class SubagentDef:
    """One agent as settings define it."""

    name: str
    description: str
    written: str | None
    """The settings' `instructions`; None: the built-in ones (read when first asked)."""
    model: str | None
    dialect: str | None
    profile: str | None
    tools: tuple[str, ...]
    max_steps: int

    @property
    def instructions(self) -> str:
        """What the agent is told it is; a built-in agent's template is read only when
        one is run (a runtime lists the agents at start, `karyi exec` runs none)."""
        if self.written is not None:
            return self.written
        return _builtin_instructions(self.name)


def definitions(settings: Settings) -> dict[str, SubagentDef]:
    """The built-in agents with the settings' overrides, plus the settings' own agents."""
    configured: Mapping[str, Mapping[str, Any]] = {
        name: to_json(spec) for name, spec in settings.agents.named.items()
    }
    out: dict[str, SubagentDef] = {}
    for name in [*BUILTIN, *(n for n in configured if n not in BUILTIN)]:
        merged = {**BUILTIN.get(name, {}), **configured.get(name, {})}
        if merged.get("enabled") is False:
            continue
        written = merged.get("instructions")
        out[name] = SubagentDef(
            name,
            str(merged.get("description") or ""),
            None if written is None else str(written),
            merged.get("model"),
            merged.get("dialect"),
            merged.get("profile"),
            tuple(merged.get("tools") or ()),
            int(merged.get("maxSteps") or settings.max_steps),
        )
    return out


def _builtin_instructions(name: str) -> str:
    if name in BUILTIN:
        from karyi.agent.prompting.system_prompt import template

        return template(f"agents/{name}").safe_substitute().strip()
    return f"You are {name}, an agent working on a task another agent gave you."
