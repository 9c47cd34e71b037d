"""What a call produces and how it is cleared: the result and permission types.

Every layer speaks these: the shell's command rules return a `Permission`, the secrets
layer redacts a `ToolResult`, tools return them, the agent records them and every front
end renders `ToolResult.to_dict()`. They live here so none of those layers has to import
the tool contract to say "allowed" or "failed".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from karyi.core.errors import ErrorCode


class Permission(StrEnum):
    """Whether a call runs at once, waits for the user, or is refused."""

    AUTO = "auto"
    CONFIRM = "confirm"
    DENY = "deny"


@dataclass(frozen=True)
class PermissionVerdict:
    """A tool's own judgement of one call (`Tool.permission_for`), with the reason.

    `permission` None means "no verdict": the user's setting or the tool's default
    applies, and `reason` still tells the user why the call was not cleared.
    """

    permission: Permission | None
    reason: str


@dataclass(frozen=True)
class ToolError:
    """A failure's machine code and the sentence that explains it."""

    code: str
    message: str


class ToolErrorJson(TypedDict):
    """A failure in a result's JSON: its machine code and the sentence."""

    code: str
    message: str


class ToolResultJson(TypedDict):
    """A result's canonical JSON form (docs/tools.md); `status` only when there is one."""

    success: bool
    llm_content: str
    display: str | dict[str, Any]
    data: Any
    error: ToolErrorJson | None
    metadata: dict[str, Any]
    status: NotRequired[str]


@dataclass
class ToolResult:
    """What a call produced: text for the model, a view for the user, data for programs."""

    success: bool
    llm_content: str
    display: str | dict[str, Any] = ""
    data: Any = None
    error: ToolError | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    status: str = ""

    @classmethod
    def ok(
        cls,
        llm_content: str,
        *,
        display: str | dict[str, Any] = "",
        data: Any = None,
        status: str = "",
        **metadata: Any,
    ) -> ToolResult:
        """A successful result."""
        return cls(True, llm_content, display or llm_content, data, None, metadata, status)

    @classmethod
    def fail(
        cls,
        code: ErrorCode | str,
        message: str,
        *,
        llm_content: str | None = None,
        display: str | dict[str, Any] = "",
        data: Any = None,
        **metadata: Any,
    ) -> ToolResult:
        """A failed result; `llm_content` defaults to the message."""
        return cls(
            False,
            message if llm_content is None else llm_content,
            display or message,
            data,
            ToolError(str(code), message),
            metadata,
        )

    def to_dict(self) -> ToolResultJson:
        """The canonical JSON form every front end and the gateway return (docs/tools.md)."""
        out: ToolResultJson = {
            "success": self.success,
            "llm_content": self.llm_content,
            "display": self.display,
            "data": self.data,
            "error": (
                {"code": self.error.code, "message": self.error.message} if self.error else None
            ),
            "metadata": self.metadata,
        }
        if self.status:
            out["status"] = self.status
        return out
