"""docs/tools.md stays in step with the registry: every tool and parameter is named."""

from __future__ import annotations

import re
from pathlib import Path

from karyi.tools.profiles import builtin_registry

DOC = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def sections() -> dict[str, dict[str, str]]:
    """profile -> tool -> section text."""
    out: dict[str, dict[str, str]] = {}
    profile = ""
    for block in re.split(r"^(?=## |### )", DOC.read_text(), flags=re.M):
        if m := re.match(r"## Profile `(\w+)`", block):
            profile = m.group(1)
            out[profile] = {}
        elif (m := re.match(r"### (\w+)", block)) and profile:
            out[profile][m.group(1)] = block
    return out


def test_every_registered_tool_and_parameter_is_documented() -> None:
    doc = sections()
    for profile, tool in builtin_registry().all_tools():
        assert tool.name in doc.get(profile, {}), f"docs/tools.md lacks {profile}.{tool.name}"
        text = doc[profile][tool.name]
        for param in tool.parameters.get("properties", {}):
            assert f"`{param}`" in text, f"docs/tools.md: {profile}.{tool.name} lacks `{param}`"


def test_no_documented_tool_is_missing_from_the_registry() -> None:
    reg = builtin_registry()
    for profile, tools in sections().items():
        for name in tools:
            assert name in reg.profile(profile), f"docs/tools.md documents unknown {profile}.{name}"
