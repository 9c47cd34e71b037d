"""The objects of the settings, typed: one attrs class per object, one field per key.

model.py puts them together in `SettingsModel`, the one source of the settings (see
there). Field names are the JSON keys in snake_case (`timeout_seconds` is
`timeoutSeconds`); metadata holds the constraints and the description
(core/typed_schema.py); `closed` classes take no other keys.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import attrs

DialectName = Literal["toolsxml", "agentxml", "toolcall", "native"]
"""The dialects of karyi.protocol.DIALECTS, in its order (a test keeps them equal)."""
Permission = Literal["auto", "confirm", "deny"]
MODEL_PATTERN = r"^[A-Za-z][\w-]*:.+$"
_DOMAIN = r"^(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$"
OMIT_ONLY: dict[str, Any] = {"nullable": False}
"""Optional but never null: leave it out instead."""


def _meta(**constraints: Any) -> dict[str, Any]:
    return constraints


def _opt(description: str) -> dict[str, Any]:
    """An optional key that may only be left out, never null."""
    return {**OMIT_ONLY, "description": description}


def _seconds(description: str | None = None) -> dict[str, Any]:
    """A positive duration in seconds."""
    out: dict[str, Any] = {"exclusive_minimum": 0}
    if description:
        out["description"] = description
    return out


@attrs.frozen(kw_only=True)
class ModelPrice:
    """A model's price in USD per million tokens (a missing `cachedInput` is `input`)."""

    closed: ClassVar[bool] = True
    input: float = attrs.field(metadata=_meta(minimum=0, description="input tokens"))
    cached_input: float | None = attrs.field(
        default=None, metadata={**OMIT_ONLY, **_meta(minimum=0, description="cached input tokens")}
    )
    output: float = attrs.field(metadata=_meta(minimum=0, description="output tokens"))


@attrs.frozen(kw_only=True)
class CostLimit:
    """`agent`: limits of one turn (docs/workflow.md#cost)."""

    closed: ClassVar[bool] = True
    max_cost_per_turn: float | None = attrs.field(
        default=None,
        metadata=_meta(exclusive_minimum=0, description="USD a turn may cost before it stops"),
    )


@attrs.frozen(kw_only=True)
class Hook:
    """One command run around the agent (docs/workflow.md#hooks)."""

    closed: ClassVar[bool] = True
    command: str = attrs.field(metadata=_meta(min_length=1, description="the shell command"))
    match: str | None = attrs.field(
        default=None,
        metadata={**OMIT_ONLY, "min_length": 1, "description": "tool name pattern (default *)"},
    )
    timeout: float | None = attrs.field(
        default=None, metadata={**OMIT_ONLY, **_seconds("seconds it may run (default 30)")}
    )


@attrs.frozen(kw_only=True)
class Hooks:
    """`hooks`: the commands run at each point of a turn."""

    closed: ClassVar[bool] = True
    before_tool: list[Hook] = attrs.field(
        factory=list, metadata=_meta(description="before a tool call; exit 2 blocks it")
    )
    after_tool: list[Hook] = attrs.field(
        factory=list, metadata=_meta(description="after a tool call; its output joins the result")
    )
    user_prompt: list[Hook] = attrs.field(
        factory=list, metadata=_meta(description="before a message reaches the model")
    )
    turn_end: list[Hook] = attrs.field(factory=list, metadata=_meta(description="after a turn"))


@attrs.frozen(kw_only=True)
class Memory:
    """`memory`: notes the agent keeps for itself across sessions (docs/extensions.md#memory)."""

    closed: ClassVar[bool] = True
    auto: bool = attrs.field(
        default=False,
        metadata=_meta(
            description="the agent may add notes with `remember`; loaded at each session's start"
        ),
    )
    max_chars: int = attrs.field(
        default=8000,
        metadata=_meta(minimum=0, description="characters of the notes the prompt carries"),
    )


