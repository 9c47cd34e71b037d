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
from typing import Any

import pytest

MODEL_SDKS = ["openai", "anthropic", "httpx2", "mcp"]
AGENT_STACK = ["karyi.agent.runtime", "karyi.agent.host", "karyi.acp.session", "karyi.settings"]
LSP_TYPES = ["lsprotocol.types", "pygls"]
LSP_HANDLER_MODULES = [
    f"karyi.lsp.{name}"
    for name in (
        "agent_host",
        "background_tasks",
        "chat",
        "code_actions",
        "documents",
        "editor_commands",
        "history",
        "lifecycle",
        "models",
        "own_diagnostics",
        "toolinfo",
    )
]

NOT_BEFORE_NEEDED = {
    # `karyi --help` and argument parsing: no front end's implementation at all.
    "karyi.main": [*MODEL_SDKS, *AGENT_STACK, *LSP_TYPES, "acp", "pydantic", "jsonschema"],
    # Before `initialize` is answered: the ACP SDK only; the agent stack loads after.
    "karyi.acp.server": [*MODEL_SDKS, *AGENT_STACK, *LSP_TYPES, "jsonschema", "watchfiles"],
    # The language server: pygls; the agent host is built on the first request.
    "karyi.lsp.server": [*MODEL_SDKS, *AGENT_STACK, "acp", "pydantic", "jsonschema"],
    # Everything `karyi lsp` imports before `initialize` is answered: pygls, lsprotocol and
    # the method table, none of the handlers' modules (each loads with its first call), so
    # none of the agent stack, settings, workspace, dialects or the SDKs behind them (of
    # core, `initialize` reads its options with core/plain_json.py only).
    "karyi.lsp.features": [
        *MODEL_SDKS,
        *LSP_HANDLER_MODULES,
        "karyi.agent",
        "karyi.settings",
        "karyi.workspace",
        "karyi.protocol",
        "karyi.tools",
        "karyi.llm",
        "karyi.core.schema",
        "karyi.core.typed_json",
        "karyi.core.typed_schema",
        "karyi.core.results",
        "karyi.core.images",
        "karyi.lsp.params",
        "karyi.lsp.wire",
        "acp",
        "pydantic",
        "jsonschema",
        "lxml",
        "platformdirs",
        "watchfiles",
    ],
    # The agent host a language server builds at its first request: no model SDK before
    # the first model call (the picker's model list imported openai: 520 modules, ~24 MB
    # of the language server's memory).
    "karyi.agent.host": ["openai", "anthropic", "mcp"],
    "karyi.agent.models": ["openai", "anthropic", "mcp"],
    # `karyi run`: the agent stack, but no model SDK before the first model call, no
    # language-server client before the first diagnostics check, no web client, no
    # jsonschema before the first validation, no syntax highlighter before a diff is asked.
    "karyi.cli.run": [
        *MODEL_SDKS,
        *LSP_TYPES,
        "acp",
        "karyi.tools.webclient.fetch",
        "jsonschema",
        "pygments",
    ],
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
        "pygments",
        "jsonschema",
        "bashlex",
        "watchfiles",
        "wcmatch",
        "pathspec",
        "karyi.agent.prompting.system_prompt",
        "karyi.tools.builtin.commands",
    ],
    # A workspace: the file layer and the document store; the watcher's library, the
    # globbing of searches and the .gitignore matcher load when first used.
    "karyi.workspace.workspace": ["watchfiles", "wcmatch", "pathspec", "karyi.workspace.ripgrep"],
}


def probe(code: str, *args: str, env: dict[str, str] | None = None) -> Any:
    """The JSON a fresh interpreter running `code` prints last."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(done.stdout.splitlines()[-1])


def imported_by(module: str) -> set[str]:
    """Every module a fresh interpreter holds after `import module`."""
    return set(probe(f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"))


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


def test_building_the_agent_loads_no_tool_and_no_language_server_client(tmp_path: Path) -> None:
    """`karyi run` builds its agent before the first model request; Karyi's own
    language-server clients (pygls, lsprotocol) wait for the first diagnostics check, each
    built-in tool for its first call, the file watcher's library for the first watch."""
    env = {
        **os.environ,
        "KARYI_CONFIG_DIR": str(tmp_path / "config"),
        "KARYI_MODEL": "openai:x",
        "OPENAI_API_KEY": "sk-x",
    }
    (tmp_path / "ws").mkdir()
    loaded = set(probe(AGENT_PROBE, str(tmp_path / "ws"), env=env))
    assert "karyi.agent.runtime" in loaded
    assert not {"pygls", "lsprotocol", "lsprotocol.types"} & loaded
    # The built-in tools are known by their catalogue entries (docs/tools.md#the-catalogue);
    # only the subagent tool, which the runtime configures, and the memory tool's small
    # module, whose file the project rules read, are imported.
    tools = {m for m in loaded if m.startswith("karyi.tools.builtin.")}
    assert tools == {"karyi.tools.builtin.subagents", "karyi.tools.builtin.memory"}
    assert not {"watchfiles", "wcmatch"} & loaded


