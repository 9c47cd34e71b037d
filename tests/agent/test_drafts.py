"""Drafts: an edit shown while the model is still writing it (docs/protocol.md, "Drafts").

The turn-level test streams a real reply slowly through the fake model server and the
real OpenAI SDK; the unit tests drive `Drafts` with a hand-moved clock, so nothing in
them depends on timing.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

from karyi.agent.events import Event, EventStream, ToolDraft
from karyi.agent.review.approval import ApprovalRequest, Decision
from karyi.agent.turn.drafts import Drafts
from karyi.protocol import get_dialect
from karyi.protocol.calls import CallReady, PartialCall
from karyi.protocol.toolsxml_parser import ToolsXmlParser
from tests.agent.test_agent_e2e import Rig, rig, rigs
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply, pieces

__all__ = ["rigs"]

OLD = "def total(xs):\n    return sum(xs)\n"
NEW = "def total(xs):\n    result = 0\n    for x in xs:\n        result += x\n    return result\n"
REPLY = (
    "Rewriting it.\n<tools><edit>"
    f'<file src="calc.py"><find>{OLD}</find><replace>{NEW}</replace></file>'
    "</edit></tools>"
)


def _added(draft: dict[str, Any]) -> list[str]:
    """The lines a draft's hunks propose, in order."""
    return [line for h in draft["files"][0]["hunks"] for line in h["newText"].splitlines()]


async def test_drafts_grow_in_order_then_settle_before_the_proposal(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "calc.py").write_text(OLD)
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    fake_llm.chunk_delay = 0.15  # longer than DRAFT_INTERVAL: a draft may follow every chunk
    fake_llm.script(Reply(text=pieces(REPLY, 12)), Reply(text="Done."))
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision(True)

    result = await r.agent(approver).run("loop instead of sum")
    assert result.final_answer == "Done."
    events = [e.to_dict() for e in r.events]
    kinds = [e["type"] for e in events]
    drafts = [e for e in events if e["type"] == "toolDraft" and not e["done"]]
    assert len(drafts) >= 2, kinds
    states = [_added(d) for d in drafts]
    assert len({tuple(s) for s in states}) >= 2
    for before, after in itertools.pairwise(states):
        assert after[: len(before)] == before  # the proposed lines only grow
    # whole lines of the replacement, never half of one (its first line is the old one's)
    assert all(s == NEW.splitlines()[1 : 1 + len(s)] for s in states)
    assert {d["files"][0]["path"] for d in drafts} == {"calc.py"}
    assert all(d["index"] == 0 and d["tool"] == "edit" for d in drafts)
    done = kinds.index("toolDraft", kinds.index("toolDraft") + len(drafts))
    assert events[done]["done"] and events[done]["files"] == []
    assert events[done]["callId"] == asked[0].call.id
    assert kinds.index("toolPending") < kinds.index("toolDraft")
    assert done < kinds.index("toolAwaitingPermission")  # the proposal takes over after
    assert (ws_root / "calc.py").read_text() == NEW


def _stream(r: Rig, reply: str, now: list[float]) -> list[Event]:
    """Feed `reply` to a toolsxml parser in 5-character chunks, a draft check after each,
    the clock moving one interval per chunk."""
    agent = r.agent()
    seen: list[Event] = []
    stream = EventStream(redact=agent.events.redact)
    stream.subscribe(seen.append)
    drafts = Drafts(agent.spec.toolkit, agent.ctx, stream.emit, clock=lambda: now[0])
    parser = get_dialect("toolsxml").parser(agent.spec.toolkit.schema)
    for i in range(0, len(reply), 5):
        for ev in parser.feed(reply[i : i + 5]):
            if isinstance(ev, CallReady):
                drafts.settle(ev.call)
        drafts.update(parser)
        now[0] += drafts.interval
    for ev in parser.close():
        if isinstance(ev, CallReady):
            drafts.settle(ev.call)
    return seen


def _edit(src: str, find: str, replace: str) -> str:
    pair = f"<find>{find}</find><replace>{replace}</replace>"
    return f'<tools><edit><file src="{src}">{pair}</file></edit></tools>'


def test_a_find_that_does_not_match_shows_nothing(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "calc.py").write_text(OLD)
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    assert _stream(r, _edit("calc.py", "def nothing_like_it():\n", NEW), [0.0]) == []
    assert (ws_root / "calc.py").read_text() == OLD


