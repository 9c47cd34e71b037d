"""Skills: found where the ecosystem keeps them, listed by description within a budget,
loaded by the `skill` tool; a bad front matter is a warning naming the file."""

from __future__ import annotations

import os
from pathlib import Path

from karyi.tools.builtin.skills import SkillTool, granted_tools
from karyi.tools.context import ToolContext
from karyi.tools.skill_files import listing, load_skills, parse_skill
from tests.support.skill_folders import write_skill


def _user_skills() -> Path:
    return Path(os.environ["KARYI_CONFIG_DIR"]) / "skills"


def test_skills_are_found_in_every_place_and_the_users_win(ws_root: Path) -> None:
    write_skill(_user_skills(), "deploy", "the user's deploy")
    write_skill(ws_root / ".claude" / "skills", "deploy", "the repository's deploy")
    write_skill(ws_root / ".agents" / "skills", "lint", "run the linters")
    write_skill(ws_root / ".karyi" / "skills", "lint", "karyi's own lint wins over .agents")
    write_skill(ws_root / ".claude" / "skills", "review", "review a diff")
    found = load_skills([ws_root])
    assert {n: (s.description, s.scope) for n, s in found.skills.items()} == {
        "deploy": ("the user's deploy", "user"),
        "lint": ("karyi's own lint wins over .agents", "workspace"),
        "review": ("review a diff", "workspace"),
    }
    assert found.warnings == []


def test_every_workspace_folder_is_searched(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_skill(one / ".agents" / "skills", "a", "from one")
    write_skill(two / ".claude" / "skills", "b", "from two")
    assert sorted(load_skills([one, two]).skills) == ["a", "b"]


def test_a_bad_front_matter_is_a_warning_naming_the_file(ws_root: Path) -> None:
    skills = ws_root / ".claude" / "skills"
    write_skill(skills, "good", "works")
    (skills / "broken").mkdir()
    broken = skills / "broken" / "SKILL.md"
    broken.write_text("---\nname: broken\ndescription: [unclosed\n---\nbody\n")
    (skills / "plain").mkdir()
    (skills / "plain" / "SKILL.md").write_text("no front matter at all\n")
    (skills / "nodesc").mkdir()
    (skills / "nodesc" / "SKILL.md").write_text("---\nname: nodesc\n---\nbody\n")
    (skills / "colon").mkdir()  # not YAML, but plain key: value lines
    (skills / "colon" / "SKILL.md").write_text(
        "---\nname: colon\ndescription: Use it when: the user asks\n  about colons\n---\nbody\n"
    )
    (skills / "list").mkdir()
    (skills / "list" / "SKILL.md").write_text("---\n- a\n- b\n---\nbody\n")
    found = load_skills([ws_root])
    assert sorted(found.skills) == ["colon", "good"]
    assert found.skills["colon"].description == "Use it when: the user asks about colons"
    by_file = {w.split(": skipped: ")[0]: w.split(": skipped: ")[1] for w in found.warnings}
    assert by_file[str(broken)].startswith("front matter is not YAML:")
    assert by_file[str(skills / "plain" / "SKILL.md")].startswith("no front matter")
    assert by_file[str(skills / "nodesc" / "SKILL.md")].startswith("description: missing")
    assert by_file[str(skills / "list" / "SKILL.md")] == (
        "front matter is not a mapping of keys to values"
    )


def test_front_matter_is_real_yaml(tmp_path: Path) -> None:
    text = (
        "---\n"
        "name: pdf\n"
        "description: >\n  Fill PDF forms\n  and extract text.\n"
        "allowed-tools: Read, Grep Bash(git log:*)\n"
        "metadata:\n  version: 2\n"
        "---\n# PDF\nbody\n"
    )
    skill = parse_skill(tmp_path / "pdf" / "SKILL.md", text, "user", trusted=True)
    assert (skill.name, skill.description) == ("pdf", "Fill PDF forms and extract text.")
    assert skill.allowed_tools == ("Read", "Grep", "Bash(git log:*)")
    listed = parse_skill(tmp_path / "x" / "SKILL.md", "---\ndescription: d\n---\n", "user")
    assert listed.name == "x"  # the folder's name when the front matter has none


def test_claude_tool_names_are_mapped_and_patterns_refused() -> None:
    granted, refused = granted_tools(("Read", "grep", "Bash(git:*)"))
    assert granted == ["Read", "grep", "read", "read_file", "read_many_files"]
    assert refused == ["Bash(git:*)"]


def test_the_listing_keeps_to_its_budget(ws_root: Path) -> None:
    parent = ws_root / ".agents" / "skills"
    for i in range(200):
        write_skill(parent, f"skill-{i:03}", f"does task number {i} " + "with care " * 5)
    skills = list(load_skills([ws_root]).skills.values())
    text = listing(skills, budget=2000)
    described = [line for line in text.splitlines() if line.startswith("- skill-")]
    assert 0 < len(described) < 200 and sum(len(x) + 1 for x in described) <= 2000
    last = text.splitlines()[-1]
    assert last.startswith("- Also available (load one with `skill` to see what it is for): ")
    assert last.endswith(" more") and len(last) < 1100
    assert len(listing(skills)) < 8000 * 1.5 + 200


async def test_the_tool_returns_the_body_and_the_files(ctx: ToolContext, ws_root: Path) -> None:
    write_skill(
        ws_root / ".claude" / "skills",
        "pdf",
        "fill PDF forms",
        "Run scripts/fill.py on the form.\n",
        scripts__fill_py="print('filled')\n",
        reference_md="# Fields\n",
    )
    result = await SkillTool().run({"name": "pdf"}, ctx)
    assert result.success, result.error
    folder = ws_root / ".claude" / "skills" / "pdf"
    assert result.llm_content == (
        f"# Skill pdf (workspace: {folder})\n\nRun scripts/fill.py on the form.\n\n"
        "Files of this skill (read one with skill name='pdf' file=…):\n"
        "- reference.md\n- scripts/fill.py"
    )
    read = await SkillTool().run({"name": "pdf", "file": "scripts/fill.py"}, ctx)
    assert read.llm_content == "print('filled')\n"
    escape = await SkillTool().run({"name": "pdf", "file": "../../../README.md"}, ctx)
    assert escape.error is not None and "is not in the skill" in escape.error.message
    missing = await SkillTool().run({"name": "nope"}, ctx)
    assert missing.error is not None
    assert missing.error.message == "no skill named 'nope'; the skills are: pdf"


async def test_allowed_tools_pre_approve_only_for_the_users_skills(
    ctx: ToolContext, ws_root: Path
) -> None:
    write_skill(_user_skills(), "mine", "mine", extra="allowed-tools: Bash Bash(rm:*)\n")
    write_skill(ws_root / ".claude" / "skills", "theirs", "repo", extra="allowed-tools: Write\n")
    theirs = await SkillTool().run({"name": "theirs"}, ctx)
    assert ctx.skill_grants == {}
    assert theirs.llm_content.endswith(
        "Not pre-approved (a workspace's skill may not pre-approve tools): Write; those calls "
        "still ask."
    )
    mine = await SkillTool().run({"name": "mine"}, ctx)
    assert ctx.skill_grants == {n: "mine" for n in ("Bash", "command", "run_command", "shell")}
    assert "Pre-approved while you use this skill: Bash, command, run_command, shell." in (
        mine.llm_content
    )
    assert "Not pre-approved (tool patterns are not supported): Bash(rm:*)" in mine.llm_content
