"""Which models take pictures, and what a text-only model gets in their place.

Most current chat models read images (GPT-4o/4.1/5, o1/o3/o4, Claude 3 and later,
Gemini, Llama 3.2 Vision, Qwen-VL, Pixtral, LLaVA). A few families are known to take
text only; a request with an image part to them fails with an unhelpful 400. For
those, `accepts_images` is False, and the provider sends `image_note` in place of each
picture so the conversation still reads right (the agent also tells the user, once per
turn). Unknown names are assumed to take images: the server's own error is clearer
than a wrong refusal. `llm.images` (true/false) overrides the guess (docs/images.md).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from karyi.llm.base import Message

_TEXT_ONLY = re.compile(
    r"""^(
        deepseek-(chat|coder|reasoner|r1|v2|v3)   # DeepSeek's API and its open models
      | gpt-3\.5 | gpt-4(-0613|-0314|-32k)?$      # the first GPT-4 took no images
      | o1-mini | o3-mini
      | codestral | mistral-(small|medium|large)-(2[0-3]|latest) | codellama
      | (qwen|qwq)(?!.*vl)                         # Qwen without VL
      | llama-?[23](\.1|\.3)?(?!.*vision)          # Llama 2, 3, 3.1, 3.3 (not 3.2 Vision)
      | phi-?[34](?!.*vision) | gemma-?2 | starcoder | yi-
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def accepts_images(model: str, override: bool | None = None) -> bool:
    """Whether `model` (a name without the provider prefix) takes pictures.
    `override` is the user's `llm.images` setting, when set."""
    if override is not None:
        return override
    name = model.lower().rsplit("/", 1)[-1]
    return not _TEXT_ONLY.match(name)


def image_note(label: str, description: str) -> str:
    """The text a text-only model reads where a picture was."""
    return f"[The user attached an image, {description}, which {label} cannot see.]"


def without_images(messages: Sequence[Message], label: str) -> list[Message]:
    """The messages with every picture replaced by `image_note` text."""
    out: list[Message] = []
    for message in messages:
        if not message.images:
            out.append(message)
            continue
        notes = "\n".join(image_note(label, i.describe()) for i in message.images)
        content = f"{message.content}\n\n{notes}" if message.content else notes
        out.append(dataclasses.replace(message, content=content, images=()))
    return out
