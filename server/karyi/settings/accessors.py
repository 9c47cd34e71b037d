"""The `Settings` object: the merged settings as JSON, with typed accessors.

Settings are loaded once (see loading.py) and passed down; nothing reads them from a
global. Code reads a typed property rather than digging in `values`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from karyi.llm.families import key_variable
from karyi.settings.schema import DEFAULTS
from karyi.settings.validation import SettingsWarning


@dataclass(frozen=True)
class Settings:
    """The merged settings, typed. `values` is the merged JSON form."""

    values: dict[str, Any] = field(default_factory=lambda: json.loads(json.dumps(DEFAULTS)))
    warnings: tuple[SettingsWarning, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def model(self) -> str:
        """`provider:name`."""
        return str(self.values["model"])

    def key_variables(self) -> list[str]:
        """Where the model's API key may be, in the order `api_key` looks."""
        named = self.values.get("apiKeyEnv")
        usual = key_variable(self.model.partition(":")[0])
        names = ["KARYI_API_KEY", str(named) if named else None, usual]
        return list(dict.fromkeys(n for n in names if n))

    @property
    def dialect(self) -> str:
        """The dialect the default agent speaks."""
        return str(self.values["dialect"])

    @property
    def profile(self) -> str:
        """The tool profile of the default agent."""
        return str(self.values["profile"])

    @property
    def base_url(self) -> str | None:
        """The provider's base URL, if set."""
        value = self.values.get("baseUrl")
        return str(value) if value else None

    @property
    def allowed_roots(self) -> list[str]:
        """Extra roots the path policy allows (absolute)."""
        return list(self.values["allowedRoots"])

    @property
    def max_steps(self) -> int:
        """The most model calls one turn may make."""
        return int(self.values["maxSteps"])

    @property
    def diagnostics_source(self) -> str:
        """`diagnostics.source`: auto, editor, servers or off (docs/context.md)."""
        return str(self.values["diagnostics"].get("source") or "auto")

    @property
    def diagnostics_wait(self) -> float:
        """The longest wait for diagnostics after an edit, in seconds."""
        return float(self.values["diagnostics"].get("waitSeconds") or 5)

    @property
    def diagnostics_servers(self) -> dict[str, Any]:
        """`diagnostics.servers`: languageId -> {command, extensions}."""
        return dict(self.values["diagnostics"].get("servers") or {})

    @property
    def shell_timeout(self) -> float:
        """Overall timeout of one shell command, in seconds."""
        return float(self.values["shell"]["timeoutSeconds"])

    @property
    def shell_inactivity(self) -> float:
        """Silence after which a terminal command returns with status `running`."""
        return float(self.values["shell"]["inactivitySeconds"])

    @property
    def shell_oneshot_idle(self) -> float:
        """Silence after which a one-shot command is killed."""
        return float(self.values["shell"]["oneShotIdleSeconds"])

    @property
    def shell_output_limit(self) -> int:
        """Characters of command output shown to the model (head and tail)."""
        return int(self.values["shell"]["outputLimit"])

    @property
    def shell_path(self) -> str | None:
        """The shell of the persistent terminal (bash when unset)."""
        value = self.values["shell"].get("path")
        return str(value) if value else None

    @property
    def sandbox_mode(self) -> str:
        """`shell.sandbox.mode`: auto, on or off."""
        return str(self._sandbox.get("mode") or "auto")

    @property
    def sandbox_network(self) -> bool:
        """Whether sandboxed commands keep the network."""
        return bool(self._sandbox.get("network", False))

    @property
    def sandbox_writable(self) -> list[str]:
        """Extra paths sandboxed commands may write (absolute, `~` expanded)."""
        return [os.path.expanduser(str(p)) for p in self._sandbox.get("writable") or []]

    @property
    def sandbox_auto_approve(self) -> bool:
        """Whether commands no rule judges run without asking when sandboxed."""
        return bool(self._sandbox.get("autoApprove", True))

    @property
    def _sandbox(self) -> dict[str, Any]:
        return dict(self.values["shell"].get("sandbox") or {})

    def command_rules(self) -> dict[str, list[str]]:
        """`permissions.commands`: allow, deny and confirm pattern lists."""
        commands = self.values["permissions"].get("commands") or {}
        return {k: [str(p) for p in commands.get(k, [])] for k in ("allow", "deny", "confirm")}

    @property
    def gateway_shell(self) -> bool:
        """Whether the gateway's `shell` tool is enabled."""
        return bool(self.values["gateway"]["enableShell"])

    @property
    def gateway_token(self) -> str | None:
        """The gateway's bearer token from the settings (the environment may override it)."""
        value = self.values["gateway"].get("token")
        return str(value) if value else None

    @property
    def gateway_permission_timeout(self) -> float | None:
        """Seconds a gateway turn may wait for a permission answer (None: for ever)."""
        value = self.values["gateway"].get("permissionTimeoutSeconds")
        return float(value) if value else None

    @property
    def gateway_max_request_bytes(self) -> int:
        """The largest request body the gateway reads."""
        return int(self.values["gateway"]["maxRequestBytes"])

    @property
    def llm_timeouts(self) -> tuple[float, float]:
        """Model requests: (connect, idle) timeouts in seconds; the idle one bounds each
        silence inside a streaming reply (`readTimeoutSeconds` is its older name)."""
        llm = self.values["llm"]
        idle = llm.get("readTimeoutSeconds") or llm["idleTimeoutSeconds"]
        return float(llm["connectTimeoutSeconds"]), float(idle)

    @property
    def llm_max_attempts(self) -> int:
        """How many times one model call is tried before its error is reported."""
        return int(self.values["llm"]["maxAttempts"])

    @property
    def llm_max_retry_seconds(self) -> float:
        """The most time one model call spends on failed tries and the waits between them."""
        return float(self.values["llm"]["maxRetrySeconds"])

    @property
    def context_window(self) -> int | None:
        """The model's context window when the user states it (else known per model)."""
        value = self.values["llm"].get("contextWindow")
        return int(value) if value else None

    @property
    def mcp_servers(self) -> dict[str, Any]:
        """The `mcpServers` entries, by name."""
        return dict(self.values.get("mcpServers") or {})

    @property
    def has_runtime_tools(self) -> bool:
        """Whether tools come at run time: a discovery command or MCP servers."""
        return bool(self.values["tools"].get("discoveryCommand") or self.mcp_servers)

    @property
    def prompt_caching(self) -> bool:
        """Whether Anthropic requests mark cache breakpoints."""
        return bool(self.values["llm"].get("promptCaching", True))

    @property
    def thinking_budget(self) -> int:
        """Tokens an Anthropic model may think for before answering (0: no extended thinking)."""
        value = self.values["llm"].get("thinkingBudget")
        return int(value) if value else 0

    @property
    def images(self) -> bool | None:
        """`llm.images`: whether the model takes pictures, when the user says (None: known
        per model family, llm/vision.py)."""
        value = self.values["llm"].get("images")
        return bool(value) if value is not None else None

    @property
    def models(self) -> list[str]:
        """`models`: the models the editor's picker offers besides `model`."""
        return [str(m) for m in self.values.get("models") or []]

    @property
    def web(self) -> dict[str, Any]:
        """The `web` settings: search backend, address policy and fetch limits."""
        return dict(self.values["web"])

    @property
    def tools_timeout(self) -> float:
        """Seconds a discovery or call command may run."""
        return float(self.values["tools"].get("timeoutSeconds") or 60)

    def tool_permission(self, name: str) -> str | None:
        """The permission the user set for tool `name`, if any."""
        value = self.values["permissions"]["tools"].get(name)
        return str(value) if value else None

    def api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        """KARYI_API_KEY, else the variable `apiKeyEnv` names, else the provider's usual one."""
        env = os.environ if env is None else env
        if env.get("KARYI_API_KEY"):
            return env["KARYI_API_KEY"]
        named = self.values.get("apiKeyEnv")
        if named and env.get(str(named)):
            return env[str(named)]
        usual = key_variable(self.model.partition(":")[0])
        return env.get(usual) if usual else None

    @property
    def prices(self) -> dict[str, Any]:
        """The user's model prices (`{model: {input, cachedInput, output}}`, USD/M tokens)."""
        return dict(self.values.get("prices") or {})

    @property
    def max_cost_per_turn(self) -> float | None:
        """`agent.maxCostPerTurn` in USD: a turn that costs more stops (None: no limit)."""
        value = (self.values.get("agent") or {}).get("maxCostPerTurn")
        return float(value) if value is not None else None

    @property
    def max_parallel(self) -> int:
        """`agents.maxParallel`: how many background tasks run at once (docs/parallel.md);
        by default one per CPU core, at least one and at most four."""
        value = (self.values.get("agents") or {}).get("maxParallel")
        if isinstance(value, int) and value >= 1:
            return value
        return max(1, min(4, os.cpu_count() or 1))

    def for_model(self, model: str | None) -> Settings:
        """These settings with `model` in place of the configured one (a session's choice,
        docs/models.md#picker). `baseUrl` goes with the provider it was set for: a model
        of another provider prefix is reached at that provider's own address."""
        if not model or model == self.model:
            return self
        same = model.partition(":")[0].lower() == self.model.partition(":")[0].lower()
        return self.with_values(model=model, baseUrl=self.values.get("baseUrl") if same else None)

    def with_values(self, **changes: Any) -> Settings:
        """A copy with top-level keys replaced (for tests and programmatic callers)."""
        return Settings({**self.values, **changes}, self.warnings, self.sources)
