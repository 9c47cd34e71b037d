"""The organisation's managed settings: above every layer, nothing below loosens them."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.core.errors import ManagedSettingsError
from karyi.settings import Settings
from karyi.settings.managed import managed_settings_path
from tests.support.settings_files import load, write


def _load(tmp_path: Path, user: dict[str, object], managed: object, **kw: object) -> Settings:
    user_file, managed_file = tmp_path / "user.json", tmp_path / "managed.json"
    write(user_file, user)
    write(managed_file, managed)
    return load(kw.pop("ws", None), user_file, managed_file=managed_file, **kw)  # type: ignore[arg-type]


def test_the_path_is_the_systems_unless_the_packagers_variable_says(tmp_path: Path) -> None:
    assert managed_settings_path({}).name == "managed-settings.json"
    assert managed_settings_path({"KARYI_MANAGED_SETTINGS": "/x/m.json"}) == Path("/x/m.json")


def test_a_managed_deny_beats_the_users_allow(tmp_path: Path) -> None:
    s = _load(
        tmp_path,
        {"permissions": {"tools": {"write": "auto", "read": "deny", "web_fetch": "auto"}}},
        {"permissions": {"tools": {"write": "deny", "read": "auto", "web_fetch": "confirm"}}},
    )
    # the stricter of the two wins each time: the user may still tighten
    assert s.permissions.tools == {"write": "deny", "read": "deny", "web_fetch": "confirm"}
    assert any("organisation" in str(w) and "permissions.tools.write" in str(w) for w in s.warnings)
    assert "permissions.tools.write" in s.pinned
    assert s.source_of("permissions.tools.write").startswith("organisation (")
    assert s.source_of("permissions.tools.read") == str(tmp_path / "user.json")


def test_command_rules_deny_and_confirm_stay_and_allow_lists_intersect(tmp_path: Path) -> None:
    s = _load(
        tmp_path,
        {
            "permissions": {
                "commands": {"allow": ["pytest -x *", "pytest*", "git *", "ls"], "deny": ["curl *"]}
            }
        },
        {
            "permissions": {
                "commands": {"allow": ["pytest *", "git status", "ls"], "deny": ["sudo *"]}
            }
        },
    )
    rules = s.permissions.commands
    # `pytest*` (pytestfoo) and `git *` are wider than what the managed allow covers
    assert rules.allow == ["pytest -x *", "ls"]
    assert rules.deny == ["sudo *", "curl *"]


def test_the_sandbox_cannot_be_switched_off_or_widened(tmp_path: Path) -> None:
    sandbox = {"mode": "off", "network": True, "writable": ["/tmp/a", "/srv"], "autoApprove": True}
    s = _load(
        tmp_path,
        {"shell": {"sandbox": sandbox}},
        {"shell": {"sandbox": {"mode": "on", "network": False, "writable": ["/tmp"]}}},
    )
    box = s.shell.sandbox
    assert (box.mode, box.network, box.writable, box.auto_approve) == (
        "on",
        False,
        ["/tmp/a"],
        True,
    )


def test_models_base_url_and_mcp_servers_are_allowlists(tmp_path: Path) -> None:
    s = _load(
        tmp_path,
        {
            "model": "openai:gpt-4o",
            "models": ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1"],
            "baseUrl": "https://evil.example",
            "mcpServers": {"mine": {"command": ["x"]}},
        },
        {
            "models": ["anthropic:*"],
            "model": "anthropic:claude-sonnet-4-5",
            "baseUrl": "https://llm.corp.example",
            "mcpServers": {},
        },
    )
    assert s.model == "anthropic:claude-sonnet-4-5"
    assert s.models == ["anthropic:claude-sonnet-4-5"]
    assert s.base_url == "https://llm.corp.example" and s.mcp_servers == {}
    assert s.for_model("openai:gpt-4.1").model == "anthropic:claude-sonnet-4-5"
    assert s.for_model("anthropic:claude-opus-4").base_url == "https://llm.corp.example"


def test_managed_hooks_always_run_and_limits_only_go_down(tmp_path: Path) -> None:
    audit = {"command": "audit"}
    s = _load(
        tmp_path,
        {"hooks": {"beforeTool": [{"command": "mine"}]}, "maxSteps": 80, "agent": {}},
        {"hooks": {"beforeTool": [audit]}, "maxSteps": 30, "agent": {"maxCostPerTurn": 2}},
    )
    assert [h.command for h in s.hooks.before_tool] == ["audit", "mine"]
    assert s.max_steps == 30 and s.agent.max_cost_per_turn == 2


def test_a_workspace_cannot_undo_the_organisation(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / ".karyi" / "settings.json", {"permissions": {"tools": {"write": "confirm"}}})
    s = _load(tmp_path, {}, {"permissions": {"tools": {"write": "deny"}}}, ws=ws)
    assert s.permissions.tools["write"] == "deny"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"permissions": ', "is not valid JSON"),
        ("[1]", "is not a JSON object"),
        ('{"permisions": {}}', "unknown key"),
        ('{"maxSteps": "many"}', "maxSteps"),
    ],
)
def test_a_broken_managed_file_stops_karyi(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(ManagedSettingsError) as caught:
        _load(tmp_path, {}, text)
    assert str(tmp_path / "managed.json") in str(caught.value) and reason in str(caught.value)
    assert "will not start" in str(caught.value)


def test_no_managed_file_changes_nothing(tmp_path: Path) -> None:
    user_file = tmp_path / "user.json"
    write(user_file, {"maxSteps": 7})
    s = load(None, user_file, managed_file=tmp_path / "absent.json")
    assert s.max_steps == 7 and s.managed == {} and s.pinned == []


def test_a_workspace_cannot_give_commands_domains(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(
        ws / ".karyi" / "settings.json",
        {"shell": {"sandbox": {"allowedDomains": ["evil.example"], "deniedDomains": ["x.org"]}}},
    )
    s = load(ws, tmp_path / "none.json", managed_file=tmp_path / "absent.json")
    assert s.shell.sandbox.allowed_domains == [] and s.shell.sandbox.denied_domains == ["x.org"]
    assert any("shell.sandbox.allowedDomains" in str(w) for w in s.warnings)


def test_managed_domains_are_an_allowlist(tmp_path: Path) -> None:
    s = _load(
        tmp_path,
        {"shell": {"sandbox": {"allowedDomains": ["pypi.org", "files.corp.example", "x.io"]}}},
        {"shell": {"sandbox": {"allowedDomains": ["pypi.org", "*.corp.example"]}}},
    )
    assert s.shell.sandbox.allowed_domains == ["pypi.org", "files.corp.example"]


def test_no_later_choice_takes_a_model_the_organisation_does_not_allow(tmp_path: Path) -> None:
    s = _load(tmp_path, {}, {"model": "anthropic:claude-sonnet-4-5", "models": ["anthropic:*"]})
    assert s.with_values(model="openai:gpt-4.1").model == "anthropic:claude-sonnet-4-5"
    assert s.with_values(model="anthropic:claude-opus-4").model == "anthropic:claude-opus-4"
