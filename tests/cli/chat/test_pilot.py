"""The chat under Textual's pilot: a real runtime and session, the fake model server, real
files; keys pressed as a user would, the conversation and the files checked."""

from __future__ import annotations

from pathlib import Path

from karyi.cli.chat.answer import AnswerText
from karyi.cli.chat.questions import PermissionQuestion, SecretQuestion
from karyi.cli.chat.widgets import NoticeLine, ThinkingBlock, ToolCard, UserMessage
from tests.cli.chat.conftest import Chat, screen_text, until
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply

TWO_HUNKS = "a = 1\n" + "".join(f"x{i} = {i}\n" for i in range(10)) + "b = 2\n"


def edit(path: str, *pairs: tuple[str, str]) -> Reply:
    """A reply that edits `path` with find/replace `pairs` through the edit tool."""
    params = {"files": [{"src": path, "pairs": [{"find": f, "replace": r} for f, r in pairs]}]}
    return Reply(text=f"Editing {path}.", calls=[Call("edit", params)])


def texts(app: object, kind: type) -> list[object]:
    return list(app.log_view.query(kind))  # type: ignore[attr-defined]


async def send(pilot: object, text: str) -> None:
    await pilot.press(*text, "enter")  # type: ignore[attr-defined]


async def test_a_message_streams_as_markdown_with_thinking_collapsed(
    chat: Chat, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(thinking="Consider it.", text="It is **fine**.\n\n```py\nx = 1\n```\n"))
    async with chat() as (app, pilot):
        await send(pilot, "how is it?")
        await until(pilot, lambda: texts(app, NoticeLine), "the turn ended")
        assert [str(m.render()) for m in texts(app, UserMessage)] == ["› how is it?"]
        thinking = texts(app, ThinkingBlock)
        assert len(thinking) == 1 and thinking[0].collapsed and thinking[0].text == "Consider it."
        (answer,) = texts(app, AnswerText)
        await until(pilot, lambda: "x = 1" in answer.source, "the answer drawn")
        assert "It is **fine**." in answer.source
        shown = screen_text(app)
        assert "end turn" in shown and "It is fine." in shown  # the Markdown drawn
        assert app.status.facts.model.startswith("openai:gpt-4.1")


async def test_an_edit_is_accepted_with_y_and_rejected_with_n(
    chat: Chat, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    main = ws_root / "src" / "main.py"
    fake_llm.script(
        edit("src/main.py", ("hi", "hello")),
        "Changed.",
        edit("src/main.py", ("hello", "bye")),
        "Left it.",
    )
    async with chat() as (app, pilot):
        await send(pilot, "greet better")
        await until(pilot, lambda: app.questions, "the edit is proposed")
        assert "+print('hello')" in screen_text(app)
        await pilot.press("y")
        await until(pilot, lambda: not app._driving, "the turn ended")
        assert main.read_text() == "print('hello')\n"
        (card,) = texts(app, ToolCard)
        assert card.status == "done" and card.seconds is not None
        await send(pilot, "say bye")
        await until(pilot, lambda: app.questions, "the second edit is proposed")
        await pilot.press("n")
        await until(pilot, lambda: not app._driving, "the second turn ended")
        assert main.read_text() == "print('hello')\n"
        assert texts(app, ToolCard)[-1].status == "rejected"


async def test_hunks_are_ticked_one_by_one(
    chat: Chat, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    target = ws_root / "two.py"
    target.write_text(TWO_HUNKS)
    fake_llm.script(edit("two.py", ("a = 1", "a = 10"), ("b = 2", "b = 20")), "Half done.")
    async with chat() as (app, pilot):
        await send(pilot, "change both")
        await until(pilot, lambda: app.questions, "the edit is proposed")
        assert len(app.questions[0].hunks) == 2
        await pilot.press("down", "space", "enter")
        await until(pilot, lambda: not app._driving, "the turn ended")
        assert target.read_text() == TWO_HUNKS.replace("a = 1", "a = 10")
        told = str(fake_llm.requests[-1].body["messages"])
        assert "rejected h2" in told


async def test_feedback_is_typed_where_the_question_is(
    chat: Chat, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    fake_llm.script(edit("src/main.py", ("hi", "yo")), "Understood.")
    async with chat() as (app, pilot):
        await send(pilot, "change it")
        await until(pilot, lambda: app.questions, "the edit is proposed")
        await pilot.press("f", *"keep it formal", "enter")
        await until(pilot, lambda: not app._driving, "the turn ended")
        assert (ws_root / "src" / "main.py").read_text() == "print('hi')\n"
        assert "keep it formal" in str(fake_llm.requests[-1].body["messages"])


async def test_esc_keeps_a_waiting_proposal_and_stops_after_it(
    chat: Chat, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    fake_llm.script(edit("src/main.py", ("hi", "hey")), "Never read.")
    async with chat() as (app, pilot):
        await send(pilot, "change it")
        await until(pilot, lambda: app.questions, "the edit is proposed")
        await pilot.press("escape")
        await pilot.pause()
        assert app.questions and isinstance(app.focused, PermissionQuestion)
        await pilot.press("y")
        await until(pilot, lambda: not app._driving, "the turn ended")
        assert (ws_root / "src" / "main.py").read_text() == "print('hey')\n"
        assert "cancelled" in screen_text(app)
        assert len(fake_llm.requests) == 1  # stopped: the model was not asked again


async def test_esc_stops_a_streaming_turn(chat: Chat, fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text=["Thinking ", "out ", "loud ", "forever."], paced=True))
    async with chat() as (app, pilot):
        await send(pilot, "go")
        fake_llm.release(3)
        await until(
            pilot, lambda: any("Thinking" in a.source for a in texts(app, AnswerText)), "text"
        )
        await pilot.press("escape")
        await until(pilot, lambda: not app._driving, "the turn stopped")
        assert "cancelled" in screen_text(app)
        assert "forever" not in screen_text(app)


async def test_a_secret_is_typed_masked_and_never_shown(
    chat: Chat, fake_llm: FakeModelServer
) -> None:
    ask = Call("get_value", {"key": "API_TOKEN", "reason": "to call the API"})
    fake_llm.script(Reply(text="I need a token.", calls=[ask]), "Got it.")
    async with chat() as (app, pilot):
        await send(pilot, "call the api")
        await until(pilot, lambda: texts(app, SecretQuestion), "the value is asked")
        await pilot.press(*"hunter22")
        assert "hunter22" not in screen_text(app) and "••••••••" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: not app._driving, "the turn ended")
        assert "hunter22" not in screen_text(app)
        assert "hunter22" not in str(fake_llm.requests[-1].body)


async def test_shift_tab_switches_plan_and_act(chat: Chat) -> None:
    async with chat() as (app, pilot):
        assert app.status.facts.mode == "act"
        await pilot.press("shift+tab")
        assert app.live is not None and app.live.agent.mode == "plan"
        assert app.status.facts.mode == "plan"
        await pilot.press("shift+tab")
        assert app.status.facts.mode == "act"


async def test_exit_ctrl_d_and_ctrl_c_twice_end_with_0(chat: Chat) -> None:
    async with chat() as (app, pilot):
        await send(pilot, "/exit")
    assert app.return_code == 0
    async with chat() as (app, pilot):
        await pilot.press("ctrl+d")
    assert app.return_code == 0
    async with chat() as (app, pilot):
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+c")
    assert app.return_code == 0
