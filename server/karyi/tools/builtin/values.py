"""karyi `<get_value key reason note secret>`: ask the user for a secret (or, with
`secret="false"`, for a plain value the model then reads).

The request goes to the front end (`ToolContext.ask_value`: the terminal for the CLI,
the editor for the language server), which asks the user without showing the model
anything. The value goes into the session's vault (and into the store, with its note,
when the user chooses to save it). The model only learns that `$KARYI{KEY}` now works.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.secrets.request import CannotAsk, ValueRequest
from karyi.secrets.store import SecretStoreError
from karyi.secrets.substitute import NAME
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class


@param_class
class GetValueParams(ToolParams):
    """`get_value`'s parameters."""

    key: str = arg(pattern=NAME.pattern, description="the variable's name, e.g. GITHUB_TOKEN")
    reason: str = arg(min_length=1, description="why it is needed")
    note: str = arg(implied="", description="a note to store with it if saved")
    secret: bool = arg(
        implied=True,
        description="false for a value that is not a secret (a URL, a user name): "
        "you then get the answer itself instead of a placeholder (default true)",
    )


class GetValue(TypedTool[GetValueParams]):
    """Asks the user for a secret value, usable afterwards as `$KARYI{KEY}`."""

    name = "get_value"
    display_name = "Ask for a secret"
    description = (
        "Ask the user for a secret (a token, a password) that a later call needs. The user "
        "types it where you cannot see it; from your next turn on, write $KARYI{KEY} in any "
        "parameter of any tool and it is replaced by the value when the tool runs (tool "
        "output shows $KARYI{KEY} instead of the value). Never ask for a secret in plain text."
    )
    example = {
        "key": "NPM_TOKEN",
        "reason": "npm needs it to publish the package",
        "note": "token for publishing karyi-agent",
    }

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Ask the user for {a.key}: {a.reason}"

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """One question to the user at a time."""
        return frozenset(["user:prompt"])

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Ask, store, and tell the model only the placeholder."""
        a = self.args(params)
        key = a.key
        vault = ctx.secrets
        if vault is None or ctx.ask_value is None:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR,
                f"nobody can be asked for {key} here (no interactive user); the user can store "
                f"it with `karyi var set {key}`, then $KARYI{{{key}}} works",
            )
        secret = a.secret
        exists = vault.exists(key) if secret else False
        request = ValueRequest(
            key,
            a.reason,
            a.note,
            exists=exists,
            session_id=ctx.session_id,
            call_id=ctx.call_id,
            secret=secret,
        )
        try:
            answer = await ctx.ask_value(request)
        except CannotAsk as exc:
            raise ToolFailure(
                ErrorCode.TOOL_ERROR,
                f"{exc}; the user can store it with `karyi var set {key}`, then "
                f"$KARYI{{{key}}} works",
            ) from None
        if answer is None:
            raise ToolFailure(ErrorCode.REJECTED, f"the user did not provide {key}")
        if not secret:
            return ToolResult.ok(f"{key}: {answer.value}", data={"key": key, "value": answer.value})
        if not answer.value and not exists:
            raise ToolFailure(ErrorCode.REJECTED, f"the user gave an empty value for {key}")
        kept = "kept the value already stored"
        if answer.value:
            vault.remember(key, answer.value)
            kept = "for this session only"
            if answer.save:
                try:
                    where = vault.save(key, answer.value, answer.note or request.note)
                    kept = f"saved for later sessions ({where})"
                except SecretStoreError as exc:
                    kept = f"for this session only (saving failed: {exc})"
        text = (
            f"$KARYI{{{key}}} is ready ({kept}). Write $KARYI{{{key}}} in a tool call "
            "where the value is needed; it is replaced when the tool runs and never shown."
        )
        return ToolResult.ok(text, data={"key": key, "ready": True, "stored": kept})
