"""Each front end starts without what it does not need yet (docs/architecture.md#start-up).

An editor spawns `karyi lsp` or `karyi acp` with every window and waits for the
`initialize` answer; `karyi run` should reach the model fast. Each probe imports a front
end's entry module in a fresh interpreter and lists what got imported: a heavy module
that comes back to one of these lists is a start-up regression.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MODEL_SDKS = ["openai", "anthropic", "httpx2", "mcp"]
AGENT_STACK = ["karyi.agent.runtime", "karyi.agent.host", "karyi.acp.session", "karyi.settings"]
LSP_TYPES = ["lsprotocol.types", "pygls"]

NOT_BEFORE_NEEDED = {
    # `karyi --help` and argument parsing: no front end's implementation at all.
    "karyi.main": [*MODEL_SDKS, *AGENT_STACK, *LSP_TYPES, "acp", "pydantic", "jsonschema"],
    # Before `initialize` is answered: the ACP SDK only; the agent stack loads after.
    "karyi.acp.server": [*MODEL_SDKS, *AGENT_STACK, *LSP_TYPES, "jsonschema", "watchfiles"],
    # The language server: pygls; the agent host is built on the first request.
    "karyi.lsp.server": [*MODEL_SDKS, *AGENT_STACK, "acp", "pydantic", "jsonschema"],
    # `karyi run`: the agent stack, but no model SDK before the first model call, no
    # language-server client before the first diagnostics check, no web client.
    "karyi.cli.run": [*MODEL_SDKS, *LSP_TYPES, "acp", "karyi.tools.webclient.fetch"],
    # `karyi exec`: tools and a runtime, but no agent loop, session store, model client,
    # language server or terminal prompt (rich) to run one command (issue [fast-paths]).
    "karyi.cli.exec": [
        *MODEL_SDKS,
        *LSP_TYPES,
        "acp",
        "karyi.agent.turn.loop",
        "karyi.agent.subagents",
        "karyi.agent.session.store",
        "karyi.agent.session.conversation",
        "karyi.agent.session.checkpoints",
        "karyi.agent.diagnostics.language_servers",
        "karyi.llm.factory",
        "karyi.cli.ask",
        "rich",
        "bashlex",
    ],
}


def imported_by(module: str) -> set[str]:
    """Every module a fresh interpreter holds after `import module`."""
    probe = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("module", sorted(NOT_BEFORE_NEEDED))
def test_a_front_end_imports_nothing_heavy_before_it_is_needed(module: str) -> None:
    loaded = imported_by(module)
    early = [name for name in NOT_BEFORE_NEEDED[module] if name in loaded]
    assert early == [], f"importing {module} loads {early} before they are needed"


def test_the_acp_agent_stack_lists_what_sessions_need() -> None:
    from karyi.acp.stack import MODULES

    loaded = imported_by("karyi.acp.stack")
    assert not set(MODULES) & loaded
    assert {"karyi.agent.runtime", "karyi.acp.session"} <= set(MODULES)


AGENT_PROBE = """
import asyncio, json, sys
from pathlib import Path
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.settings import load_settings

async def main():
    root = Path(sys.argv[1])
    runtime = Runtime.open(root, load_settings(root))
    try:
        runtime.agent(runtime.conversation(None), approver=approve_all)
    finally:
        await runtime.aclose()

asyncio.run(main())
print(json.dumps(sorted(sys.modules)))
"""


def test_building_the_agent_starts_no_language_server_client(tmp_path: Path) -> None:
    """`karyi run` builds its agent before the first model request; Karyi's own
    language-server clients (pygls, lsprotocol) wait for the first diagnostics check."""
    env = {
        **os.environ,
        "KARYI_CONFIG_DIR": str(tmp_path / "config"),
        "KARYI_MODEL": "openai:x",
        "OPENAI_API_KEY": "sk-x",
    }
    (tmp_path / "ws").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", AGENT_PROBE, str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert "karyi.agent.runtime" in loaded
    assert not {"pygls", "lsprotocol", "lsprotocol.types"} & loaded
