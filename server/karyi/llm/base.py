"""The model-provider contract: a conversation in, a stream of typed events out.

Providers hide each SDK's shapes. The agent hands them provider-neutral `Message`s and
function declarations, and reads `StreamEvent`s: text and thinking deltas, native
tool-call fragments, usage, and the finish reason. Retrying, timeouts and
cancellation are the provider's job; a failure it cannot hide is a `ProviderError`
that says what happened and whether trying again may help.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from karyi.core.images import Image

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class NativeCall:
    """A function call the model made through the provider's tool-calling API."""

    id: str
    name: str
    arguments: str  # JSON text, as the provider sent it


@dataclass(frozen=True)
class Message:
    """One conversation message, independent of any provider's format.

    Text dialects use only `system`, `user` and `assistant` with `content`; the native
    dialect adds `tool_calls` on assistant messages and `tool` messages carrying
    `tool_call_id` (and `is_error`) with the result text.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[NativeCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    reasoning: tuple[Mapping[str, Any], ...] = ()
    """Opaque reasoning blocks (`ReasoningBlock`) the provider wants back with this message."""
    images: tuple[Image, ...] = ()
    """Pictures the user attached (user messages only), sent after `content`."""


@dataclass(frozen=True)
class TextChunk:
    """Visible reply text."""

    text: str


@dataclass(frozen=True)
class ThinkingChunk:
    """Reasoning text the provider marks as such (Anthropic thinking, reasoning_content)."""

    text: str


@dataclass(frozen=True)
class ReasoningBlock:
    """A finished reasoning block to send back, verbatim, with the assistant message.

    Anthropic signs each thinking block; with extended thinking on, a reply that used
    tools must come back with its thinking blocks (signature included) or the next call
    is refused. Other providers never produce these.
    """

    block: Mapping[str, Any]


@dataclass(frozen=True)
class ToolCallChunk:
    """A fragment of a native tool call in stream slot `slot`."""

    slot: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(frozen=True)
class ToolCallEnd:
    """The provider closed stream slot `slot` (its call is complete)."""

    slot: int


@dataclass(frozen=True)
class Usage:
    """Tokens used by one model call."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0


@dataclass(frozen=True)
class Finish:
    """The reply ended: `stop`, `length`, `tool_calls`, or the provider's own word."""

    reason: str


@dataclass(frozen=True)
class Retrying:
    """The provider hit a retryable failure before any output and will try again."""

    attempt: int
    delay: float
    error: str


StreamEvent = (
    TextChunk
    | ThinkingChunk
    | ReasoningBlock
    | ToolCallChunk
    | ToolCallEnd
    | Usage
    | Finish
    | Retrying
)


class ProviderError(Exception):
    """A model call failed in a way the provider could not hide.

    `kind` is one of `auth`, `rate_limit`, `server`, `connection`, `timeout`,
    `bad_request`, `malformed`, `config`; `retryable` says whether the same request
    may succeed later; `partial` is True when some output was already streamed.
    """

    def __init__(
        self, kind: str, message: str, *, retryable: bool = False, partial: bool = False
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.partial = partial


@dataclass(frozen=True)
class Request:
    """Everything one model call needs besides the provider's own configuration."""

    messages: Sequence[Message]
    tools: Sequence[Mapping[str, Any]] = ()  # function declarations, for the native dialect
    stop: Sequence[str] = ()
    max_tokens: int | None = None
    temperature: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


class Provider(ABC):
    """A model behind an API (or a replay of one)."""

    label: str
    """What to show the user, e.g. `openai:gpt-4.1` or `script:fix.yaml (replay)`."""

    context_window: int = 128_000
    """Tokens the model accepts; the agent compacts the history before reaching it."""

    accepts_images: bool = True
    """False for a model known to take text only (llm/vision.py): the agent says so
    and sends a note in place of each picture instead of a request that would fail."""

    @abstractmethod
    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Stream one reply. Cancelling the consumer cancels the HTTP request."""

    async def aclose(self) -> None:
        """Release connections (default: nothing to release)."""
        return None