@attrs.frozen(kw_only=True)
class AgentSpec:
    """A named agent of `agents` (a subagent or a replacement of the default one)."""

    closed: ClassVar[bool] = True
    instructions: str | None = attrs.field(default=None, metadata=_opt("its system prompt"))
    description: str | None = attrs.field(default=None, metadata=_opt("when to use it"))
    model: str | None = attrs.field(default=None, metadata=_opt("provider:name"))
    dialect: DialectName | None = attrs.field(default=None, metadata=_opt("its dialect"))
    profile: str | None = attrs.field(default=None, metadata=_opt("its tool profile"))
    tools: list[str] | None = attrs.field(default=None, metadata=_opt("the tools it may use"))
    max_steps: int | None = attrs.field(
        default=None, metadata={**_opt("model calls per run"), "minimum": 1}
    )
    enabled: bool | None = attrs.field(default=None, metadata=_opt("false: switched off"))


@attrs.frozen(kw_only=True)
class Agents:
    """`agents`: `maxParallel` background tasks, and any other key a named agent."""

    rest: ClassVar[str] = "named"
    max_parallel: int | None = attrs.field(
        default=None,
        metadata={
            **OMIT_ONLY,
            "minimum": 1,
            "description": "background tasks run at once (default: one per CPU core, 1 to 4)",
        },
    )
    named: dict[str, AgentSpec] = attrs.Factory(dict)


@attrs.frozen(kw_only=True)
class CommandRules:
    """`permissions.commands`: shell command patterns allowed, denied or asked about."""

    closed: ClassVar[bool] = True
    allow: list[str] = attrs.field(factory=list, metadata=_meta(description="run without asking"))
    deny: list[str] = attrs.field(factory=list, metadata=_meta(description="never run"))
    confirm: list[str] = attrs.field(factory=list, metadata=_meta(description="always ask"))


@attrs.frozen(kw_only=True)
class Permissions:
    """`permissions`: per tool `auto`, `confirm` or `deny`; shell command rules."""

    closed: ClassVar[bool] = True
    tools: dict[str, Permission] = attrs.field(
        factory=dict, metadata=_meta(description="tool name -> auto, confirm or deny")
    )
    commands: CommandRules = attrs.Factory(CommandRules)


@attrs.frozen(kw_only=True)
class ToolCommands:
    """`tools`: tools discovered and called through commands (docs/extensions.md)."""

    closed: ClassVar[bool] = True
    discovery_command: str | None = attrs.field(
        default=None, metadata=_meta(description="prints the tools' declarations")
    )
    call_command: str | None = attrs.field(
        default=None, metadata=_meta(description="runs one discovered tool")
    )
    timeout_seconds: float = attrs.field(
        default=60, metadata=_seconds("how long a discovery or call command may run")
    )


@attrs.frozen(kw_only=True)
class WebSearch:
    """`web.search`: the search backend of `web_search` (docs/tools.md)."""

    closed: ClassVar[bool] = True
    backend: Literal["searxng", "bocha"]
    url: str | None = attrs.field(default=None, metadata={**OMIT_ONLY, "pattern": "^https?://"})
    key_variable: str | None = attrs.field(
        default=None, metadata={**OMIT_ONLY, "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"}
    )
    timeout_seconds: float | None = attrs.field(default=None, metadata={**OMIT_ONLY, **_seconds()})


@attrs.frozen(kw_only=True)
class Web:
    """`web`: search backend, address policy and fetch limits."""

    closed: ClassVar[bool] = True
    search: WebSearch | None = attrs.field(default=None, metadata=OMIT_ONLY)
    allow_private: bool = attrs.field(
        default=False, metadata=_meta(description="let fetches reach private addresses")
    )
    allowed_hosts: list[str] = attrs.field(
        factory=list, metadata=_meta(description="private hosts fetches may reach")
    )
    timeout_seconds: float = attrs.field(default=30, metadata=_seconds("one fetch, in seconds"))
    max_bytes: int = attrs.field(
        default=5_000_000, metadata=_meta(minimum=1024, description="largest body read")
    )
    max_redirects: int = attrs.field(
        default=5, metadata=_meta(minimum=0, maximum=20, description="redirects followed")
    )
    max_chars: int = attrs.field(
        default=60_000, metadata=_meta(minimum=1000, description="characters of a page shown")
    )


