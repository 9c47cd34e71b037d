"""An MCP `CallToolResult` as a Karyi `ToolResult`.

Text blocks become the text the model reads. An image or audio block cannot travel in a
tool result of every dialect, so the model is told it is there (type, MIME type, size)
while the data is kept in `data.content` for front ends to show. Embedded text
resources are shown with their URI; binary ones and resource links are described.
Structured content is shown as JSON when the server sent no text. An `isError` result
is a failed result with the server's message.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp_types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.workspace.files import human_size

MAX_TEXT = 100_000


def _size(data: str) -> str:
    try:
        return human_size(len(base64.b64decode(data, validate=False)))
    except (binascii.Error, ValueError):
        return f"{len(data)} characters of base64"


def _block(block: Any) -> tuple[str, dict[str, Any]]:
    """One content block: (text for the model, JSON kept in data)."""
    if isinstance(block, TextContent):
        return block.text, {"type": "text", "text": block.text}
    if isinstance(block, ImageContent | AudioContent):
        kind = "image" if isinstance(block, ImageContent) else "audio"
        text = f"[{kind}: {block.mime_type}, {_size(block.data)}; shown to the user, not to you]"
        return text, {"type": kind, "mimeType": block.mime_type, "data": block.data}
    if isinstance(block, ResourceLink):
        mime = f", {block.mime_type}" if block.mime_type else ""
        return (
            f"[resource link: {block.name} {block.uri}{mime}]",
            {"type": "resource_link", "uri": str(block.uri), "name": block.name},
        )
    if isinstance(block, EmbeddedResource):
        res = block.resource
        if isinstance(res, TextResourceContents):
            return (
                f"[resource {res.uri}]\n{res.text}",
                {"type": "resource", "uri": str(res.uri), "text": res.text},
            )
        mime = res.mime_type or "binary"
        return (
            f"[resource {res.uri}: {mime}, {_size(res.blob)}; not shown]",
            {"type": "resource", "uri": str(res.uri), "mimeType": mime, "blob": res.blob},
        )
    return f"[{getattr(block, 'type', 'unknown')} content]", {"type": "unknown"}


def to_result(name: str, result: CallToolResult) -> ToolResult:
    """See the module docstring; `name` is the Karyi tool name."""
    texts: list[str] = []
    blocks: list[dict[str, Any]] = []
    for block in result.content:
        text, kept = _block(block)
        texts.append(text)
        blocks.append(kept)
    if not any(isinstance(b, TextContent) for b in result.content) and (
        result.structured_content is not None
    ):
        texts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    text = "\n".join(texts).strip()
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"\n[truncated: {len(text) - MAX_TEXT:,} more characters]"
    data = {"content": blocks, "structuredContent": result.structured_content}
    if result.is_error:
        message = f"{name}: the server reported an error: {text or '(no message)'}"
        return ToolResult.fail(ErrorCode.TOOL_ERROR, message, data=data)
    return ToolResult.ok(text or "(the tool returned no content)", data=data)
