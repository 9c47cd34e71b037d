"""Elided edits end to end, in every dialect: the model abbreviates, the real tools merge
against the real file, and the model is told what its elisions kept
(docs/tools.md#elided-edits)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.test_agent_e2e import Rig, rig, rigs
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply

__all__ = ["rigs"]

ABC = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
MERGED = ABC.replace("return 3", "return 30")
LAZY = "def a():\n    return 1\n\n# ... existing code ...\n\ndef c():\n    return 30\n"
FIND = "def a():\n    ...\ndef c():\n    return 3\n"
REPLACE = "def a():\n    ...\ndef c():\n    return 30\n"
DONE = "Done."


def _reply(dialect: str) -> Reply:
    """One elided change of src/m.py, written in `dialect` (an edit or a lazy write)."""
    if dialect == "toolsxml":
        return Reply(
            text=f'<tools><edit><file src="src/m.py"><find>{FIND}</find>'
            f"<replace>{REPLACE}</replace></file></edit></tools>"
        )
    if dialect == "agentxml":
        body = [
            {
                "id": "1",
                "name": "write_file",
                "parameters": {"filePath": "src/m.py", "content": LAZY},
            }
        ]
        return Reply(text=f"<tools>{json.dumps(body)}</tools>")
    if dialect == "toolcall":
        return Reply(
            text="<tool_call><name>write_file</name><params><filePath>src/m.py</filePath>"
            f"<content><![CDATA[{LAZY}]]></content></params></tool_call>"
        )
    return Reply(
        calls=[Call("edit", {"file_path": "src/m.py", "old_string": FIND, "new_string": REPLACE})]
    )


TOLD = {
    "toolsxml": "the elision stood for lines 2-8, kept as they are",
    "agentxml": "each was replaced by the file's own lines",
    "toolcall": "each was replaced by the file's own lines",
    "native": "Note: matched around the elision in the find text",
}
PROFILE = {"toolsxml": "karyi", "agentxml": "agentxml", "toolcall": "agentxml", "native": "vecli"}


@pytest.mark.parametrize("dialect", list(PROFILE))
async def test_an_elided_change_lands_merged_in_every_dialect(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path, dialect: str
) -> None:
    (ws_root / "src").mkdir(exist_ok=True)
    (ws_root / "src" / "m.py").write_text(ABC)
    r = rig(rigs, ws_root, fake_llm, dialect=dialect, profile=PROFILE[dialect])
    final = f"<final_answer>{DONE}</final_answer>" if dialect == "agentxml" else DONE
    fake_llm.script(_reply(dialect), Reply(text=final))
    result = await r.agent().run("make c return 30")
    assert result.final_answer == DONE, r.last_text(1)
    assert (ws_root / "src" / "m.py").read_text() == MERGED
    assert TOLD[dialect] in r.last_text(1)
