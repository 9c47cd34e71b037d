"""Command rules from the organisation's managed settings say who refused."""

from __future__ import annotations

import json
from pathlib import Path

from karyi.core.results import Permission
from karyi.settings import load_settings
from karyi.shell.rules.engine import CommandRules


def test_a_managed_deny_rule_names_the_organisation(tmp_path: Path) -> None:
    user, managed = tmp_path / "user.json", tmp_path / "managed.json"
    user.write_text(
        json.dumps({"permissions": {"commands": {"allow": ["curl *"], "deny": ["rm *"]}}})
    )
    managed.write_text(json.dumps({"permissions": {"commands": {"deny": ["curl *"]}}}))
    rules = CommandRules.from_settings(
        load_settings(None, user_file=user, managed_file=managed, env={})
    )
    verdict = rules.evaluate("curl https://example.com")
    assert verdict is not None and verdict.permission is Permission.DENY
    assert "refused by your organisation's settings" in verdict.reason
    mine = rules.evaluate("rm -rf build")
    assert mine is not None and "(permissions.commands.deny)" in mine.reason
