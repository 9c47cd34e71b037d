"""Allow always: per scope, remembered where a repository cannot reach."""

from __future__ import annotations

import stat
from pathlib import Path

from karyi.agent.review.approval import ApprovalRequest, Decision
from karyi.agent.review.permissions import PermissionMemory
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import SessionStore
from karyi.tools.context import ToolContext
from tests.support.harness import Harness


def asking(remember: str | None) -> tuple[list[str], object]:
    asked: list[str] = []

    async def approver(req: ApprovalRequest) -> Decision:
        asked.append(req.call.params["text"])
        return Decision(True, remember=remember)  # type: ignore[arg-type]

    return asked, approver


CALLS = '<tools><write_note text="a"/><write_note text="b"/></tools>'


async def test_allow_once_asks_every_time(ctx: ToolContext) -> None:
    asked, approver = asking(None)
    h = Harness(ctx, [CALLS, "done"], approver=approver)
    await h.agent.run("write")
    assert asked == ["a", "b"]
    assert [c.decision for c in h.store.calls(h.conv.id)] == ["allowed", "allowed"]


async def test_allow_always_for_the_session(ctx: ToolContext) -> None:
    asked, approver = asking("session")
    h = Harness(ctx, [CALLS, "done", CALLS, "done"], approver=approver)
    await h.agent.run("write")
    await h.agent.run("write again")
    assert asked == ["a"]
    decisions = [c.decision for c in h.store.calls(h.conv.id)]
    assert decisions == ["allowed always (session)"] + ["always (session)"] * 3
    # a restart keeps the session's approvals, a new session does not have them
    h.store.close()
    store = SessionStore.for_workspace(ctx.workspace.root)
    assert Conversation.resume(store, h.conv.id).approved == {"write_note"}
    assert Conversation.start(store).approved == set()


async def test_allow_always_for_the_workspace_lives_outside_it(
    ctx: ToolContext, _isolated_config: Path
) -> None:
    asked, approver = asking("workspace")
    h = Harness(ctx, [CALLS, "done"], approver=approver)
    await h.agent.run("write")
    assert asked == ["a"]
    memory = PermissionMemory(ctx.workspace.root)
    assert memory.allowed("write_note") == "workspace"
    assert memory.files["workspace"].is_relative_to(_isolated_config)
    assert not any("permissions" in p.name for p in ctx.workspace.root.rglob("*"))
    other = PermissionMemory(ctx.workspace.root.parent / "elsewhere")
    assert other.allowed("write_note") is None


async def test_allow_always_for_the_user_applies_everywhere(
    ctx: ToolContext, tmp_path: Path
) -> None:
    PermissionMemory(tmp_path / "a").remember("write_note", "user")
    assert PermissionMemory(tmp_path / "b").allowed("write_note") == "user"
    PermissionMemory(tmp_path / "b").forget("write_note", "user")
    assert PermissionMemory(tmp_path / "a").allowed("write_note") is None


def test_the_grants_file_is_for_the_user_only(tmp_path: Path) -> None:
    memory = PermissionMemory(tmp_path / "a")
    memory.remember("command:rm -rf build", "user")
    assert stat.S_IMODE(memory.files["user"].stat().st_mode) == 0o600
