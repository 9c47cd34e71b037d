"""Error codes: the finer codes fold into the gateway's six."""

from __future__ import annotations

from karyi.core.errors import gateway_code


def test_gateway_codes_fold_into_the_gateways_six() -> None:
    assert gateway_code("unknown_tool") == "tool_not_found"
    assert gateway_code("binary_file") == "invalid_tool_input"
    assert gateway_code("tool_conflict") == "tool_conflict"
    assert gateway_code("something_new") == "tool_error"
