"""The connection drops while the model writes an edit: the user is told the network
failed, the unfinished call is discarded (never run, never a malformed call), the model is
told its reply was cut and writes the edit again."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.test_agent_e2e import Rig, rig, rigs
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault, Reply

__all__ = ["rigs"]

EDIT = [
    "I will edit it.\n",
    '<tools><edit><file src="README.md"><find>Hello.</find>',
    "<replace>Bye.</replace></file></edit></tools>",
]


async def test_network_cut_while_the_model_writes_an_edit(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    before = (ws_root / "README.md").read_text()
    fake_llm.fail_next(Fault(close=True, after=3))
    fake_llm.script(Reply(text=EDIT), Reply(text="Done."))
    result = await r.agent().run("say bye")
    events = [e.to_dict() for e in r.events]
    assert result.final_answer == "Done."
    [done] = [e for e in events if e["type"] == "toolDone"]  # written again, whole
    assert done["result"]["success"] and done["call"]["name"] == "edit"
    [notice] = [e for e in events if e["type"] == "notice" and e["topic"] == "network"]
    assert notice["message"].startswith(
        "the connection to the model failed while it was writing the edit call "
        "(openai:test-model: connection failed: "
    )
    assert notice["message"].endswith("the unfinished call was discarded and nothing was run")
    assert before.replace("Hello.", "Bye.") == (ws_root / "README.md").read_text()
    # the second request: the model learns its reply was cut, and writes the edit again
    assert "cut off by a provider error (connection:" in json.dumps(r.sent(1))
