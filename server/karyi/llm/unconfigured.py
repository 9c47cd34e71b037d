"""A model the settings name but Karyi cannot reach yet (no API key, an unknown prefix).

A front end that must open sessions before the user signed in (ACP: the editor lists,
opens and configures sessions, then asks for sign-in when a prompt needs it) holds this
provider in their place: every model call fails with the error that says what to set,
and the front end builds the real provider again once the key is there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from karyi.llm.base import Provider, ProviderError, Request, StreamEvent
from karyi.llm.factory import ProviderSettings, create_provider, missing_key
from karyi.llm.families import context_window


class UnconfiguredProvider(Provider):
    """Stands in for the model of `label` until it can be created."""

    def __init__(self, label: str, error: ProviderError, *, key_missing: bool) -> None:
        self.label = label
        self.error = error
        self.key_missing = key_missing
        """True when what is missing is only the API key (ACP answers `auth_required`)."""
        self.context_window = context_window(label.partition(":")[2])

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Fail at once with the configuration error (before any event)."""
        nothing: tuple[StreamEvent, ...] = ()
        for event in nothing:
            yield event
        raise self.error


def provider_or_unconfigured(
    settings: ProviderSettings, env: Mapping[str, str] | None = None
) -> Provider:
    """`create_provider`, or an `UnconfiguredProvider` saying why it could not be made."""
    try:
        return create_provider(settings, env)
    except ProviderError as exc:
        if exc.kind != "config":
            raise
        absent = missing_key(settings, env) is not None
        return UnconfiguredProvider(settings.model, exc, key_missing=absent)
