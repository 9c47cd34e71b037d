"""Settings layers and precedence: later layers win, objects merge key by key."""

from __future__ import annotations

from pathlib import Path

from karyi.settings import DEFAULTS
from tests.support.settings_files import load, write


def test_defaults_without_any_file(user_file: Path) -> None:
    s = load(None, user_file)
    assert s.values == DEFAULTS and s.warnings == ()
    assert (s.model, s.dialect, s.profile, s.max_steps) == (
        "openai:gpt-4.1",
        "toolsxml",
        "karyi",
        50,
    )


def test_later_layers_win(user_file: Path, ws_root: Path) -> None:
    write(
        user_file, {"model": "anthropic:claude-sonnet-4-5", "maxSteps": 10, "dialect": "agentxml"}
    )
    write(ws_root / ".karyi" / "settings.json", {"maxSteps": 20})
    s = load(
        ws_root,
        user_file,
        editor={"karyi.dialect": "toolcall"},
        env={"KARYI_MODEL": "openai:gpt-4o"},
        flags={"dialect": "native", "profile": None},
    )
    assert (s.model, s.max_steps, s.dialect) == ("openai:gpt-4o", 20, "native")
    assert s.sources["model"] == "environment"
    assert s.sources["maxSteps"] == str(ws_root / ".karyi" / "settings.json")
    assert s.sources["dialect"] == "command line"


def test_objects_merge_key_by_key_and_dotted_keys_nest(user_file: Path, ws_root: Path) -> None:
    write(
        user_file,
        {
            "tools.discoveryCommand": "bin/discover",
            "shell": {"timeoutSeconds": 30},
            "trustedWorkspaces": [str(ws_root)],
        },
    )
    write(ws_root / ".karyi" / "settings.json", {"tools": {"callCommand": "bin/call"}})
    s = load(ws_root, user_file)
    assert s.values["tools"] == {
        "discoveryCommand": "bin/discover",
        "callCommand": "bin/call",
        "timeoutSeconds": 60,
    }
    assert s.values["shell"] == {
        "timeoutSeconds": 30,
        "inactivitySeconds": 10,
        "oneShotIdleSeconds": 60,
        "outputLimit": 16000,
        "path": None,
        "sandbox": {
            "mode": "auto",
            "network": False,
            "allowedDomains": [],
            "deniedDomains": [],
            "writable": [],
            "autoApprove": True,
        },
    }
    assert s.shell.timeout_seconds == 30


def test_allowed_roots_are_made_absolute_from_their_file(user_file: Path, tmp_path: Path) -> None:
    write(user_file, {"allowedRoots": ["~/shared", "/srv/data"]})
    s = load(None, user_file)
    assert s.allowed_roots == [str(Path("~/shared").expanduser().resolve()), "/srv/data"]


def test_environment_max_steps_is_typed(user_file: Path) -> None:
    assert load(None, user_file, env={"KARYI_MAX_STEPS": "7"}).max_steps == 7
    bad = load(None, user_file, env={"KARYI_MAX_STEPS": "lots"})
    assert bad.max_steps == 50 and "environment: maxSteps" in str(bad.warnings[0])
