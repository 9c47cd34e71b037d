"""What every command's environment is given and denied (docs/security.md#api-keys)."""

from __future__ import annotations

from karyi.llm.families import FAMILIES

FIXED_ENV = {"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "KARYI_AGENT_SHELL": "1"}
"""Set for every command: no pagers, no full-screen terminal features."""
HIDDEN_ENV = ("KARYI_API_KEY", *sorted({f.key_env for f in FAMILIES.values() if f.key_env}))
"""Karyi's own model credentials never reach a command (nor a discovery command)."""
