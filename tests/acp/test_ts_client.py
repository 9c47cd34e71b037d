"""The second ACP end-to-end suite: `karyi acp` driven by the official TypeScript library
(`@agentclientprotocol/sdk`, installed by `make test` into tests/acp/ts/), which checks
every message Karyi sends against the library's schema strictly (tests/acp/ts/e2e.mjs)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

from tests.support.fake_model_server import FakeModelServer, Reply

TS = Path(__file__).parent / "ts"


async def test_the_typescript_library_accepts_every_message(
    fake_llm: FakeModelServer, ws_root: Path, _isolated_config: Path, tmp_path: Path
) -> None:
    node = shutil.which("node")
    assert node, "node is needed (make test installs it with the VS Code suite)"
    assert (TS / "node_modules" / "@agentclientprotocol" / "sdk").is_dir(), (
        "run `make acp-ts` (part of `make test`) to install the TypeScript library"
    )
    (_isolated_config / "settings.json").write_text(json.dumps({"models": ["openai:other-model"]}))
    fake_llm.listed_models = ["listed-model"]  # GET /v1/models: the picker's server list
    extra = tmp_path / "extra"
    extra.mkdir()
    fake_llm.script(
        Reply(
            text="Editing.\n<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
            "<replace>print('hello')</replace></file></edit></tools>"
        ),
        Reply(text="Plan: change the greeting."),
        Reply(
            text='<tools><get_value key="STAGING_URL" reason="Which server?" '
            'secret="false"/><todo_write><todos>{"id": "1", "text": "Ask for the URL", '
            '"status": "done"}</todos></todo_write></tools>'
        ),
        Reply(text="Again."),
        Reply(text="Thought first."),
    )
    env = {
        **os.environ,
        "KARYI_PYTHON": sys.executable,
        "KARYI_WS": str(ws_root),
        "KARYI_EXTRA_DIR": str(extra),
        "KARYI_CONFIG_DIR": str(_isolated_config),
        "KARYI_MODEL": "openai:test-model",
        "KARYI_BASE_URL": fake_llm.openai_url,
        "KARYI_ANTHROPIC_URL": fake_llm.anthropic_url,
        "OPENAI_API_KEY": "sk-test",
    }
    proc = await asyncio.create_subprocess_exec(
        node,
        "e2e.mjs",
        cwd=TS,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await proc.communicate()
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text
    assert "validated against @agentclientprotocol/sdk" in text
    # The server-listed model picked in the first process is used from the next turn, and
    # kept by the session in the second.
    assert [r.body["model"] for r in fake_llm.requests] == ["listed-model"] * 4 + ["claude-test"]
    # The thinking budget and the boolean prompt caching, set from the client, apply.
    claude = fake_llm.requests[-1].body
    assert claude["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert "cache_control" not in json.dumps(claude)
    assert any(
        "data:image/png;base64," in json.dumps(r.body["messages"]) for r in fake_llm.requests
    )
