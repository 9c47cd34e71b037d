"""`karyi` in a real terminal: tmux runs it against the fake model server, the test types
keys and reads the screen: a message, an edit accepted with `y`, one rejected with `n`,
Esc during a stream, rewind with Esc Esc, `/exit` and Ctrl+D ending with status 0."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply
from tests.support.tmux import Tmux, python_env


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Tmux]:
    t = Tmux(tmp_path)
    yield t
    t.close()


def start(term: Tmux, ws: Path, fake: FakeModelServer, *args: str) -> None:
    env = {
        **python_env(),
        "OPENAI_API_KEY": "sk-test",
        "KARYI_BASE_URL": fake.openai_url,
        "KARYI_MODEL": "openai:gpt-4.1",
        "KARYI_DIALECT": "native",
        "TERM": "xterm-256color",
    }
    term.start([sys.executable, "-m", "karyi", *args], env, cwd=ws)
    term.wait_for("openai:gpt-4.1")


def edit(path: str, find: str, replace: str) -> Reply:
    params = {"files": [{"src": path, "pairs": [{"find": find, "replace": replace}]}]}
    return Reply(text=f"Editing {path}.", calls=[Call("edit", params)])


def test_a_message_an_accepted_and_a_rejected_edit_then_exit(
    term: Tmux, ws_root: Path, fake_llm: FakeModelServer
) -> None:
    main = ws_root / "src" / "main.py"
    fake_llm.script(
        "Hello from the **fake** model.",
        edit("src/main.py", "hi", "hello"),
        "Changed it.",
        edit("src/main.py", "hello", "bye"),
        "Left it as it is.",
    )
    start(term, ws_root, fake_llm, "chat")
    term.type("say hello")
    term.keys("Enter")
    term.wait_for("Hello from the fake model.")
    term.type("greet better")
    term.keys("Enter")
    screen = term.wait_for("y allow once")
    assert "+print('hello')" in screen and "-print('hi')" in screen
    term.keys("y")
    term.wait_for("Changed it.")
    assert main.read_text() == "print('hello')\n"
    term.type("say bye")
    term.keys("Enter")
    term.wait_for("+print('bye')")
    term.keys("n")
    term.wait_for("Left it as it is.")
    assert main.read_text() == "print('hello')\n"
    term.type("/exit")
    term.keys("Enter")
    assert term.exit_status() == 0


def test_esc_stops_a_stream_esc_esc_rewinds_and_ctrl_d_ends(
    term: Tmux, ws_root: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(
        "First answer.",
        Reply(text=["Streaming ", "slowly ", "and ", "never ", "finishing."], paced=True),
    )
    start(term, ws_root, fake_llm)  # `karyi` alone: the chat, on a terminal
    term.type("first")
    term.keys("Enter")
    term.wait_for("First answer.")
    term.type("second")
    term.keys("Enter")
    fake_llm.release(4)
    term.wait_for("Streaming slowly")
    term.keys("Escape")
    screen = term.wait_for("cancelled")
    assert "finishing" not in screen
    term.keys("Escape", "Escape")
    term.wait_for("Rewind to before which turn?")
    term.keys("Enter")  # the latest turn: "second"
    screen = term.wait_for("↶ rewound: 1 turn(s) out of the conversation")
    assert "↶ rewound: second" in screen  # the turn, kept in the transcript, dimmed
    term.keys("C-u")  # its prompt was put back in the input: cleared
    term.wait_for("Message Karyi")
    term.keys("C-d")
    assert term.exit_status() == 0
