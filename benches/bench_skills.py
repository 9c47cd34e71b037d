"""Skills at scale: the system prompt's size and the start-up cost with 200 skills.

A workspace holds SKILLS skills in `.claude/skills/` (each a SKILL.md with a two-line
description and a body of about 3 KB, plus a script). Measured in one run:

- the system prompt of the default agent with the skills, against the same prompt
  without them (the baseline), and against what the bodies alone would weigh if they
  were put in the prompt (what progressive disclosure saves);
- discovering the skills at a session's start: cold (every SKILL.md read and parsed
  with PyYAML) and warm (the next turn: the files unchanged, parses cached), against
  listing the folders alone.

Targets: the skills section within its budget (8,000 characters of descriptions, half
as much again of names); a cold discovery of 200 skills under 100 ms, a warm one under
25 ms. First figures (2-core machine, under load): +9,912 characters for 200 skills (53
described, 147 named) against 622,000 for their bodies; discovery cold 26 ms with
libyaml (151 ms with PyYAML's pure-Python loader), warm 5 ms.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from karyi.agent.prompting.system_prompt import system_prompt
from karyi.protocol import get_dialect
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.tools.skill_files import _parsed, load_skills
from karyi.workspace.workspace import Workspace

SKILLS = 200
ROUNDS = 20
SMOKE: dict[str, object] = {"SKILLS": 12, "ROUNDS": 2}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
BODY = "Follow these steps carefully.\n" + "- a step of the procedure, with its details\n" * 70


def _write(root: Path, count: int) -> None:
    for i in range(count):
        folder = root / ".claude" / "skills" / f"skill-{i:03}"
        (folder / "scripts").mkdir(parents=True)
        description = (
            f"Handles task family {i}: generating, checking and fixing the files of kind {i}. "
            "Use when the user asks about them or the task touches them."
        )
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:03}\ndescription: >\n  {description}\n---\n{BODY}", "utf-8"
        )
        (folder / "scripts" / "run.py").write_text("print('ok')\n", "utf-8")


def _prompt(workspace: Workspace) -> str:
    toolkit = default_toolkit(builtin_registry(), "karyi")
    facts = {k: "" for k in ("root", "where", "of", "platform", "shell", "date", "git", "listing")}
    return system_prompt(
        instructions="x",
        dialect=get_dialect("toolsxml"),
        toolkit=toolkit,
        workspace=workspace,
        facts=facts,
    )


def _median_ms(run: object, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="karyi-bench-skills-"))
    try:
        empty, full = tmp / "empty", tmp / "full"
        empty.mkdir()
        _write(full, SKILLS)
        base = _prompt(Workspace.open(empty))
        with_skills = _prompt(Workspace.open(full))
        bodies = SKILLS * len(BODY)
        section = len(with_skills) - len(base)
        print(
            f"system prompt: {len(base):,} chars without skills, {len(with_skills):,} with "
            f"{SKILLS} (+{section:,}); their bodies alone would add {bodies:,}"
        )
        listed = sum(1 for line in with_skills.splitlines() if line.startswith("- skill-"))
        print(f"described: {listed} of {SKILLS}; the rest named")
        assert section <= 8_000 + 4_000 + 400, f"skills section {section} over its budget"

        def cold() -> None:
            _parsed.cache_clear()
            load_skills([full])

        def listing_only() -> None:
            sorted((full / ".claude" / "skills").iterdir())

        cold_ms = _median_ms(cold, ROUNDS)
        load_skills([full])
        warm_ms = _median_ms(lambda: load_skills([full]), ROUNDS)
        base_ms = _median_ms(listing_only, ROUNDS)
        print(
            f"discovery of {SKILLS} skills: cold {cold_ms:.1f} ms, warm {warm_ms:.1f} ms "
            f"(listing the folders alone: {base_ms:.2f} ms)"
        )
        assert cold_ms < 100 and warm_ms < 25, "discovery over its target"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
