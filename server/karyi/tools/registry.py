"""The registry of every tool, grouped in profiles, and the toolkits agents use.

A profile is one family of tools under its own names (docs/tools.md) (`vecli.read_file` and
`agentxml.read_file` are different tools over the same file layer). A toolkit is the
subset one agent may call, keyed by the names the model writes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from karyi.tools.base import Tool


class ToolLookupError(KeyError):
    """An unknown profile or tool reference; the message lists what exists."""

    def __str__(self) -> str:
        return str(self.args[0])


def _suggest(name: str, options: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Toolkit:
    """The tools one agent may call, by the name the model uses."""

    def __init__(self, agent: str, tools: Mapping[str, Tool]) -> None:
        self.agent = agent
        self._tools = dict(tools)

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in prompt order."""
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def extended(self, tools: Sequence[Tool]) -> Toolkit:
        """This toolkit plus `tools` (a tool never replaces one of the same name here)."""
        more = {t.name: t for t in tools if t.name not in self._tools}
        return Toolkit(self.agent, {**self._tools, **more})

    def schema(self, name: str) -> Mapping[str, Any] | None:
        """The parameter schema of `name` (the dialects' SchemaLookup)."""
        tool = self._tools.get(name)
        return tool.parameters if tool else None

    def unknown_message(self, name: str) -> str:
        """Why `name` cannot be called, with the names that can."""
        if not name:
            return "the call names no tool"
        return (
            f"unknown tool {name!r}{_suggest(name, self.names())}; "
            f"available tools: {', '.join(self.names())}"
        )


class ToolRegistry:
    """Every registered tool, by profile."""

    def __init__(self) -> None:
        self._profiles: dict[str, dict[str, Tool]] = {}

    def declare(self, profile: str) -> None:
        """Make `profile` exist even before it has tools."""
        self._profiles.setdefault(profile, {})

    def register(self, profile: str, tool: Tool) -> None:
        """Add `tool` to `profile` under its own name (replacing one of the same name)."""
        self._profiles.setdefault(profile, {})[tool.name] = tool

    def set_profile(self, profile: str, tools: Sequence[Tool]) -> None:
        """Make `profile` hold exactly `tools` (for tools found at run time)."""
        self._profiles[profile] = {t.name: t for t in tools}

    def profiles(self) -> list[str]:
        """Profile names in registration order."""
        return list(self._profiles)

    def profile(self, name: str) -> dict[str, Tool]:
        """The tools of one profile by name."""
        try:
            return dict(self._profiles[name])
        except KeyError:
            raise ToolLookupError(
                f"unknown profile {name!r}{_suggest(name, self.profiles())}; "
                f"expected one of {', '.join(self.profiles())}"
            ) from None

    def find(self, ref: str) -> Tool:
        """A tool by `profile.name`, or by bare name when exactly one profile has it."""
        if "." in ref:
            profile, _, name = ref.partition(".")
            tools = self.profile(profile)
            if name not in tools:
                raise ToolLookupError(
                    f"profile {profile!r} has no tool {name!r}{_suggest(name, list(tools))}"
                )
            return tools[name]
        owners = [p for p, tools in self._profiles.items() if ref in tools]
        if len(owners) == 1:
            return self._profiles[owners[0]][ref]
        if not owners:
            names = sorted({n for tools in self._profiles.values() for n in tools})
            raise ToolLookupError(f"no tool named {ref!r}{_suggest(ref, names)}")
        raise ToolLookupError(
            f"{ref!r} exists in several profiles ({', '.join(owners)}): write profile.{ref}"
        )

    def toolkit(
        self,
        profile: str,
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        agent: str = "default",
    ) -> Toolkit:
        """A profile's tools plus `include` references, minus `exclude` names."""
        tools = self.profile(profile)
        for ref in include:
            tool = self.find(ref)
            tools[tool.name] = tool
        for name in exclude:
            tools.pop(name, None)
        return Toolkit(agent, tools)

    def all_tools(self) -> Iterator[tuple[str, Tool]]:
        """Every (profile, tool) pair."""
        for profile, tools in self._profiles.items():
            for tool in tools.values():
                yield profile, tool
