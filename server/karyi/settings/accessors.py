"""The `Settings` object: the merged settings, typed, with the JSON they came from.

Settings are loaded once (see loading.py) and passed down; nothing reads them from a
global. `Settings` is a `SettingsModel` (model.py): code reads typed fields such as
`settings.shell.timeout_seconds` rather than digging in `values`; the few methods here
are the answers that combine keys or consult the environment.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from karyi.core.typed_json import fields_from_json
from karyi.llm.families import key_variable
from karyi.settings.managed import leaf_paths
from karyi.settings.model import DEFAULTS, SettingsModel
from karyi.settings.tighten import model_allowed
from karyi.settings.validation import SettingsWarning


@attrs.frozen(kw_only=True, init=False)
class Settings(SettingsModel):
    """The merged settings, typed. `values` is their merged JSON form (what a checked
    layer gave, for a process that takes the settings along), `warnings` what was ignored
    and `sources` which layer set each key (top-level and dotted keys). `managed` is the
    organisation's managed file as checked ({}: none), `managed_source` how it is named
    (managed.py)."""

    values: dict[str, Any]
    warnings: tuple[SettingsWarning, ...]
    sources: dict[str, str]
    managed: dict[str, Any]
    managed_source: str

    def __init__(
        self,
        values: Mapping[str, Any] | None = None,
        warnings: Iterable[SettingsWarning] = (),
        sources: Mapping[str, str] | None = None,
        *,
        managed: Mapping[str, Any] | None = None,
        managed_source: str = "organisation",
    ) -> None:
        """`values` is checked JSON (load_settings checks it); None: the defaults."""
        json_values = copy.deepcopy(dict(DEFAULTS if values is None else values))
        self.__attrs_init__(
            **fields_from_json(SettingsModel, json_values),
            values=json_values,
            warnings=tuple(warnings),
            sources=dict(sources or {}),
            managed=copy.deepcopy(dict(managed or {})),
            managed_source=managed_source,
        )

    @property
    def pinned(self) -> list[str]:
        """The dotted keys the organisation's managed settings set: nothing below may
        loosen them (docs/security.md#managed-settings)."""
        return leaf_paths(self.managed)

    def pinned_values(self) -> list[tuple[str, Any]]:
        """Each pinned setting as a front end lists it: the dotted key and the managed
        value, an object's keys one by one (an empty object as itself)."""
        out: list[tuple[str, Any]] = []
        for key in self.pinned:
            value: Any = self.managed
            for part in key.split("."):
                value = value[part]
            if not (isinstance(value, dict) and value):
                out.append((key, value))
        return out

    def pinned_note(self) -> str | None:
        """What a front end says of the pinned settings, one line (None: none pinned)."""
        rows = self.pinned_values()
        if not rows:
            return None
        listed = "; ".join(f"{key} = {json.dumps(value)}" for key, value in rows)
        n = f"{len(rows)} setting{'s' if len(rows) > 1 else ''}"
        return f"{n} pinned by your {self.managed_source}: {listed}"

    def source_of(self, key: str) -> str:
        """Which layer set the dotted `key` (the nearest enclosing key's, else default)."""
        parts = key.split(".")
        for end in range(len(parts), 0, -1):
            found = self.sources.get(".".join(parts[:end]))
            if found is not None:
                return found
        return "default"

    def managed_refusal(self, key: str) -> str:
        """The words of a refusal that the managed `key` decided."""
        return f"refused by your organisation's settings ({key}, {self.managed_source})"

    def mcp_refusal(self, name: str, entry: Any) -> str | None:
        """Why MCP server `name` (its settings entry) may not start, or None. The one check
        every way of adding a server goes through (the runtime's MCP manager starts no
        other): with a managed `mcpServers`, only its servers, each exactly as written
        there; a managed value that is not an object allows none (fail closed;
        docs/security.md#managed-settings)."""
        if "mcpServers" not in self.managed:
            return None
        listed = self.managed["mcpServers"]
        if isinstance(listed, dict) and name in listed and listed[name] == entry:
            return None
        return self.managed_refusal("mcpServers")

    def key_variables(self) -> list[str]:
        """Where the model's API key may be, in the order `api_key` looks."""
        usual = key_variable(self.model.partition(":")[0])
        names = ["KARYI_API_KEY", self.api_key_env or None, usual]
        return list(dict.fromkeys(n for n in names if n))

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        """KARYI_API_KEY, else the variable `apiKeyEnv` names, else the provider's usual one."""
        env = os.environ if env is None else env
        for name in self.key_variables():
            if env.get(name):
                return env[name]
        return None

    @property
    def sandbox_writable(self) -> list[str]:
        """Extra paths sandboxed commands may write (absolute, `~` expanded)."""
        return [os.path.expanduser(p) for p in self.shell.sandbox.writable]

    @property
    def llm_timeouts(self) -> tuple[float, float]:
        """Model requests: (connect, idle) timeouts in seconds; the idle one bounds each
        silence inside a streaming reply (`readTimeoutSeconds` is its older name)."""
        idle = self.llm.read_timeout_seconds or self.llm.idle_timeout_seconds
        return self.llm.connect_timeout_seconds, idle

    @property
    def has_runtime_tools(self) -> bool:
        """Whether tools come at run time: a discovery command or MCP servers."""
        return bool(self.tools.discovery_command or self.mcp_servers)

    @property
    def max_parallel(self) -> int:
        """`agents.maxParallel`: how many background tasks run at once (docs/parallel.md);
        by default one per CPU core, at least one and at most four."""
        if self.agents.max_parallel is not None:
            return self.agents.max_parallel
        return max(1, min(4, os.cpu_count() or 1))

    def for_model(self, model: str | None) -> Settings:
        """These settings with `model` in place of the configured one (a session's choice,
        docs/models.md#picker). `baseUrl` goes with the provider it was set for: a model
        of another provider prefix is reached at that provider's own address."""
        if not model or model == self.model:
            return self
        if self.managed and not model_allowed(model, self.managed):
            return self  # the organisation's settings pin the model (docs/security.md)
        same = model.partition(":")[0].lower() == self.model.partition(":")[0].lower()
        keep = same or "baseUrl" in self.managed
        return self.with_values(model=model, baseUrl=self.base_url if keep else None)

    def with_values(self, **changes: Any) -> Settings:
        """A copy with top-level keys replaced (for tests and programmatic callers). A model
        the organisation's managed settings do not allow is not taken (docs/security.md)."""
        if (
            self.managed
            and "model" in changes
            and not model_allowed(changes["model"], self.managed)
        ):
            changes = {k: v for k, v in changes.items() if k not in ("model", "baseUrl")}
        return Settings(
            {**self.values, **changes},
            self.warnings,
            self.sources,
            managed=self.managed,
            managed_source=self.managed_source,
        )
