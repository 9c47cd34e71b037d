"""Settings (SPEC §10): defaults, user file, workspace file, editor, environment, flags.

Later layers win; objects merge key by key. Every layer is checked key by key against
the schema below: an unknown or invalid key is dropped with a warning that names the
source, the key and what was expected, and the lower layer's value stays in force.
The workspace file comes with the repository, so it may only tighten: it cannot set a
tool to `auto`, allow commands, or add allowed roots (a cloned repository must not be
able to free the agent), nor set `baseUrl` or `apiKeyEnv` (it must not be able to send
the user's API key, or any other variable, to a server of its choosing). Nor may it make
Karyi run programs or reach addresses of its choosing: `tools.discoveryCommand`,
`tools.callCommand`, `mcpServers`, `web.search` and `web.allowPrivate` from a workspace
file are ignored (with a warning) unless the user lists the workspace in their own
`trustedWorkspaces`.
Settings are loaded once and passed down; nothing reads them from a global.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_config_dir

from karyi.core.schema import ParamValidator
from karyi.llm.families import key_variable
from karyi.protocol import DIALECTS
from karyi.protocol.jsonscan import strip_trailing_commas

_PERMISSION = {"type": "string", "enum": ["auto", "confirm", "deny"]}
_PATTERNS = {"type": "array", "items": {"type": "string"}}

SCHEMA: dict[str, dict[str, Any]] = {
    "model": {
        "type": "string",
        "pattern": r"^[A-Za-z][\w-]*:.+$",
        "description": "provider:name, e.g. openai:gpt-4.1 or script:examples/demo/fix.yaml",
    },
    "baseUrl": {"type": ["string", "null"], "description": "the provider's base URL"},
    "apiKeyEnv": {"type": ["string", "null"], "description": "variable that holds the API key"},
    "dialect": {"type": "string", "enum": list(DIALECTS)},
    "profile": {"type": "string", "description": "tool profile name"},
    "agents": {
        "type": "object",
        "additionalProperties": {
            "type": "object",
            "properties": {
                "instructions": {"type": "string"},
                "description": {"type": "string"},
                "model": {"type": "string"},
                "dialect": {"type": "string", "enum": list(DIALECTS)},
                "profile": {"type": "string"},
                "tools": {"type": "array", "items": {"type": "string"}},
                "maxSteps": {"type": "integer", "minimum": 1},
                "enabled": {"type": "boolean"},
            },
            "additionalProperties": False,
        },
    },
    "permissions": {
        "type": "object",
        "properties": {
            "tools": {"type": "object", "additionalProperties": _PERMISSION},
            "commands": {
                "type": "object",
                "properties": {"allow": _PATTERNS, "deny": _PATTERNS, "confirm": _PATTERNS},
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    },
    "mcpServers": {
        "type": "object",
        "additionalProperties": {"type": "object"},
        "description": "servers checked one by one when they start (see tools/mcp/config.py)",
    },
    "tools": {
        "type": "object",
        "properties": {
            "discoveryCommand": {"type": ["string", "null"]},
            "callCommand": {"type": ["string", "null"]},
            "timeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
        },
        "additionalProperties": False,
    },
    "trustedWorkspaces": {"type": "array", "items": {"type": "string"}},
    "web": {
        "type": "object",
        "properties": {
            "search": {
                "type": "object",
                "properties": {
                    "backend": {"type": "string", "enum": ["searxng", "bocha"]},
                    "url": {"type": "string", "pattern": "^https?://"},
                    "keyVariable": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"},
                    "timeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
                },
                "required": ["backend"],
                "additionalProperties": False,
            },
            "allowPrivate": {"type": "boolean"},
            "allowedHosts": {"type": "array", "items": {"type": "string"}},
            "timeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
            "maxBytes": {"type": "integer", "minimum": 1024},
            "maxRedirects": {"type": "integer", "minimum": 0, "maximum": 20},
            "maxChars": {"type": "integer", "minimum": 1000},
        },
        "additionalProperties": False,
    },
    "allowedRoots": {"type": "array", "items": {"type": "string"}},
    "maxSteps": {"type": "integer", "minimum": 1},
    "shell": {
        "type": "object",
        "properties": {
            "timeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
            "inactivitySeconds": {"type": "number", "exclusiveMinimum": 0},
            "oneShotIdleSeconds": {"type": "number", "exclusiveMinimum": 0},
            "outputLimit": {"type": "integer", "minimum": 200},
            "path": {"type": ["string", "null"]},
        },
        "additionalProperties": False,
    },
    "gateway": {
        "type": "object",
        "properties": {
            "enableShell": {"type": "boolean"},
            "token": {
                "type": ["string", "null"],
                "minLength": 16,
                "description": "bearer token every request must carry (KARYI_GATEWAY_TOKEN wins)",
            },
            "maxRequestBytes": {"type": "integer", "minimum": 1024},
            "permissionTimeoutSeconds": {
                "type": ["number", "null"],
                "exclusiveMinimum": 0,
                "description": "a turn paused this long for a permission answer is cancelled",
            },
        },
        "additionalProperties": False,
    },
    "llm": {
        "type": "object",
        "properties": {
            "connectTimeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
            "readTimeoutSeconds": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "longest silence inside a streaming reply",
            },
            "maxAttempts": {"type": "integer", "minimum": 1, "maximum": 20},
            "contextWindow": {"type": ["integer", "null"], "minimum": 1024},
            "promptCaching": {
                "type": "boolean",
                "description": "Anthropic: cache the system prompt and conversation prefix",
            },
            "thinkingBudget": {
                "type": ["integer", "null"],
                "minimum": 1024,
                "maximum": 32000,
                "description": "Anthropic extended thinking: tokens the model may think for",
            },
        },
        "additionalProperties": False,
    },
}

DEFAULTS: dict[str, Any] = {
    "model": "openai:gpt-4.1",
    "baseUrl": None,
    "apiKeyEnv": None,
    "dialect": "toolsxml",
    "profile": "karyi",
    "agents": {},
    "permissions": {"tools": {}, "commands": {"allow": [], "deny": [], "confirm": []}},
    "mcpServers": {},
    "tools": {"discoveryCommand": None, "callCommand": None, "timeoutSeconds": 60},
    "trustedWorkspaces": [],
    "web": {
        "allowPrivate": False,
        "allowedHosts": [],
        "timeoutSeconds": 30,
        "maxBytes": 5_000_000,
        "maxRedirects": 5,
        "maxChars": 60_000,
    },
    "allowedRoots": [],
    "maxSteps": 50,
    "shell": {
        "timeoutSeconds": 120,
        "inactivitySeconds": 10,
        "oneShotIdleSeconds": 60,
        "outputLimit": 16000,
        "path": None,
    },
    "gateway": {
        "enableShell": False,
        "token": None,
        "maxRequestBytes": 1024 * 1024,
        "permissionTimeoutSeconds": 1800,
    },
    "llm": {
        "connectTimeoutSeconds": 10,
        "readTimeoutSeconds": 300,
        "maxAttempts": 5,
        "contextWindow": None,
        "thinkingBudget": None,
        "promptCaching": True,
    },
}

ENVIRONMENT = {
    "KARYI_MODEL": "model",
    "KARYI_BASE_URL": "baseUrl",
    "KARYI_DIALECT": "dialect",
    "KARYI_PROFILE": "profile",
    "KARYI_MAX_STEPS": "maxSteps",
}
_USER_ONLY = ("allowedRoots", "baseUrl", "apiKeyEnv", "trustedWorkspaces")
_KEY_WHY = (
    "a workspace settings file may not choose where your API key is sent or which "
    "variable it is read from; set it in your user settings"
)
_RUNS_PROGRAMS = (
    ("tools", "discoveryCommand"),
    ("tools", "callCommand"),
    ("mcpServers", None),
    ("web", "search"),
    ("web", "allowPrivate"),
    ("web", "allowedHosts"),
)
"""Keys that make Karyi run a program or reach an address: user-chosen only, or from a
workspace the user trusts."""
_TRUST_WHY = (
    "a workspace settings file may not choose programs for Karyi to run or addresses for "
    "it to reach; set it in your user settings, or trust this workspace by adding its path "
    "to trustedWorkspaces in your user settings"
)
_VALIDATORS = {key: ParamValidator(schema, noun="key") for key, schema in SCHEMA.items()}
_JSONC = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', re.S)


@dataclass(frozen=True)
class SettingsWarning:
    """A key that was ignored, and why."""

    source: str
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.key}: {self.message}"


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
        """Model requests: (connect, read) timeouts in seconds."""
        llm = self.values["llm"]
        return float(llm["connectTimeoutSeconds"]), float(llm["readTimeoutSeconds"])

    @property
    def llm_max_attempts(self) -> int:
        """How many times one model call is tried before its error is reported."""
        return int(self.values["llm"]["maxAttempts"])

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

    def with_values(self, **changes: Any) -> Settings:
        """A copy with top-level keys replaced (for tests and programmatic callers)."""
        return Settings({**self.values, **changes}, self.warnings, self.sources)


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """`<user config dir>/karyi/settings.json` (KARYI_CONFIG_DIR overrides the dir)."""
    env = os.environ if env is None else env
    base = env.get("KARYI_CONFIG_DIR") or user_config_dir("karyi", appauthor=False)
    return Path(base) / "settings.json"


def workspace_settings_path(workspace: Path) -> Path:
    """`.karyi/settings.json` in the workspace."""
    return workspace / ".karyi" / "settings.json"


def loads_jsonc(text: str) -> Any:
    """JSON with // and /* */ comments and trailing commas, as editors write it."""
    return json.loads(strip_trailing_commas(_JSONC.sub(lambda m: m.group(1) or "", text)))


