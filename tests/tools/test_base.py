"""The tool contract: validation messages, and every failure turned into a result."""

from __future__ import annotations

from typing import Any

import pytest

from karyi.tools.context import ToolContext
from tests.support.echo_tool import Echo


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "missing required parameter 'text' (string: what to say)"),
        ({"text": 5}, "text: expected string: what to say, got integer 5"),
        ({"text": "a", "times": "2"}, "times: expected integer, got string '2'"),
        ({"text": "a", "times": 0}, "times: 0 is less than the minimum of 1"),
        ({"text": "a", "mode": "shout"}, "mode: expected one of 'loud', 'quiet', got 'shout'"),
        (
            {"text": "a", "colour": "red"},
            "unknown parameter 'colour'; expected only: mode, text, times",
        ),
        ({"text": "forbidden"}, "text: must not be 'forbidden'"),
        ([], "parameters must be an object, got array"),
    ],
)
def test_validation_names_the_field_and_what_was_expected(params: Any, message: str) -> None:
    assert Echo().validate(params) == message


async def test_run_turns_every_failure_into_a_result(ctx: ToolContext) -> None:
    echo = Echo()
    assert (await echo.run({"text": "hi", "times": 2}, ctx)).llm_content == "hihi"
    bad = await echo.run({"text": 1}, ctx)
    assert bad.error is not None and bad.error.code == "invalid_tool_input"
    assert bad.error.message.startswith("echo: text: expected string")
    conflict = await echo.run({"text": "fail"}, ctx)
    assert conflict.error is not None and conflict.error.code == "tool_conflict"
    crash = await echo.run({"text": "crash"}, ctx)
    assert crash.error is not None and crash.error.code == "tool_error"
    assert crash.error.message == "echo failed: RuntimeError: boom"
