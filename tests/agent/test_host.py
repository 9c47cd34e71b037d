"""AgentHost: loading sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.agent.host import AgentHost
from karyi.agent.runtime import Runtime
from karyi.llm.base import ProviderError
from karyi.settings import Settings


def test_a_new_session_whose_model_cannot_be_made_leaves_no_session_behind(
    ws_root: Path,
) -> None:
    runtime = Runtime.open(ws_root, Settings())

    def unusable() -> None:
        raise ProviderError("config", "no API key for openai:gpt-4.1")

    host = AgentHost(runtime, provider_factory=unusable)  # type: ignore[arg-type]
    try:
        for _ in range(3):
            with pytest.raises(ProviderError):
                host.session(None)
        assert runtime.store.all() == []
        assert host.loaded() == []
    finally:
        runtime.close()
