"""Rewind: a session taken back to one of the user's messages, code and conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.agent.review.approval import approve_all
from karyi.agent.session.rewind import HistoryError
from karyi.agent.turn.timeline import rewind_agent, rewind_plan, transcript_of
from karyi.protocol import get_dialect
from karyi.tools.context import ToolContext
from tests.support.harness import Harness


def edit(path: str, find: str, replace: str) -> str:
    params = {"files": [{"src": path, "pairs": [{"find": find, "replace": replace}]}]}
    return f"Editing {path}.\n{get_dialect('toolsxml').format_call('edit', params)}"


async def two_turns(ctx: ToolContext) -> tuple[Harness, list[str]]:
    """Turn 1 edits a.txt, turn 2 creates b.txt; the user then edits user.txt."""
    replies = [
        edit("a.txt", "zero\n", "zero\none\n"),
        "Done one.",
        edit("b.txt", "", "two\n"),
        "Done two.",
    ]
    h = Harness(ctx, replies)
    first = await h.agent.run("first")
    second = await h.agent.run("second")
    return h, [first.turn_id, second.turn_id]


@pytest.fixture
def files(ws_root: Path) -> Path:
    (ws_root / "a.txt").write_text("zero\n")
    (ws_root / "user.txt").write_text("mine\n")
    return ws_root


async def test_both_restores_the_agents_files_and_keeps_the_users(
    ctx: ToolContext, files: Path
) -> None:
    h, (_, second) = await two_turns(ctx)
    (files / "user.txt").write_text("mine, edited after the agent\n")

    plan = await rewind_plan(h.agent, second)
    assert (plan.prompt, plan.turns) == ("second", 1)
    assert {(f.path, f.effect, f.by_agent) for f in plan.files} == {
        ("b.txt", "deleted", True),
        ("user.txt", "modified", False),
    }

    done = await rewind_agent(h.agent, second, "both")

    assert not (files / "b.txt").exists()
    assert (files / "a.txt").read_text() == "zero\none\n"
    assert (files / "user.txt").read_text() == "mine, edited after the agent\n"
    assert (done.restored, done.kept) == (("b.txt",), ("user.txt",))
    turns = transcript_of(h.agent).turns
    assert [(t.prompt, t.status) for t in turns] == [("first", "live"), ("second", "rewound")]
    h.provider.replies.append("Third.")
    await h.agent.run("third")
    sent = " ".join(m.content for m in h.provider.requests[-1].messages if m.role != "system")
    assert "first" in sent and "Done one." in sent
    assert "second" not in sent and "Done two." not in sent and "b.txt" not in sent


async def test_the_users_file_is_overwritten_when_named(ctx: ToolContext, files: Path) -> None:
    h, (_, second) = await two_turns(ctx)
    (files / "user.txt").write_text("mine, edited\n")

    done = await rewind_agent(h.agent, second, "code", overwrite=["user.txt"])

    assert (files / "user.txt").read_text() == "mine\n"
    assert done.kept == () and not done.conversation
    assert [t.status for t in transcript_of(h.agent).turns] == ["live", "live"]


async def test_the_conversation_alone_leaves_the_files(ctx: ToolContext, files: Path) -> None:
    h, (first, _) = await two_turns(ctx)

    done = await rewind_agent(h.agent, first, "conversation")

    assert (files / "b.txt").read_text() == "two\n" and done.restored == ()
    assert [t.status for t in transcript_of(h.agent).turns] == ["rewound", "rewound"]
    assert h.agent.conversation.history == []


async def test_a_restore_can_be_undone(ctx: ToolContext, files: Path) -> None:
    h, (first, _) = await two_turns(ctx)

    done = await rewind_agent(h.agent, first, "code")
    assert (files / "a.txt").read_text() == "zero\n" and not (files / "b.txt").exists()
    assert done.undo_checkpoint is not None
    assert h.agent.checkpoints is not None
    h.agent.checkpoints.restore(done.undo_checkpoint)

    assert (files / "a.txt").read_text() == "zero\none\n"
    assert (files / "b.txt").read_text() == "two\n"


async def test_a_rewound_session_comes_back_rewound(ctx: ToolContext, files: Path) -> None:
    from karyi.agent.session.conversation import Conversation

    h, (_, second) = await two_turns(ctx)
    await rewind_agent(h.agent, second, "conversation")

    again = Conversation.resume(h.store, h.conv.id)

    assert "second" not in " ".join(m.content for m in again.messages)
    assert [t for t, _ in again.history if t == second] == []


async def test_an_unknown_turn_is_refused_with_the_known_ones(
    ctx: ToolContext, files: Path
) -> None:
    h, turns = await two_turns(ctx)

    with pytest.raises(HistoryError, match=f"no turn 'nope'.*{turns[-1]}"):
        await rewind_agent(h.agent, "nope", "both")
    await rewind_agent(h.agent, turns[1], "conversation")
    with pytest.raises(HistoryError, match="no turn"):
        await rewind_agent(h.agent, turns[1], "conversation")


async def test_a_fork_has_a_new_id_and_the_turns_up_to_it(ctx: ToolContext, files: Path) -> None:
    from karyi.agent.session.conversation import Conversation
    from karyi.agent.turn.timeline import fork_at

    h, (first, _) = await two_turns(ctx)

    fork = await fork_at(h.agent, first)

    assert fork != h.conv.id and fork in {s.id for s in h.store.all()}
    forked = Conversation.resume(h.store, fork)
    assert forked.title == "first (fork)"
    said = [m.content for m in forked.messages if m.role != "user" or "first" in m.content]
    assert any("Done one." in c for c in said) and not any("Done two." in c for c in said)
    h.provider.replies.append("Forked answer.")
    agent = h.make(ctx, forked, "toolsxml", "karyi", approve_all)
    await agent.run("on the fork")
    assert [t.prompt for t in transcript_of(agent).turns] == ["first", "on the fork"]
    assert [t.prompt for t in transcript_of(h.agent).turns] == ["first", "second"]
    whole = await fork_at(h.agent)
    assert len(Conversation.resume(h.store, whole).history) == len(h.conv.history)
    with pytest.raises(HistoryError, match="no turn 'x' to fork at"):
        await fork_at(h.agent, "x")
