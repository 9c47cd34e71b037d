"""Secure variables around a tool run: `$KARYI{NAME}` in, secret values never out.

Placeholders are replaced on a copy of the parameters just before the tool runs, and
everything the tool says (its live output and its result) is redacted before anyone
sees it. The call keeps its placeholders: what the model wrote, what the user approved
and what is logged never hold a value (see docs/security.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.secrets.redact import StreamRedactor
from karyi.secrets.substitute import UnknownVariable, placeholders, substitute
from karyi.secrets.vault import Vault
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext


def _no_secrets(_name: str) -> str | None:
    return None


def _lookup(ctx: ToolContext) -> Callable[[str], str | None]:
    return ctx.secrets.lookup if ctx.secrets is not None else _no_secrets


def unknown_variables(params: Mapping[str, Any], ctx: ToolContext) -> UnknownVariable | None:
    """Placeholders that name no variable, caught before anyone is asked to approve."""
    lookup = _lookup(ctx)
    missing = sorted(n for n in placeholders(params) if lookup(n) is None)
    return UnknownVariable(missing) if missing else None


async def run_with_secrets(tool: Tool, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
    """Run the tool on a copy of `params` with `$KARYI{NAME}` substituted, and redact
    every secret value from what it returns."""
    lookup = _lookup(ctx)
    try:
        params = substitute(params, lookup)
        if ctx.overrides:  # the user's own text, written on the preview's placeholders
            own = {
                path: (seen, substitute(text, lookup))
                for path, (seen, text) in ctx.overrides.items()
            }
            ctx = dataclasses.replace(ctx, overrides=own)
    except UnknownVariable as exc:
        return ToolResult.fail(ErrorCode.INVALID_TOOL_INPUT, str(exc))
    result = await tool.run(params, ctx)
    if ctx.secrets is not None:
        result = ctx.secrets.redactor.redact_result(result)
    return result


class RedactedOutput:
    """A call's live output, redacted as it streams (a secret split across two chunks
    is still caught), passed on to `sink`."""

    def __init__(self, secrets: Vault | None, sink: Callable[[str], None]) -> None:
        self._stream = StreamRedactor(secrets.redactor) if secrets is not None else None
        self._sink = sink

    def __call__(self, text: str) -> None:
        safe = self._stream.feed(text) if self._stream is not None else text
        if safe:
            self._sink(safe)

    def flush(self) -> None:
        """Pass on what the redactor still holds back (the call has finished)."""
        rest = self._stream.flush() if self._stream is not None else ""
        if rest:
            self._sink(rest)
