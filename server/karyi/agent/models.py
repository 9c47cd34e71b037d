"""The models a session may switch to: the settings' list plus what the server lists.

The editor's model picker (docs/models.md#picker) offers the configured `model`, the
`models` setting, and, when the configured model is behind an OpenAI-compatible
server (Ollama, vLLM, llama.cpp, LM Studio, OpenAI), the ids that server lists at
`GET /models`, as `prefix:id`. The server's list is fetched with a short timeout and
kept for `CACHE_SECONDS`, so opening the picker again costs nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
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
    _reading: dict[str, asyncio.Future[tuple[list[str], str]]] = field(default_factory=dict)

    async def models(
        self, settings: Settings, env: Mapping[str, str] | None = None
    ) -> tuple[list[ModelEntry], str]:
        """Every model on offer (configured first, no repeats) and a note when the
        server's list could not be read. `env` holds the key (default: os.environ)."""
        listed, note = await self._listed(settings, env)
        return _entries(settings, listed), note

    def known(
        self, settings: Settings, env: Mapping[str, str] | None = None
    ) -> tuple[list[ModelEntry], bool]:
        """The models on offer without asking a server (the configured ones, and the
        server's list while it is cached), and whether that is all of them: False when
        `models` would still read the server's list (ACP announces it afterwards)."""
        source = self._source(settings, env)
        if not isinstance(source, tuple):
            return _entries(settings, []), True
        prefix, endpoint = source
        cached = self._fresh(endpoint)
        if cached is None:
            return _entries(settings, []), False
        return _entries(settings, [f"{prefix}:{i}" for i in cached[1]]), True

    def _source(
        self, settings: Settings, env: Mapping[str, str] | None
    ) -> tuple[str, Endpoint] | str:
        """(prefix, endpoint) of a server that lists models, else why there is none."""
        prefix = settings.model.partition(":")[0]
        fam = family(prefix)
        if fam is None or fam.api != "openai":
            return ""
        try:
            return prefix, endpoint_for(settings, env)
        except ProviderError as exc:
            return exc.message

    def _fresh(self, endpoint: Endpoint) -> tuple[float, list[str], str] | None:
        cached = self._cache.get(endpoint.base_url or "")
        if cached is not None and self.clock() - cached[0] < CACHE_SECONDS:
            return cached
        return None

    async def _listed(
        self, settings: Settings, env: Mapping[str, str] | None
    ) -> tuple[list[str], str]:
        source = self._source(settings, env)
        if not isinstance(source, tuple):
            return [], source
        prefix, endpoint = source
        cached = self._fresh(endpoint)
        if cached is None:
            cached = await self._read(endpoint)
        return [f"{prefix}:{i}" for i in cached[1]], cached[2]

    async def _read(self, endpoint: Endpoint) -> tuple[float, list[str], str]:
        """Ask the server, once for every caller waiting on the same address (editors
        open several sessions at once)."""
        key = endpoint.base_url or ""
        reading = self._reading.get(key)
        if reading is None:
            reading = asyncio.ensure_future(self.lister(endpoint))
            self._reading[key] = reading
            reading.add_done_callback(lambda _: self._reading.pop(key, None))
        ids, note = await asyncio.shield(reading)
        cached = (self.clock(), ids, note)
        self._cache[key] = cached
        return cached


def _entries(settings: Settings, listed: list[str]) -> list[ModelEntry]:
    """The configured models first, then the server's not configured, no repeats."""
    entries = [ModelEntry(m, "settings") for m in dict.fromkeys([settings.model, *settings.models])]
    known = {e.id for e in entries}
    return entries + [ModelEntry(m, "server") for m in dict.fromkeys(listed) if m not in known]
