"""The typed accessors of `Settings`."""

from __future__ import annotations

from pathlib import Path

from karyi.core.typed_json import to_json
from karyi.settings import Settings
from tests.support.settings_files import load, write


def test_api_key_resolution_order() -> None:
    s = Settings()
    assert s.api_key({"OPENAI_API_KEY": "o"}) == "o"
    assert s.api_key({"OPENAI_API_KEY": "o", "KARYI_API_KEY": "k"}) == "k"
    named = s.with_values(apiKeyEnv="ARK_KEY", model="openai:doubao")
    assert named.api_key({"ARK_KEY": "a", "OPENAI_API_KEY": "o"}) == "a"
    assert s.with_values(model="anthropic:c").api_key({"ANTHROPIC_API_KEY": "an"}) == "an"
    assert "sk-" not in repr(s)


def test_model_request_settings(user_file: Path) -> None:
    assert Settings().llm_timeouts == (10.0, 60.0)
    assert Settings().llm.max_retry_seconds == 180.0
    write(user_file, {"llm": {"readTimeoutSeconds": 60, "maxAttempts": 0, "contextWindow": 32768}})
    s = load(None, user_file)
    assert [str(w) for w in s.warnings] == [
        f"{user_file}: llm: maxAttempts: 0 is less than the minimum of 1; ignored"
    ]
    assert (s.llm_timeouts, s.llm.max_attempts, s.llm.context_window) == ((10.0, 60.0), 5, None)
    write(user_file, {"llm": {"readTimeoutSeconds": 60, "contextWindow": 32768}})
    s = load(None, user_file)
    assert (s.llm_timeouts, s.llm.context_window) == ((10.0, 60.0), 32768)
    write(user_file, {"llm": {"idleTimeoutSeconds": 20, "maxRetrySeconds": 45}})
    s = load(None, user_file)
    assert (s.llm_timeouts, s.llm.max_retry_seconds) == ((10.0, 20.0), 45.0)


def test_api_key_of_openai_compatible_prefixes() -> None:
    s = Settings().with_values(model="deepseek:deepseek-chat")
    assert s.api_key({"DEEPSEEK_API_KEY": "d", "OPENAI_API_KEY": "o"}) == "d"
    assert Settings().with_values(model="ollama:llama3").api_key({"OPENAI_API_KEY": "o"}) is None


def test_shell_settings_and_command_rules_are_typed(user_file: Path) -> None:
    write(
        user_file,
        {
            "shell": {"inactivitySeconds": 0.5, "oneShotIdleSeconds": 5, "outputLimit": 400},
            "permissions": {"commands": {"allow": ["git status"], "deny": ["rm *"]}},
        },
    )
    s = load(None, user_file)
    assert (s.shell.inactivity_seconds, s.shell.one_shot_idle_seconds, s.shell.output_limit) == (
        0.5,
        5.0,
        400,
    )
    assert s.shell.path is None
    assert to_json(s.permissions.commands) == {
        "allow": ["git status"],
        "deny": ["rm *"],
        "confirm": [],
    }
    write(user_file, {"shell": {"outputLimit": 10}})
    s = load(None, user_file)
    assert s.shell.output_limit == 16000
    assert [str(w) for w in s.warnings] == [
        f"{user_file}: shell: outputLimit: 10 is less than the minimum of 200; ignored"
    ]


def test_gateway_settings_from_the_user_file(user_file: Path) -> None:
    write(user_file, {"gateway": {"enableShell": True, "token": "t" * 32}})
    s = load(None, user_file)
    assert (s.gateway.enable_shell, s.gateway.token, s.gateway.max_request_bytes) == (
        True,
        "t" * 32,
        1024 * 1024,
    )
    write(user_file, {"gateway": {"token": "short"}})
    assert [w.key for w in load(None, user_file).warnings] == ["gateway"]


def test_models_a_session_may_switch_to_and_where_the_key_may_be() -> None:
    settings = Settings().with_values(
        model="anthropic:claude-x", models=["openai:gpt-4.1", "anthropic:claude-x"]
    )
    assert settings.models == ["openai:gpt-4.1", "anthropic:claude-x"]
    assert settings.key_variables() == ["KARYI_API_KEY", "ANTHROPIC_API_KEY"]
    named = settings.with_values(apiKeyEnv="MY_KEY", model="ollama:llama3")
    assert named.key_variables() == ["KARYI_API_KEY", "MY_KEY"]
