"""The JSON Schema of every settings key, and the defaults every layer starts from.

Each top-level key is checked against its schema on its own (see validation.py), so a
bad value drops that key only. The keys and their meaning are described in README.md
("Settings"), docs/models.md, docs/gateway.md, docs/extensions.md and docs/security.md.
"""

from __future__ import annotations

from typing import Any

from karyi.protocol import DIALECTS

_PERMISSION = {"type": "string", "enum": ["auto", "confirm", "deny"]}
_PATTERNS = {"type": "array", "items": {"type": "string"}}

_HOOKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1},
            "match": {"type": "string", "minLength": 1},
            "timeout": {"type": "number", "exclusiveMinimum": 0},
        },
        "required": ["command"],
        "additionalProperties": False,
    },
}

_PER_MILLION = {"type": "number", "minimum": 0}

SCHEMA: dict[str, dict[str, Any]] = {
    "prices": {
        "type": "object",
        "additionalProperties": {
            "type": "object",
            "properties": {
                "input": _PER_MILLION,
                "cachedInput": _PER_MILLION,
                "output": _PER_MILLION,
            },
            "required": ["input", "output"],
            "additionalProperties": False,
        },
        "description": "USD per million tokens by model (docs/workflow.md#cost)",
    },
    "agent": {
        "type": "object",
        "properties": {"maxCostPerTurn": {"type": ["number", "null"], "exclusiveMinimum": 0}},
        "additionalProperties": False,
    },
    "hooks": {
        "type": "object",
        "properties": {
            "beforeTool": _HOOKS,
            "afterTool": _HOOKS,
            "userPrompt": _HOOKS,
            "turnEnd": _HOOKS,
        },
        "additionalProperties": False,
        "description": "commands run around the agent (docs/workflow.md#hooks); user settings only",
    },
    "model": {
        "type": "string",
        "pattern": r"^[A-Za-z][\w-]*:.+$",
        "description": "provider:name, e.g. openai:gpt-4.1 or script:examples/demo/fix.yaml",
    },
    "models": {
        "type": "array",
        "items": {"type": "string", "pattern": r"^[A-Za-z][\w-]*:.+$"},
        "description": "models the editor's model picker offers besides `model` (provider:name)",
    },
    "baseUrl": {"type": ["string", "null"], "description": "the provider's base URL"},
    "apiKeyEnv": {"type": ["string", "null"], "description": "variable that holds the API key"},
    "dialect": {"type": "string", "enum": list(DIALECTS)},
    "profile": {"type": "string", "description": "tool profile name"},
    "agents": {
        "type": "object",
        "properties": {"maxParallel": {"type": "integer", "minimum": 1}},
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
    "diagnostics": {
        "type": "object",
        "properties": {
            "source": {
                "type": "string",
                "enum": ["auto", "editor", "servers", "off"],
                "description": "where problems after an edit come from: auto is the editor "
                "when there is one, else Karyi's language servers",
            },
            "waitSeconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 60},
            "servers": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "command": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                        "extensions": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["command", "extensions"],
                    "additionalProperties": False,
                },
                "description": "languageId -> the language server Karyi starts for it",
            },
        },
        "additionalProperties": False,
    },
    "maxSteps": {"type": "integer", "minimum": 1},
    "shell": {
        "type": "object",
        "properties": {
            "timeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
            "inactivitySeconds": {"type": "number", "exclusiveMinimum": 0},
            "oneShotIdleSeconds": {"type": "number", "exclusiveMinimum": 0},
            "outputLimit": {"type": "integer", "minimum": 200},
            "path": {"type": ["string", "null"]},
            "sandbox": {
                "type": "object",
                "properties": {
                    "mode": {
                        "type": "string",
                        "enum": ["auto", "on", "off"],
                        "description": "auto: sandboxed where bwrap works, else told; "
                        "on: refuse to run commands unsandboxed; off: no sandbox",
                    },
                    "network": {
                        "type": "boolean",
                        "description": "let sandboxed commands reach the network",
                    },
                    "writable": {
                        "type": "array",
                        "items": {"type": "string", "pattern": "^[/~]"},
                        "description": "absolute paths sandboxed commands may also write",
                    },
                    "autoApprove": {
                        "type": "boolean",
                        "description": "run commands no rule judges without asking, "
                        "inside the sandbox",
                    },
                },
                "additionalProperties": False,
            },
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
            "idleTimeoutSeconds": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "longest silence (no bytes) inside a streaming reply",
            },
            "readTimeoutSeconds": {
                "type": ["number", "null"],
                "exclusiveMinimum": 0,
                "description": "older name of idleTimeoutSeconds; wins when set",
            },
            "maxAttempts": {"type": "integer", "minimum": 1, "maximum": 20},
            "maxRetrySeconds": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "most time one model call spends on failed tries and waits",
            },
            "contextWindow": {"type": ["integer", "null"], "minimum": 1024},
            "promptCaching": {
                "type": "boolean",
                "description": "Anthropic: cache the system prompt and conversation prefix",
            },
            "images": {
                "type": ["boolean", "null"],
                "description": "whether the model takes pictures (null: known per model family)",
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
    "models": [],
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
    "diagnostics": {
        "source": "auto",
        "waitSeconds": 5,
        "servers": {"python": {"command": ["ruff", "server"], "extensions": [".py", ".pyi"]}},
    },
    "maxSteps": 50,
    "hooks": {"beforeTool": [], "afterTool": [], "userPrompt": [], "turnEnd": []},
    "prices": {},
    "agent": {"maxCostPerTurn": None},
    "shell": {
        "timeoutSeconds": 120,
        "inactivitySeconds": 10,
        "oneShotIdleSeconds": 60,
        "outputLimit": 16000,
        "path": None,
        "sandbox": {"mode": "auto", "network": False, "writable": [], "autoApprove": True},
    },
    "gateway": {
        "enableShell": False,
        "token": None,
        "maxRequestBytes": 1024 * 1024,
        "permissionTimeoutSeconds": 1800,
    },
    "llm": {
        "connectTimeoutSeconds": 10,
        "idleTimeoutSeconds": 60,
        "readTimeoutSeconds": None,
        "maxAttempts": 5,
        "maxRetrySeconds": 180,
        "contextWindow": None,
        "thinkingBudget": None,
        "promptCaching": True,
        "images": None,
    },
}