def _nest(layer: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in layer.items():
        key = key.removeprefix("karyi.")
        if "." in key and key.split(".", 1)[0] in SCHEMA:
            head, _, rest = key.partition(".")
            sub = out.setdefault(head, {})
            if isinstance(sub, dict):
                sub.update(_nest({rest: value}))
            continue
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key].update(value)
        else:
            out[key] = value
    return out


def _tighten_only(
    layer: dict[str, Any], source: str, warnings: list[SettingsWarning], *, trusted: bool
) -> dict[str, Any]:
    """A repository's own settings file may restrict the agent, never free it."""
    why = "a workspace settings file may only tighten permissions; set it in your user settings"
    for key in _USER_ONLY:
        if key in layer:
            reason = why if key in ("allowedRoots", "trustedWorkspaces") else _KEY_WHY
            warnings.append(SettingsWarning(source, key, f"ignored: {reason}"))
    layer = {k: v for k, v in layer.items() if k not in _USER_ONLY}
    if not trusted:
        _drop_program_keys(layer, source, warnings)
    perms = layer.get("permissions")
    if isinstance(perms, dict):
        tools = perms.get("tools")
        if isinstance(tools, dict):
            for name in [n for n, mode in tools.items() if mode == "auto"]:
                warnings.append(
                    SettingsWarning(source, f"permissions.tools.{name}", f"'auto' ignored: {why}")
                )
                del tools[name]
        commands = perms.get("commands")
        if isinstance(commands, dict) and commands.pop("allow", None):
            warnings.append(
                SettingsWarning(source, "permissions.commands.allow", f"ignored: {why}")
            )
    gateway = layer.get("gateway")
    if isinstance(gateway, dict):
        # A repository must neither open the shell to HTTP clients nor pick the token
        # that guards the gateway (it would know the token of every clone it is in).
        if gateway.get("enableShell") is True:
            del gateway["enableShell"]
            warnings.append(SettingsWarning(source, "gateway.enableShell", f"ignored: {why}"))
        if gateway.pop("token", None) is not None:
            warnings.append(SettingsWarning(source, "gateway.token", f"ignored: {why}"))
    return layer


