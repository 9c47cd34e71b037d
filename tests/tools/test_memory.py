"""save_memory: facts land in KARYI.md under their heading and reach the next prompt."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from karyi.agent.prompting.rules import rule_files, rules_text
from karyi.agent.prompting.system_prompt import system_prompt
from karyi.protocol import get_dialect
from karyi.tools.builtin.memory import HEADING, SaveMemory, append_fact
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit


async def test_fact_is_appended_under_the_heading(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "KARYI.md").write_text("# Project notes\n\nWritten by hand.\n")
    result = await SaveMemory().run({"fact": "Use tabs in Makefiles"}, ctx)
    assert result.llm_content == 'Okay, I\'ve remembered that: "Use tabs in Makefiles"'
    await SaveMemory().run({"fact": "Tests run with make test"}, ctx)
    assert (ws_root / "KARYI.md").read_text() == (
        "# Project notes\n\nWritten by hand.\n\n"
        f"{HEADING}\n- Use tabs in Makefiles\n- Tests run with make test\n"
    )


def test_sections_after_the_memories_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "KARYI.md"
    path.write_text(f"{HEADING}\n- one\n\n## Later section\ntext\n")
    append_fact(path, "two")
    assert path.read_text() == f"{HEADING}\n- one\n- two\n\n## Later section\ntext\n"


async def test_user_scope_and_prompt_inclusion(
    ctx: ToolContext, ws_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KARYI_CONFIG_DIR", str(tmp_path / "conf"))
    await SaveMemory().run({"fact": "The user prefers pytest", "scope": "user"}, ctx)
    await SaveMemory().run({"fact": "Entry point is src/main.py"}, ctx)
    memory = rules_text(rule_files([ws_root.resolve()]))
    assert memory.index("The user prefers pytest") < memory.index("Entry point is src/main.py")
    prompt = system_prompt(
        instructions="x",
        dialect=get_dialect("toolsxml"),
        toolkit=default_toolkit(builtin_registry(), "karyi"),
        workspace=ctx.workspace,
        rules=memory,
    )
    assert "# Project rules" in prompt and "- Entry point is src/main.py" in prompt


async def test_multi_line_fact_is_refused(ctx: ToolContext, ws_root: Path) -> None:
    result = await SaveMemory().run({"fact": "a\nb"}, ctx)
    assert result.error is not None and "expected one line" in result.error.message
    assert not (ws_root / "KARYI.md").exists()


def test_a_new_memory_file_is_private_and_an_existing_one_keeps_its_mode(tmp_path: Path) -> None:
    new = tmp_path / "new" / "KARYI.md"
    append_fact(new, "one")
    assert stat.S_IMODE(new.stat().st_mode) == 0o600
    shared = tmp_path / "KARYI.md"
    shared.write_text("# Notes\n")
    shared.chmod(0o644)
    append_fact(shared, "two")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
