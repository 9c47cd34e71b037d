"""The published OpenAPI schema, and schemathesis against it: generated requests, valid
and invalid, get no server error and no response the schema does not describe."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from karyi.agent.runtime import Runtime
from karyi.gateway.app import create_app
from karyi.gateway.errors import CODES
from karyi.settings import Settings
from karyi.tools.profiles import builtin_registry
from tests.gateway.conftest import Rig
from tests.support.scripted import ScriptedProvider

EXAMPLES = 250  # per operation and mode: the whole run takes seconds


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@pytest.fixture
def gateway_schema(ws_root: Path) -> Iterator[Any]:
    """The app over a scratch workspace; its model answers every turn at once."""
    runtime = Runtime.open(ws_root, Settings())
    app = create_app(runtime, provider_factory=lambda: ScriptedProvider(["done"] * 10_000))
    yield schemathesis.openapi.from_asgi("/openapi.json", app, headers={"host": "127.0.0.1"})
    app.state.gateway.owners.close()
    runtime.close()


# schemathesis' own pytest plugin (`from_fixture` + `parametrize`) does not run under
# pytest 9 (it reads the removed `Node._nodeid`), so each operation's strategy is run
# with hypothesis directly; the checks are the same.
@pytest.mark.parametrize(
    ("method", "path", "mode"),
    [
        ("POST", "/agent/process", GenerationMode.POSITIVE),
        ("POST", "/agent/process", GenerationMode.NEGATIVE),
        # The GET routes take no input, so there is nothing to make invalid.
        ("GET", "/agent/tools", GenerationMode.POSITIVE),
        ("GET", "/health", GenerationMode.POSITIVE),
    ],
)
def test_generated_requests_get_documented_answers(
    gateway_schema: Any, method: str, path: str, mode: GenerationMode
) -> None:
    operation = gateway_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def check(case: Any) -> None:
        case.call_and_validate(headers={"host": "127.0.0.1"}, checks=CHECKS)

    check()


async def test_every_tool_input_is_published_from_the_tool_itself(rig: Rig) -> None:
    variants = rig.openapi["components"]["schemas"]["ToolRequest"]["oneOf"]
    published = {v["properties"]["name"]["const"]: v["properties"]["input"] for v in variants}
    gateway = builtin_registry().profile("gateway")
    assert published == {name: tool.parameters for name, tool in gateway.items()}


async def test_every_error_code_is_published(rig: Rig) -> None:
    detail = rig.openapi["components"]["schemas"]["ErrorDetail"]
    assert detail["properties"]["code"]["enum"] == list(CODES)
    assert set(CODES) >= {
        "invalid_tool_input",
        "tool_forbidden_path",
        "tool_not_found",
        "tool_conflict",
        "tool_error",
        "tool_disabled",
    }


async def test_every_status_of_process_is_documented(rig: Rig) -> None:
    responses = rig.openapi["paths"]["/agent/process"]["post"]["responses"]
    assert sorted(responses) == [
        "200",
        "202",
        "400",
        "401",
        "403",
        "404",
        "405",
        "409",
        "413",
        "415",
        "422",
        "500",
        "503",
    ]
