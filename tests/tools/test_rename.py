"""`rename` on a real project with its own test suite: more-itertools 10.8.0's sdist
(MIT, vendored under data/sdists), whose functions are declared in a module and its
stub both. After the rename its tests pass and no identifier of the old name is left in
its `.py`/`.pyi` files; the review sees every file, and the write is all or nothing
(docs/tools.md#rename)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from karyi.navigation.navigator import Navigator
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.email_package import identifier_places
from tests.support.tool_calls import REG, call, code, snapshot

SDIST = Path(__file__).with_name("data") / "sdists" / "more_itertools-10.8.0.tar.gz"


@pytest.fixture
async def project(tmp_path: Path) -> AsyncIterator[ToolContext]:
    with tarfile.open(SDIST) as archive:
        archive.extractall(tmp_path, filter="data")
    root = tmp_path / "more_itertools-10.8.0"
    ws = Workspace.open(root)
    settings = Settings()
    nav = Navigator(settings.navigation, root, ws.documents)
    yield ToolContext(workspace=ws, settings=settings, navigator=nav, session_id="r")
    await nav.aclose()


async def test_a_rename_keeps_the_projects_own_tests_passing(project: ToolContext) -> None:
    root = project.workspace.root
    before = identifier_places(root, "windowed")
    result = await call(
        "karyi.rename", {"symbol": "windowed", "new_name": "sliding_windows"}, project
    )
    assert result.success, result.llm_content
    assert result.llm_content.splitlines() == [
        "Renamed windowed to sliding_windows in 3 files:",
        "more_itertools/more.py (+5 -5)",
        "more_itertools/more.pyi (+3 -3)",
        "tests/test_more.py (+7 -7)",
    ]
    assert identifier_places(root, "windowed") == set()
    assert len(identifier_places(root, "sliding_windows")) == len(before)
    suite = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert suite.returncode == 0, suite.stdout[-3000:]
    assert " passed" in suite.stdout.splitlines()[-1]


async def test_the_review_sees_every_file_and_the_write_is_all_or_nothing(
    project: ToolContext,
) -> None:
    params = {"symbol": "more.chunked_even", "new_name": "even_chunks"}
    tool = REG.find("karyi.rename").loaded()
    await tool.prepare(params, project)
    shown = tool.confirmation(params, project)
    assert shown is not None
    assert [w.display for w in shown.files] == [
        "more_itertools/more.py",
        "more_itertools/more.pyi",
        "tests/test_more.py",
    ]
    assert shown.diff is not None and "-def chunked_even(" in shown.diff
    # a file changes between the review and the write: nothing at all is written
    test_file = project.workspace.root / "tests" / "test_more.py"
    test_file.write_text(test_file.read_text() + "\n# edited meanwhile\n")
    files = snapshot(project.workspace.root)
    refused = await tool.run(params, project)
    assert code(refused) == "tool_conflict"
    assert refused.llm_content == (
        "tests/test_more.py changed since the rename was worked out; nothing was written: "
        "call rename again"
    )
    assert snapshot(project.workspace.root) == files


async def test_a_bad_new_name_or_an_unknown_symbol(project: ToolContext) -> None:
    bad = await call("karyi.rename", {"symbol": "windowed", "new_name": "two words"}, project)
    assert code(bad) == "invalid_tool_input"
    unknown = await call("karyi.rename", {"symbol": "windowd", "new_name": "w"}, project)
    assert code(unknown) == "tool_not_found"
    assert "the closest are windowed" in unknown.llm_content