def _drop_program_keys(layer: dict[str, Any], source: str, warnings: list[SettingsWarning]) -> None:
    """Remove the keys of `_RUNS_PROGRAMS` from an untrusted workspace layer."""
    for key, sub in _RUNS_PROGRAMS:
        value = layer.get(key)
        if sub is None and key in layer:
            del layer[key]
        elif sub is not None and isinstance(value, dict) and sub in value:
            if key == "web" and sub == "allowPrivate" and value[sub] is not True:
                continue  # false only tightens
            del value[sub]
        else:
            continue
        name = key if sub is None else f"{key}.{sub}"
        warnings.append(SettingsWarning(source, name, f"ignored: {_TRUST_WHY}"))


def is_trusted(workspace: Path, trusted: list[str]) -> bool:
    """Whether the user's `trustedWorkspaces` lists `workspace` (compared as real paths)."""
    real = os.path.realpath(workspace)
    return any(os.path.realpath(os.path.expanduser(p)) == real for p in trusted)


def _check(
    layer: Mapping[str, Any],
    source: str,
    base: Path,
    warnings: list[SettingsWarning],
    *,
    untrusted: bool = False,
    trusted: bool = False,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    nested = _nest(layer)
    if untrusted:
        nested = _tighten_only(nested, source, warnings, trusted=trusted)
    for key, value in nested.items():
        if key not in SCHEMA:
            close = difflib.get_close_matches(key, list(SCHEMA), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            warnings.append(SettingsWarning(source, key, f"unknown key, ignored{hint}"))
            continue
        errors = _VALIDATORS[key].errors(value)
        if errors:
            for e in errors:
                warnings.append(SettingsWarning(source, key, f"{e}; ignored"))
            continue
        if key in ("allowedRoots", "trustedWorkspaces"):
            value = [str((base / os.path.expanduser(r)).resolve()) for r in value]
        out[key] = value
    return out


def _merge(into: dict[str, Any], layer: Mapping[str, Any]) -> None:
    for key, value in layer.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _file_layer(path: Path, warnings: list[SettingsWarning]) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        warnings.append(SettingsWarning(str(path), "(file)", f"cannot read: {exc.strerror}"))
        return {}
    try:
        data = loads_jsonc(text)
    except json.JSONDecodeError as exc:
        warnings.append(
            SettingsWarning(
                str(path),
                "(file)",
                f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                "the whole file was ignored",
            )
        )
        return {}
    if not isinstance(data, dict):
        warnings.append(SettingsWarning(str(path), "(file)", "expected a JSON object; ignored"))
        return {}
    return data


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for var, key in ENVIRONMENT.items():
        if var in env and env[var] != "":
            value: Any = env[var]
            if key == "maxSteps" and value.strip().lstrip("-").isdigit():
                value = int(value)
            out[key] = value
    return out


def load_settings(
    workspace: Path | None = None,
    *,
    editor: Mapping[str, Any] | None = None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> Settings:
    """Merge every layer for `workspace` (see the module docstring)."""
    env = os.environ if env is None else env
    warnings: list[SettingsWarning] = []
    values: dict[str, Any] = json.loads(json.dumps(DEFAULTS))
    sources = dict.fromkeys(values, "default")
    cwd = Path.cwd()
    layers: list[tuple[str, Mapping[str, Any], Path, bool]] = []
    user = user_file or user_settings_path(env)
    layers.append((str(user), _file_layer(user, warnings), Path.home(), False))
    if workspace is not None:
        ws_file = workspace_settings_path(workspace)
        layers.append((str(ws_file), _file_layer(ws_file, warnings), workspace, True))
    if editor:
        layers.append(("editor settings", editor, workspace or cwd, False))
    layers.append(("environment", _env_layer(env), cwd, False))
    if flags:
        given = {k: v for k, v in flags.items() if v is not None}
        layers.append(("command line", given, cwd, False))
    for source, layer, base, untrusted in layers:
        trusted = workspace is not None and is_trusted(workspace, values["trustedWorkspaces"])
        checked = _check(layer, source, base, warnings, untrusted=untrusted, trusted=trusted)
        _merge(values, checked)
        sources.update(dict.fromkeys(checked, source))
    return Settings(values, tuple(warnings), sources)