def test_a_path_the_policy_refuses_shows_nothing(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    assert _stream(r, _edit("../outside.py", "", NEW), [0.0]) == []
    assert _stream(r, _edit("/etc/hosts", "", NEW), [0.0]) == []
    assert not (ws_root.parent / "outside.py").exists()


def test_drafts_are_throttled_and_never_write(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "calc.py").write_text(OLD)
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    frozen = [0.0]
    agent = r.agent()
    seen: list[Event] = []
    drafts = Drafts(agent.spec.toolkit, agent.ctx, seen.append, clock=lambda: frozen[0])
    parser = get_dialect("toolsxml").parser(agent.spec.toolkit.schema)
    for i in range(0, len(REPLY), 5):
        parser.feed(REPLY[i : i + 5])
        drafts.update(parser)
    assert len(seen) <= 1  # the clock never moved: the call was looked at once
    assert (ws_root / "calc.py").read_text() == OLD
    moving = _stream(r, REPLY, [0.0])
    assert len([e for e in moving if isinstance(e, ToolDraft) and not e.done]) >= 3
    assert (ws_root / "calc.py").read_text() == OLD


def test_a_secret_in_a_draft_is_redacted(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "calc.py").write_text(OLD)
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    agent = r.agent()
    assert agent.ctx.secrets is not None
    agent.ctx.secrets.remember("TOKEN", "s3cr3t-value-42")
    leaky = NEW.replace("result = 0", "result = 0  # s3cr3t-value-42")
    seen = _stream(r, _edit("calc.py", OLD, leaky), [0.0])
    drafts = [e.to_dict() for e in seen if isinstance(e, ToolDraft) and not e.done]
    assert drafts and any("$KARYI{TOKEN}" in str(d) for d in drafts)
    assert not any("s3cr3t" in str(d) for d in drafts)


def test_a_whole_file_write_keeps_the_part_not_yet_written(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    old = "".join(f"line {i}\n" for i in range(10))
    new = "header\n" + old
    (ws_root / "notes.txt").write_text(old)
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="vecli")
    reply = (
        f'<tools><write_file file_path="notes.txt"><content>{new}</content></write_file></tools>'
    )
    seen = _stream(r, reply, [0.0])
    drafts = [e.to_dict() for e in seen if isinstance(e, ToolDraft) and not e.done]
    assert drafts
    for d in drafts:  # only the new first line is ever shown added, nothing removed
        assert d["files"][0]["removed"] == 0 and _added(d) == ["header"]


async def test_a_draft_held_back_by_the_interval_follows_once_due(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """The model pausing mid-call still gets its latest lines shown (no next chunk needed)."""
    (ws_root / "calc.py").write_text(OLD)
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    agent = r.agent()
    now = [0.0]
    got: asyncio.Queue[Event] = asyncio.Queue()
    drafts = Drafts(agent.spec.toolkit, agent.ctx, got.put_nowait, clock=lambda: now[0])
    drafts.interval = 0.01
    parser = get_dialect("toolsxml").parser(agent.spec.toolkit.schema)
    cut = REPLY.index("    for x")
    parser.feed(REPLY[:cut])
    drafts.update(parser)
    first = await got.get()
    parser.feed(REPLY[cut : REPLY.index("        result +=")])
    drafts.update(parser)  # within the interval: held back
    assert got.empty()
    now[0] = 1.0  # the interval has passed; the held draft goes out without another chunk
    second = await got.get()
    assert isinstance(first, ToolDraft) and isinstance(second, ToolDraft)
    assert _added(second.to_dict()) == ["    result = 0"]
    drafts.stop()


def test_a_find_without_its_line_break_adds_no_blank_line(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "calc.py").write_text(OLD + "\nprint(total([1]))\n")
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    seen = _stream(r, _edit("calc.py", OLD.rstrip("\n"), NEW.rstrip("\n")), [0.0])
    drafts = [e for e in seen if isinstance(e, ToolDraft) and not e.done]
    assert drafts
    for d in drafts:  # each draft is the old file with a prefix of NEW's lines in place
        after = d.files[0].after
        assert after.endswith("\n\nprint(total([1]))\n") and "\n\n\n" not in after
        head = after.removesuffix("\nprint(total([1]))\n")
        assert head == "\n" or NEW.startswith(head)  # nothing yet, or whole lines of NEW


def test_the_partial_call_is_looked_at_once_per_interval(
    rigs: list[Rig], fake_llm: FakeModelServer, ws_root: Path
) -> None:
    """However small the chunks, the cost of drafts follows time, not chunk count."""
    (ws_root / "calc.py").write_text(OLD)
    r = rig(rigs, ws_root, fake_llm, dialect="toolsxml", profile="karyi")
    agent = r.agent()
    looked: list[int] = []

    class Counting(ToolsXmlParser):
        def partial(self) -> PartialCall | None:
            looked.append(1)
            return super().partial()

    now = [0.0]
    drafts = Drafts(agent.spec.toolkit, agent.ctx, lambda _e: None, clock=lambda: now[0])
    parser = Counting(agent.spec.toolkit.schema, None)
    for i, ch in enumerate(REPLY):
        parser.feed(ch)
        drafts.update(parser)
        now[0] = (i + 1) * drafts.interval / 10  # ten chunks per interval
    assert len(looked) <= len(REPLY) // 10 + 1