@attrs.frozen(kw_only=True)
class Sandbox:
    """`shell.sandbox`: the command sandbox (docs/security.md#the-command-sandbox)."""

    closed: ClassVar[bool] = True
    mode: Literal["auto", "on", "off"] = attrs.field(
        default="auto",
        metadata=_meta(
            description="auto: sandboxed where bwrap works, else told; "
            "on: refuse to run commands unsandboxed; off: no sandbox"
        ),
    )
    network: bool = attrs.field(
        default=False, metadata=_meta(description="let sandboxed commands reach the network")
    )
    allowed_domains: list[str] = attrs.field(
        factory=list,
        metadata=_meta(
            items={"pattern": _DOMAIN},
            description="host names sandboxed commands may reach through Karyi's proxy "
            "(*.example.com: any name under it)",
        ),
    )
    denied_domains: list[str] = attrs.field(
        factory=list,
        metadata=_meta(
            items={"pattern": _DOMAIN}, description="host names the proxy always refuses"
        ),
    )
    writable: list[str] = attrs.field(
        factory=list,
        metadata=_meta(
            items={"pattern": "^[/~]"},
            description="absolute paths sandboxed commands may also write",
        ),
    )
    auto_approve: bool = attrs.field(
        default=True,
        metadata=_meta(
            description="run commands no rule judges without asking, inside the sandbox"
        ),
    )


@attrs.frozen(kw_only=True)
class Shell:
    """`shell`: how commands run (docs/tools.md)."""

    closed: ClassVar[bool] = True
    timeout_seconds: float = attrs.field(default=120, metadata=_seconds("one command in all"))
    inactivity_seconds: float = attrs.field(
        default=10, metadata=_seconds("silence after which a terminal command returns running")
    )
    one_shot_idle_seconds: float = attrs.field(
        default=60, metadata=_seconds("silence after which a one-shot command is killed")
    )
    output_limit: int = attrs.field(
        default=16000,
        metadata=_meta(minimum=200, description="characters of output the model sees"),
    )
    path: str | None = attrs.field(
        default=None, metadata=_meta(description="the terminal's shell (default bash)")
    )
    sandbox: Sandbox = attrs.Factory(Sandbox)


@attrs.frozen(kw_only=True)
class Gateway:
    """`gateway`: the HTTP gateway (docs/gateway.md)."""

    closed: ClassVar[bool] = True
    enable_shell: bool = attrs.field(
        default=False, metadata=_meta(description="offer the shell tool to HTTP clients")
    )
    token: str | None = attrs.field(
        default=None,
        metadata=_meta(
            min_length=16,
            description="bearer token every request must carry (KARYI_GATEWAY_TOKEN wins)",
        ),
    )
    max_request_bytes: int = attrs.field(
        default=1024 * 1024, metadata=_meta(minimum=1024, description="largest request body")
    )
    permission_timeout_seconds: float | None = attrs.field(
        default=1800,
        metadata=_seconds("a turn paused this long for a permission answer is cancelled"),
    )


@attrs.frozen(kw_only=True)
class Llm:
    """`llm`: how model requests are made (docs/reliability.md, docs/models.md)."""

    closed: ClassVar[bool] = True
    connect_timeout_seconds: float = attrs.field(
        default=10, metadata=_seconds("connecting to the provider")
    )
    idle_timeout_seconds: float = attrs.field(
        default=60, metadata=_seconds("longest silence (no bytes) inside a streaming reply")
    )
    read_timeout_seconds: float | None = attrs.field(
        default=None, metadata=_seconds("older name of idleTimeoutSeconds; wins when set")
    )
    max_attempts: int = attrs.field(
        default=5, metadata=_meta(minimum=1, maximum=20, description="tries of one model call")
    )
    max_retry_seconds: float = attrs.field(
        default=180, metadata=_seconds("most time one model call spends on failed tries and waits")
    )
    context_window: int | None = attrs.field(
        default=None,
        metadata=_meta(minimum=1024, description="tokens the model takes (null: known per model)"),
    )
    thinking_budget: int | None = attrs.field(
        default=None,
        metadata=_meta(
            minimum=1024,
            maximum=32000,
            description="Anthropic extended thinking: tokens the model may think for",
        ),
    )
    prompt_caching: bool = attrs.field(
        default=True,
        metadata=_meta(description="Anthropic: cache the system prompt and conversation prefix"),
    )
    images: bool | None = attrs.field(
        default=None,
        metadata=_meta(
            description="whether the model takes pictures (null: known per model family)"
        ),
    )
