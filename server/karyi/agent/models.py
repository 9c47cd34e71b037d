"""The models a session may switch to: the settings' list plus what the server lists.

The editor's model picker (docs/models.md#picker) offers the configured `model`, the
`models` setting, and, when the configured model is behind an OpenAI-compatible
server (Ollama, vLLM, llama.cpp, LM Studio, OpenAI), the ids that server lists at
`GET /models`, as `prefix:id`. The server's list is fetched with a short timeout and
kept for `CACHE_SECONDS`, so opening the picker again costs nothing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from karyi.llm.base import ProviderError
from karyi.llm.catalog import list_models
from karyi.llm.endpoint import Endpoint
from karyi.llm.factory import endpoint_for
from karyi.llm.families import context_window, family
from karyi.llm.vision import accepts_images
from karyi.settings import Settings

CACHE_SECONDS = 300.0
Lister = Callable[[Endpoint], Awaitable[tuple[list[str], str]]]


@dataclass(frozen=True)
class ModelEntry:
    """One model the picker offers: `provider:name`, and where it was found."""

    id: str
    source: str
    """`settings` (model or models) or `server` (the endpoint's list)."""


def model_facts(settings: Settings, model: str | None = None) -> tuple[int, bool]:
    """(context window, takes pictures) of `model` (default: the configured one), as the
    factory would set them, without making a provider."""
    s = settings.for_model(model)
    name = s.model.partition(":")[2]
    return s.llm.context_window or context_window(name), accepts_images(name, s.llm.images)


@dataclass
class ModelCatalog:
    """The models on offer, with each server's list cached by its address."""

    lister: Lister = list_models
    clock: Callable[[], float] = time.monotonic
    _cache: dict[str, tuple[float, list[str], str]] = field(default_factory=dict)

    async def models(self, settings: Settings) -> tuple[list[ModelEntry], str]:
        """Every model on offer (configured first, no repeats) and a note when the
        server's list could not be read."""
        entries = [
            ModelEntry(m, "settings") for m in dict.fromkeys([settings.model, *settings.models])
        ]
        listed, note = await self._listed(settings)
        known = {e.id for e in entries}
        entries += [ModelEntry(m, "server") for m in listed if m not in known]
        return entries, note

    async def _listed(self, settings: Settings) -> tuple[list[str], str]:
        prefix = settings.model.partition(":")[0]
        fam = family(prefix)
        if fam is None or fam.api != "openai":
            return [], ""
        try:
            endpoint = endpoint_for(settings)
        except ProviderError as exc:
            return [], exc.message
        key = endpoint.base_url or ""
        cached = self._cache.get(key)
        if cached is not None and self.clock() - cached[0] < CACHE_SECONDS:
            ids, note = cached[1], cached[2]
        else:
            ids, note = await self.lister(endpoint)
            self._cache[key] = (self.clock(), ids, note)
        return [f"{prefix}:{i}" for i in ids], note
