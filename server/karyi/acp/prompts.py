"""A `session/prompt`'s content blocks as the user's message and its context.

Text is the message; a resource link names a file the model may read; an embedded
resource (the editor's selection or file) is context, quoted with its URI. An image
becomes a checked picture sent with the message (docs/images.md; a text-only model gets
a note in its place). Audio is not declared in the prompt capabilities, so a client that
sends it anyway gets a note in the message instead of a silent drop.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote, urlparse

from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from karyi.core.images import Image, checked_count, image_from_base64

Block = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)


def uri_path(uri: str) -> str:
    """`file:///a/b.py` → `/a/b.py`; any other URI as given."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def prompt_text(blocks: Sequence[Block]) -> tuple[str, str]:
    """(message, context) for `Agent.run`."""
    message: list[str] = []
    context: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            message.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            message.append(f"@{uri_path(block.uri)}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            res = block.resource
            where = uri_path(res.uri)
            if isinstance(res, TextResourceContents):
                context.append(f"Context from {where}:\n```\n{res.text}\n```")
            else:
                context.append(f"[{where}: binary content omitted]")
        elif not isinstance(block, ImageContentBlock):
            message.append(f"[{block.type} omitted: this model reads text only]")
    return " ".join(part for part in message if part), "\n\n".join(context)


def prompt_images(blocks: Sequence[Block]) -> tuple[Image, ...]:
    """The pictures of a prompt, checked (ImageError names what is wrong with one)."""
    images = [
        image_from_base64(block.data, name=block.uri or "", mime=block.mime_type)
        for block in blocks
        if isinstance(block, ImageContentBlock)
    ]
    return checked_count(images)
