"""Problems after every edit: new and fixed diagnostics appended to the edit's result,
from a real `ruff server`, with every wait bounded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karyi.agent.diagnostics.language_servers import LanguageServers
from karyi.agent.diagnostics.problems import Problem, ProblemCheck, report
from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.core.results import ToolResult
from karyi.llm.factory import create_provider
from karyi.navigation.programs import find_program
from karyi.settings import Settings
from karyi.settings.language_servers import LanguageServer
from karyi.tools.context import ToolContext
from karyi.workspace.editor import WriteRecord
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Reply

RUFF = {"python": LanguageServer(command=["ruff", "server"], extensions=[".py"])}


async def _no_wait(_seconds: float) -> None:
    return None


def _problem(path: Path, line: int, message: str, severity: int = 1) -> Problem:
    return Problem(path, line, 4, severity, message, "Ruff", "F821")


def test_report_tells_new_and_fixed_problems_by_what_they_say_not_where() -> None:
    a = Path("/w/a.py")
    before = {a: [_problem(a, 3, "Undefined name `x`"), _problem(a, 9, "hint", 4)]}
    after = {a: [_problem(a, 5, "Undefined name `x`"), _problem(a, 1, "Undefined name `y`")]}
    assert report(before, after, lambda p: p.name, "ruff server") == (
        "New problems after this edit (ruff server); fix them:\n"
        "- a.py:2:5: error: Undefined name `y` (Ruff F821)"
    )
    assert report(after, before, lambda p: p.name, "ruff server") == (
        "Problems this edit fixed (ruff server):\n- a.py:2:5: error: Undefined name `y` (Ruff F821)"
    )
    assert report(before, before, lambda p: p.name, "ruff server") == ""


async def test_ruff_server_reports_an_undefined_name_in_the_text_given(ws_root: Path) -> None:
    servers = LanguageServers(RUFF, ws_root)
    path = ws_root / "src" / "main.py"
    try:
        assert await servers.problems({path: "print('hi')\n"}) == {path: []}
        found = await servers.problems({path: "print(hi)\n"})
        assert found == {path: [Problem(path, 0, 6, 1, "Undefined name `hi`", "Ruff", "F821")]}
        assert not servers.covers(ws_root / "README.md")
    finally:
        await servers.aclose()


async def _check(
    servers: dict[str, LanguageServer], ctx: ToolContext, wait: float = 5
) -> ToolResult:
    source = LanguageServers(servers, ctx.workspace.root)
    try:
        check = ProblemCheck(source, wait)
        await check.start()
        path = ctx.workspace.root / "src" / "main.py"
        journal = [WriteRecord(path, "src/main.py", None, "print(hi)\n")]
        return await check.finish(ToolResult.ok("Edited src/main.py."), journal, ctx)
    finally:
        await source.aclose()


async def test_a_server_that_never_answers_costs_the_wait_and_a_note(ctx: ToolContext) -> None:
    hang = {
        "python": LanguageServer(
            command=[sys.executable, "-c", "import time; time.sleep(60)"], extensions=[".py"]
        )
    }
    result = await _check(hang, ctx, wait=0.5)
    assert result.success and result.llm_content.startswith(
        "Edited src/main.py.\n\n(No diagnostics: "
    )
    assert "did not answer within 0.5s" in result.llm_content


async def test_a_server_that_exits_or_is_missing_is_a_note(ctx: ToolContext) -> None:
    crash = {"python": LanguageServer(command=[sys.executable, "-c", "pass"], extensions=[".py"])}
    result = await _check(crash, ctx)
    assert " failed: " in result.llm_content and "exited with code 0)" in result.llm_content
    missing = {"python": LanguageServer(command=["no-such-language-server"], extensions=[".py"])}
    result = await _check(missing, ctx)
    assert "'no-such-language-server' was not found" in result.llm_content


async def test_an_edit_that_breaks_the_code_is_followed_by_ruffs_diagnostic(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    settings = Settings().with_values(
        model="openai:m", baseUrl=fake_llm.openai_url, dialect="toolsxml", profile="karyi"
    )
    runtime = Runtime.open(ws_root, settings)
    try:
        fake_llm.script(
            Reply(text='<tools><read><file src="src/main.py"/></read></tools>'),
            Reply(
                text="<tools><edit><file src=\"src/main.py\"><find>print('hi')</find>"
                "<replace>print(greeting)</replace></file></edit></tools>"
            ),
            Reply(
                text='<tools><edit><file src="src/main.py"><find>print(greeting)</find>'
                "<replace>print('hello')</replace></file></edit></tools>"
            ),
            Reply(text="Done."),
        )
        provider = create_provider(settings, {}, sleep=_no_wait)
        agent = runtime.agent(runtime.conversation(), approver=approve_all, provider=provider)
        assert (await agent.run("greet")).stop_reason == "end_turn"
        broke = fake_llm.requests[2].body["messages"][-1]["content"]
        assert (
            "New problems after this edit (ruff server); fix them:\n"
            "- src/main.py:1:7: error: Undefined name `greeting` (Ruff F821)"
        ) in broke
        fixed = fake_llm.requests[3].body["messages"][-1]["content"]
        assert (
            "Problems this edit fixed (ruff server):\n- src/main.py:1:7: error: Undefined" in fixed
        )
    finally:
        await runtime.aclose()


async def test_a_server_that_only_pushes_diagnostics_is_waited_for_by_version(
    ws_root: Path,
) -> None:
    script = Path(__file__).resolve().parents[1] / "support" / "push_language_server.py"
    servers = LanguageServers(
        {"plain": LanguageServer(command=[sys.executable, str(script)], extensions=[".txt"])},
        ws_root,
    )
    path = ws_root / "notes.txt"
    try:
        assert await servers.problems({path: "good\n"}) == {path: []}
        found = await servers.problems({path: "good\nbad\n"})
        assert found == {path: [Problem(path, 1, 0, 1, "line 2 is bad", "push-only", "P1")]}
        assert await servers.problems({path: "good again\n"}) == {path: []}
    finally:
        await servers.aclose()


@pytest.mark.skipif(
    find_program("basedpyright-langserver") is None, reason="basedpyright is not installed"
)
async def test_basedpyright_as_a_second_real_server(ws_root: Path) -> None:
    command = ["basedpyright-langserver", "--stdio"]
    servers = LanguageServers(
        {"python": LanguageServer(command=command, extensions=[".py"])}, ws_root
    )
    path = ws_root / "src" / "main.py"
    try:
        assert await servers.problems({path: "print('hi')\n"}) == {path: []}
        found = await servers.problems({path: "print(greeting)\n"})
        assert (
            Problem(
                path,
                0,
                6,
                1,
                '"greeting" is not defined',
                "basedpyright",
                "reportUndefinedVariable",
            )
            in found[path]
        )
    finally:
        await servers.aclose()
