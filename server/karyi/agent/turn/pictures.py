"""What the user is told when their pictures cannot reach the model.

The provider already sends a note in place of each picture to a model that takes
none (llm/vision.py); this says so to the user, once per turn that carries pictures,
so the answer that follows is not mistaken for one that saw them (docs/images.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from karyi.agent.events import Event, Notice
from karyi.core.images import Image
from karyi.llm.base import Provider


def picture_notice(
    provider: Provider, images: Sequence[Image], emit: Callable[[Event], None]
) -> None:
    """Emit a `Notice("images", …)` when `images` go to a model that cannot see them."""
    if not images or provider.accepts_images:
        return
    names = ", ".join(i.describe() for i in images)
    emit(
        Notice(
            "images",
            f"{provider.label} does not take images, so it gets a note in place of {names}. "
            "Pick a model that reads images, or set llm.images to true if this one does.",
        )
    )
