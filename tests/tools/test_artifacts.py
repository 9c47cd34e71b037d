"""Artifacts: versions kept with the session, fuzzy updates through the edit engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from karyi.agent.session.artifacts import ArtifactStore
from karyi.agent.session.store import SessionStore
from karyi.settings import Settings
from karyi.tools.builtin.artifacts import (
    CreateArtifact,
    ReadArtifact,
    RewriteArtifact,
    UpdateArtifact,
)
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace

PLAN = """# Task: Research AI Safety

## Tasks
1. [ ] Search for recent papers on AI alignment
   - Status: pending
   - Assigned: search_agent

## Progress
- Overall: 0%
"""


@pytest.fixture
def stores(tmp_path: Path) -> tuple[SessionStore, ArtifactStore]:
    sessions = SessionStore(tmp_path / "sessions.db")
    return sessions, ArtifactStore(sessions.path, redact=lambda t: t.replace("hunter2", "***"))


def context(ws_root: Path, artifacts: ArtifactStore, sid: str) -> ToolContext:
    return ToolContext(
        Workspace.open(ws_root), Settings(), session_id=sid, artifacts=artifacts.book(sid)
    )


async def call(tool: Any, ctx: ToolContext, **params: Any) -> Any:
    return await tool.run(params, ctx)


async def test_versions_are_kept_and_readable(
    ws_root: Path, stores: tuple[SessionStore, ArtifactStore]
) -> None:
    sessions, artifacts = stores
    ctx = context(ws_root, artifacts, sessions.create())
    made = await call(CreateArtifact(), ctx, id="task_plan", title="Plan", content=PLAN)
    assert made.llm_content == "Created artifact 'task_plan' (markdown, \"Plan\") version 1."
    updated = await call(
        UpdateArtifact(), ctx, id="task_plan", old_str="- Overall: 0%", new_str="- Overall: 25%"
    )
    assert updated.success and updated.data["version"] == 2
    assert updated.llm_content.startswith(
        "Updated artifact 'task_plan' (markdown, \"Plan\") version 2"
    )
    rewritten = await call(RewriteArtifact(), ctx, id="task_plan", content="# Done\n")
    assert rewritten.data["version"] == 3
    latest = await call(ReadArtifact(), ctx, id="task_plan")
    assert latest.llm_content == "artifact 'task_plan' (markdown, \"Plan\") version 3:\n# Done\n"
    first = await call(ReadArtifact(), ctx, id="task_plan", version=1)
    assert first.data["content"] == PLAN and first.data["latest_version"] == 3
    assert "(the latest is version 3)" in first.llm_content
    second = await call(ReadArtifact(), ctx, id="task_plan", version=2)
    assert "- Overall: 25%" in second.data["content"]


async def test_update_tolerates_the_models_usual_slips(
    ws_root: Path, stores: tuple[SessionStore, ArtifactStore]
) -> None:
    sessions, artifacts = stores
    ctx = context(ws_root, artifacts, sessions.create())
    await call(CreateArtifact(), ctx, id="plan", title="Plan", content=PLAN)
    sloppy = (
        "1. [ ] Search for recent papers on AI alignment\n"
        "     - Status: pending\n"
        "      - Assigned: search_agent"
    )
    done = (
        "1. [x] Search for recent papers on AI alignment\n"
        "   - Status: completed\n"
        "   - Assigned: search_agent"
    )
    result = await call(UpdateArtifact(), ctx, id="plan", old_str=sloppy, new_str=done)
    assert result.success, result.llm_content
    assert result.data["strategy"] != "exact"
    assert "matched" in result.llm_content or "ignoring" in result.llm_content
    content = (await call(ReadArtifact(), ctx, id="plan")).data["content"]
    assert "1. [x] Search for recent papers" in content and "Status: completed" in content
    assert result.data["diff"].startswith("---")


async def test_update_refusals_change_nothing(
    ws_root: Path, stores: tuple[SessionStore, ArtifactStore]
) -> None:
    sessions, artifacts = stores
    ctx = context(ws_root, artifacts, sessions.create())
    await call(CreateArtifact(), ctx, id="notes", title="Notes", content="a\nb\na\n")
    missing = await call(
        UpdateArtifact(), ctx, id="notes", old_str="This text is nowhere at all", new_str="x"
    )
    assert missing.error is not None and missing.error.code == "invalid_tool_input"
    assert missing.error.message.startswith(
        "old_str: the find text was not found in artifact notes"
    )
    twice = await call(UpdateArtifact(), ctx, id="notes", old_str="a", new_str="c")
    assert twice.error is not None and "lines 1, 3" in twice.error.message
    same = await call(UpdateArtifact(), ctx, id="notes", old_str="b", new_str="b")
    assert same.success and same.data["changed"] is False
    assert (await call(ReadArtifact(), ctx, id="notes")).data["version"] == 1


async def test_unknown_ids_versions_and_duplicates(
    ws_root: Path, stores: tuple[SessionStore, ArtifactStore]
) -> None:
    sessions, artifacts = stores
    ctx = context(ws_root, artifacts, sessions.create())
    nothing = await call(ReadArtifact(), ctx, id="plan")
    assert (
        nothing.error is not None and nothing.error.message == "no artifact 'plan'; none exist yet"
    )
    await call(CreateArtifact(), ctx, id="plan", title="Plan", content="x")
    again = await call(CreateArtifact(), ctx, id="plan", title="Plan", content="y")
    assert again.error is not None and again.error.code == "tool_conflict"
    old = await call(ReadArtifact(), ctx, id="plan", version=7)
    assert old.error is not None and old.error.message == (
        "artifact 'plan' has no version 7; versions 1 to 1 exist"
    )
    other = await call(RewriteArtifact(), ctx, id="report", content="z")
    assert other.error is not None and other.error.message == (
        "no artifact 'report'; artifacts of this session: plan"
    )
    assert CreateArtifact().validate({"id": "../x", "title": "t", "content": ""}) is not None


async def test_artifacts_belong_to_their_session_and_go_with_it(
    ws_root: Path, stores: tuple[SessionStore, ArtifactStore]
) -> None:
    sessions, artifacts = stores
    one, two = sessions.create(), sessions.create()
    await call(CreateArtifact(), context(ws_root, artifacts, one), id="p", title="t", content="1")
    lost = await call(ReadArtifact(), context(ws_root, artifacts, two), id="p")
    assert lost.error is not None
    reopened = ArtifactStore(sessions.path)
    assert reopened.book(one).read("p").content == "1"
    sessions.delete(one)
    assert reopened.book(one).list() == []


async def test_secrets_are_redacted_before_storage(
    ws_root: Path, stores: tuple[SessionStore, ArtifactStore]
) -> None:
    sessions, artifacts = stores
    ctx = context(ws_root, artifacts, sessions.create())
    await call(CreateArtifact(), ctx, id="p", title="t", content="password hunter2")
    assert artifacts.book(ctx.session_id).read("p").content == "password ***"


async def test_without_a_session_the_tools_say_so(ctx: ToolContext) -> None:
    result = await CreateArtifact().run({"id": "p", "title": "t", "content": ""}, ctx)
    assert result.error is not None and result.error.code == "tool_disabled"


async def test_an_elided_old_str_keeps_what_it_left_out(
    ws_root: Path, stores: tuple[SessionStore, ArtifactStore]
) -> None:
    sessions, artifacts = stores
    ctx = context(ws_root, artifacts, sessions.create())
    await call(CreateArtifact(), ctx, id="task_plan", title="Plan", content=PLAN)
    updated = await call(
        UpdateArtifact(),
        ctx,
        id="task_plan",
        old_str="## Tasks\n...\n## Progress\n- Overall: 0%",
        new_str="## Tasks\n...\n## Progress\n- Overall: 50%",
    )
    assert updated.success, updated.llm_content
    assert "the elision stood for lines 4-7, kept as they are" in updated.llm_content
    shown = await call(ReadArtifact(), ctx, id="task_plan")
    assert shown.llm_content.count("Search for recent papers") == 1
    assert "- Overall: 50%" in shown.llm_content
