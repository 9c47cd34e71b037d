"""The chat's session features under the pilot: a stored session drawn from its
transcript, messages queued and steered while a turn runs, /resume, /model, completion
of / and @, and !cmd in the agent's terminal."""

from __future__ import annotations

from karyi.cli.chat.answer import AnswerText
from karyi.cli.chat.widgets import ToolCard, UserMessage
from tests.cli.chat.conftest import Chat, screen_text, until
from tests.cli.chat.test_pilot import send, texts
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply


async def test_a_stored_session_is_drawn_and_resumed(chat: Chat, fake_llm: FakeModelServer) -> None:
    fake_llm.script("Stored answer.", "Second session.", "Back again.")
    async with chat() as (app, pilot):
        await send(pilot, "remember this")
        await until(pilot, lambda: not app._driving, "the turn ended")
        first = app.session_id
    async with chat(session=first) as (app, pilot):
        await until(pilot, lambda: texts(app, AnswerText), "the transcript drawn")
        assert [str(m.render()) for m in texts(app, UserMessage)] == ["› remember this"]
        assert "Stored answer." in texts(app, AnswerText)[0].source
    async with chat() as (app, pilot):
        await send(pilot, "another one")
        await until(pilot, lambda: not app._driving, "the turn ended")
        assert app.session_id != first
        await send(pilot, f"/resume {first}")
        await until(pilot, lambda: app.session_id == first, "resumed")
        await until(pilot, lambda: "remember this" in screen_text(app), "its turns drawn")
        await send(pilot, "and now?")
        await until(pilot, lambda: "Back again." in screen_text(app), "the resumed turn")
        sent = str(fake_llm.requests[-1].body["messages"])
        assert "remember this" in sent and "another one" not in sent


async def test_enter_queues_and_ctrl_s_steers_while_a_turn_runs(
    chat: Chat, fake_llm: FakeModelServer
) -> None:
    read = Call("read", {"path": "README.md"})
    fake_llm.script(
        Reply(text=["Reading ", "it."], calls=[read], paced=True), "Read.", "Queued answer."
    )
    async with chat() as (app, pilot):
        await send(pilot, "read the readme")
        fake_llm.release(3)
        await until(pilot, lambda: texts(app, AnswerText), "the turn streams")
        await pilot.press(*"mind the title")
        await pilot.press("ctrl+s")
        await send(pilot, "then this")
        assert app.queued == ["then this"] and "then this" in screen_text(app)
        fake_llm.release(100)
        await until(pilot, lambda: "Queued answer." in screen_text(app), "the queued turn ran")
        steered = str(fake_llm.requests[1].body["messages"])
        assert "[The user adds, while you work:]" in steered and "mind the title" in steered
        assert "↪ mind the title" in screen_text(app)
        assert "then this" in str(fake_llm.requests[2].body["messages"])


async def test_model_is_switched_with_slash_model(chat: Chat, fake_llm: FakeModelServer) -> None:
    fake_llm.script("From the other model.")
    async with chat() as (app, pilot):
        await send(pilot, "/model openai:gpt-4o-mini")
        await until(pilot, lambda: "gpt-4o-mini" in app.status.facts.model, "the model shown")
        await send(pilot, "hi")
        await until(pilot, lambda: not app._driving, "the turn ended")
        assert fake_llm.requests[-1].body["model"] == "gpt-4o-mini"


async def test_slash_and_at_complete(chat: Chat, fake_llm: FakeModelServer) -> None:
    fake_llm.script("Seen.")
    async with chat() as (app, pilot):
        await until(pilot, lambda: app.completer.files, "the file list read")
        await pilot.press(*"/pl")
        assert [c.insert for c in app.completions.items] == ["/plan"]
        await pilot.press("tab")
        assert app.prompt.value == "/plan "
        app.prompt.value = ""
        await pilot.press(*"look at @smain")
        assert app.completions.items[0].insert == "@src/main.py"
        await pilot.press("tab")
        assert app.prompt.value == "look at @src/main.py "
        await pilot.press("enter")
        await until(pilot, lambda: not app._driving, "the turn ended")
        told = str(fake_llm.requests[-1].body["messages"])
        assert "Files the user mentioned (read them as needed): src/main.py" in told


async def test_bang_runs_a_command_in_the_agents_terminal(chat: Chat) -> None:
    async with chat() as (app, pilot):
        await send(pilot, "!echo made-by-$((40+2))")
        await until(
            pilot,
            lambda: texts(app, ToolCard) and texts(app, ToolCard)[0].status == "done",
            "the command ran",
        )
        assert "made-by-42" in screen_text(app)


async def test_slash_memory_shows_the_memory_files_without_the_model(
    chat: Chat, fake_llm: FakeModelServer
) -> None:
    async with chat() as (app, pilot):
        (app.runtime.workspace.root / "KARYI.md").write_text("- tests run with make test\n")
        await send(pilot, "/memory")
        await until(pilot, lambda: "tests run with make test" in screen_text(app), "shown")
        assert fake_llm.requests == []