RUNTIME_PROBE = """
import asyncio, json, sys
from pathlib import Path
from karyi.agent.runtime import Runtime
from karyi.settings import load_settings

async def main():
    root = Path(sys.argv[1])
    runtime = Runtime.open(root, load_settings(root))
    await runtime.aclose()

asyncio.run(main())
print(json.dumps(sorted(sys.modules)))
"""


def test_a_runtime_without_an_agent_reads_no_prompt(tmp_path: Path) -> None:
    """`karyi exec` opens a runtime and runs calls: the subagents are listed by their
    descriptions, and no prompt template (nor the prompt builder) is loaded."""
    env = {**os.environ, "KARYI_CONFIG_DIR": str(tmp_path / "config")}
    (tmp_path / "ws").mkdir()
    loaded = set(probe(RUNTIME_PROBE, str(tmp_path / "ws"), env=env))
    assert "karyi.agent.runtime" in loaded
    assert "karyi.agent.prompting.system_prompt" not in loaded


NEW_SESSION_PROBE = """
import asyncio, json, sys
from karyi.acp.agent import KaryiAgent

async def main():
    agent = KaryiAgent()
    agent.on_connect(object())  # nothing is sent before the runtime is open
    agent.openings.start = lambda session_id, job: job.close()  # only the answer, here
    answer = await agent.new_session(cwd=sys.argv[1], mcp_servers=[])
    dumped = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
    print(json.dumps({"answer": dumped, "modules": sorted(sys.modules)}))

asyncio.run(main())
"""


def test_the_acp_session_new_answer_needs_nothing_of_the_agent_stack(tmp_path: Path) -> None:
    """`session/new` answers at once: its id, the modes and the mode option, with none of
    the agent stack imported (the runtime opens after, docs/acp.md#start-up)."""
    found = probe(NEW_SESSION_PROBE, str(tmp_path))
    from karyi.acp.stack import MODULES

    assert not {*MODULES, *AGENT_STACK, *MODEL_SDKS} & set(found["modules"])
    answer = found["answer"]
    assert len(answer["sessionId"]) == 12
    assert answer["modes"]["currentModeId"] == "act"
    assert [m["id"] for m in answer["modes"]["availableModes"]] == ["act", "plan"]
    assert [(o["id"], o["currentValue"]) for o in answer["configOptions"]] == [("mode", "act")]


INITIALIZE_PROBE = """
import json, sys
from pathlib import Path
from karyi.lsp.features import create_server

class Sent:
    def __init__(self):
        self.messages = []

    def write(self, data):
        self.messages.append(json.loads(data))

    def close(self):
        pass

server = create_server()
sent = Sent()
protocol = server.protocol
protocol.set_writer(sent, include_headers=False)
request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "processId": None, "capabilities": {}, "rootUri": Path(sys.argv[1]).as_uri(),
    "initializationOptions": {"karyi": {"ui": True}}}}
# what pygls's reader does with each message it reads (pygls/io_.py)
protocol.handle_message(json.loads(json.dumps(request), object_hook=protocol.structure_message))
print(json.dumps({"answer": sent.messages, "modules": sorted(sys.modules)}))
"""


def test_the_language_server_answers_initialize_with_only_its_own_handler(
    tmp_path: Path,
) -> None:
    """pygls answers `initialize` having imported lifecycle.py and nothing else of the
    handlers (each module loads with its first call), and the capabilities still declare
    the options of the handlers not loaded yet."""
    found = probe(INITIALIZE_PROBE, str(tmp_path))
    loaded = set(found["modules"])
    assert "karyi.lsp.lifecycle" in loaded
    unneeded = [m for m in NOT_BEFORE_NEEDED["karyi.lsp.features"] if m != "karyi.lsp.lifecycle"]
    assert [m for m in unneeded if m in loaded] == []
    [answer] = found["answer"]
    capabilities = answer["result"]["capabilities"]
    assert answer["id"] == 1
    assert capabilities["codeActionProvider"] == {"codeActionKinds": ["quickfix", "refactor"]}
    assert capabilities["diagnosticProvider"] == {
        "identifier": "karyi",
        "interFileDependencies": False,
        "workspaceDiagnostics": False,
    }
    from karyi.lsp.features import COMMANDS

    assert capabilities["executeCommandProvider"] == {"commands": list(COMMANDS)}
