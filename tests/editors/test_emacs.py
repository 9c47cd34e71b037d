"""Real Emacs with eglot (Debian `emacs-nox`, `elpa-eglot`, installed by `make test`) runs
docs/editors.md's recipe verbatim in batch mode against `karyi lsp` and the fake model
server: the steps are in emacs_steps.el, run once; each test checks one of them."""

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
)
from tests.editors.test_neovim import SCRIPT
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Fault

STEPS = Path(__file__).with_name("emacs_steps.el")


@pytest.fixture(scope="module")
def emacs(fake: FakeModelServer, tmp_path_factory: pytest.TempPathFactory) -> EditorRun:
    """Emacs run once through every step of emacs_steps.el."""
    emacs = program("emacs", "`make test` installs Debian's emacs-nox and elpa-eglot")
    base = tmp_path_factory.mktemp("emacs")
    where = editor_home(base, fake.anthropic_url)
    init = base / "init.el"
    init.write_text(recipe(REPO / "docs" / "editors.md", "elisp", "eglot-server-programs"))
    # the first turn streams its first words, then waits until it is cancelled
    fake.fail_next(Fault(stall=True, after=4))
    fake.script(*[r for r in SCRIPT if "return 11" not in r.text])
    command = [emacs, "--batch", "-l", str(init), "-l", str(STEPS)]
    run = run_editor(command, where)
    start = run.steps.get("start") or {}
    VERSIONS["emacs"] = f"GNU Emacs {start.get('emacs', '?')}, {start.get('eglot', 'eglot ?')}"
    return run


def test_emacs_starts_karyi_with_the_recipe(emacs: EditorRun) -> None:
    start = emacs.step("start")
    assert start["emacs"].startswith("28.") or int(start["emacs"].split(".")[0]) > 28


def test_cancel_with_an_empty_argument_list(emacs: EditorRun) -> None:
    assert len(emacs.step("cancel")["cancelled"]) == 1


def test_permission_and_a_clean_edit(emacs: EditorRun) -> None:
    chat = emacs.step("chat")
    [prompt] = chat["prompts"]
    assert prompt["items"] == ["Allow", "Always", "Reject"]
    assert "Karyi wants to: Edit calc.py" in prompt["prompt"]
    assert prompt["prompt"].count("+    return 10") == 1
    assert prompt["prompt"].endswith("Allow it?\nChoose an option: ")
    assert chat["disk"] == BUMPED and chat["buffer"] == BUMPED
    assert chat["modified"] is False and chat["in_step_with_disk"] is True


def test_a_second_chat_continues_the_session(emacs: EditorRun, fake: FakeModelServer) -> None:
    emacs.step("continue")
    history = json.dumps(fake.requests[3].body["messages"])
    assert "bump both numbers" in history and "Bumped both." in history


def test_fix_with_karyi_on_a_ruff_diagnostic(emacs: EditorRun) -> None:
    fix = emacs.step("fix")
    assert "Fix with Karyi" in fix["offered"]
    fixed = BAD.replace("import os", "import os  # noqa: F401")
    assert fix["disk"] == fixed and fix["buffer"] == fixed and fix["modified"] is False


def test_code_action_on_a_selection(emacs: EditorRun) -> None:
    offered = emacs.step("selection")["offered"]
    assert "Ask Karyi to explain this" in offered


def test_unsaved_changes_get_the_edit_and_stay_the_users(emacs: EditorRun) -> None:
    unsaved = emacs.step("unsaved")
    expected = "# mine\n" + BUMPED.replace("return 20", "return 21")
    assert unsaved["buffer"] == expected and unsaved["modified"] is True
    assert unsaved["disk"] == unsaved["disk_before"] == BUMPED
    assert unsaved["disk_after_save"] == expected
