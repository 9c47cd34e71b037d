"""The published OpenAPI schema of `POST /agent/process`.

FastAPI describes the simple routes; this module describes the main one precisely: the
request body from the pydantic models, with `biz_params.tool` as one variant per tool
whose `input` is that tool's own JSON Schema (the one the executor validates with), and
one response per status with its exact body. Tests hold every response to it.
"""

from __future__ import annotations

import html
import json
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from karyi import __version__
from karyi.agent.events import Event
from karyi.gateway import models as m
from karyi.gateway.errors import STATUS
from karyi.tools.base import Tool

REF = "#/components/schemas/{model}"
SUCCESSES: tuple[type[BaseModel], ...] = (*m.TOOL_RESULTS, m.TurnResponse)
RESPONSES: tuple[type[BaseModel], ...] = (*SUCCESSES, m.PendingResponse, m.ErrorResponse)
DESCRIPTION = (
    "Karyi's gateway: `biz_params.tool` runs one tool (read_file, create_file, "
    "update_file, shell); without it the request runs an agent turn on `input` for "
    "`session_id`. See docs/gateway.md."
)
_WHY = {
    400: "Malformed JSON, a wrong field (`invalid_request`) or tool input (`invalid_tool_input`)",
    401: "Missing or wrong bearer token",
    403: "A path outside the allowed roots or in a system directory (`tool_forbidden_path`), "
    "a tool the server disables (`tool_disabled`), a Host that is not loopback without a "
    "token (`forbidden_host`)",
    404: "Unknown tool or missing file (`tool_not_found`); unknown session",
    405: "Wrong method",
    409: "An existing file (`tool_conflict`); a session busy or waiting for permission",
    413: "The body is larger than gateway.maxRequestBytes",
    415: "The body is not declared as JSON (`Content-Type: application/json`)",
    422: "The tool ran and failed (`tool_error`, e.g. a command that timed out)",
    500: "A failure inside the gateway (a bug)",
    503: "The model is not configured or not usable",
}


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": REF.format(model=model.__name__)}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def tool_request_schema(tools: list[Tool]) -> dict[str, Any]:
    """`biz_params.tool`: `{"name": N, "input": <N's parameters>}` for each tool."""
    return {
        "title": "ToolRequest",
        "description": "The tool to run and its input (the tool's own parameter schema).",
        "oneOf": [
            {
                "title": tool.name,
                "type": "object",
                "properties": {"name": {"const": tool.name}, "input": tool.parameters},
                "required": ["name", "input"],
                "additionalProperties": False,
            }
            for tool in tools
        ],
    }


def _components(tools: list[Tool]) -> dict[str, Any]:
    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = [(m.AgentRequest, "validation")]
    pairs += [(model, "serialization") for model in RESPONSES]
    _, defs = models_json_schema(pairs, ref_template=REF)
    schemas: dict[str, Any] = defs["$defs"]
    schemas["ToolRequest"] = tool_request_schema(tools)
    return schemas


def _event(name: dict[str, Any], body: dict[str, Any], *, numbered: bool) -> dict[str, Any]:
    """One kind of server-sent event: its name, JSON data, and whether it has an id."""
    data = {"type": "string", "contentMediaType": "application/json", "contentSchema": body}
    required = ["event", "data", "id"] if numbered else ["event", "data"]
    properties: dict[str, Any] = {"event": name, "data": data}
    if numbered:
        properties["id"] = {"type": "string", "pattern": "^[0-9]+$"}
    return {"type": "object", "properties": properties, "required": required}


def sse_schema() -> dict[str, Any]:
    """Each event of a streamed turn: an agent event (numbered, `Event.to_dict()`), then
    `result`, `pending_permission` or `error` with the JSON body of that outcome."""
    kinds = sorted({cls.kind for cls in Event.__subclasses__()})
    agent = {"type": "object", "properties": {"type": {"enum": kinds}}, "required": ["type"]}
    return {
        "oneOf": [
            _event({"enum": kinds}, agent, numbered=True),
            _event({"const": "result"}, _ref(m.TurnResponse), numbered=False),
            _event({"const": "pending_permission"}, _ref(m.PendingResponse), numbered=False),
            _event({"const": "error"}, _ref(m.ErrorResponse), numbered=False),
        ]
    }


def _process_responses() -> dict[str, Any]:
    results = [_ref(model) for model in SUCCESSES]
    out: dict[str, Any] = {
        "200": {
            "description": "A tool's result (its documented shape), an ended turn, or with "
            "`stream: true` the turn's server-sent events",
            "content": {
                "application/json": {"schema": {"oneOf": results}},
                "text/event-stream": {"schema": sse_schema()},
            },
        },
        "202": _json(_ref(m.PendingResponse), "The turn paused: a call waits for permission"),
    }
    for status in sorted(set(STATUS.values())):
        out[str(status)] = _json(_ref(m.ErrorResponse), _WHY[status])
    return out


def build_schema(app: FastAPI, tools: list[Tool]) -> dict[str, Any]:
    """The whole document (FastAPI's, with `/agent/process` described exactly)."""
    schema = get_openapi(
        title="Karyi gateway", version=__version__, description=DESCRIPTION, routes=app.routes
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.update(_components(tools))
    operation = schema["paths"]["/agent/process"]["post"]
    operation["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": _ref(m.AgentRequest)}},
    }
    operation["responses"] = _process_responses()
    operation["parameters"] = [
        {
            "name": "Last-Event-ID",
            "in": "header",
            "required": False,
            "description": "with biz_params.follow: the id (a number) of the last SSE event "
            "received; the response starts after it. Ignored without biz_params.follow.",
            "schema": {"type": "string"},
        }
    ]
    for path, item in schema["paths"].items():
        if path != "/agent/process":
            for op in item.values():
                op["responses"].update(
                    {s: _json(_ref(m.ErrorResponse), _WHY[int(s)]) for s in ("401", "500")}
                )
    return schema


def docs_page(schema: dict[str, Any]) -> str:
    """A plain HTML reference (no script, no CDN: it works offline)."""
    rows = []
    for path, item in schema["paths"].items():
        for method, op in item.items():
            statuses = ", ".join(op.get("responses", {}))
            summary = html.escape(op.get("summary") or op.get("description") or "")
            rows.append(
                f"<tr><td><code>{method.upper()} {html.escape(path)}</code></td>"
                f"<td>{summary}</td><td>{statuses}</td></tr>"
            )
    body = html.escape(json.dumps(schema, indent=2, ensure_ascii=False))
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Karyi gateway</title>"
        "<style>body{font:14px system-ui;margin:2em}td,th{padding:4px 8px;text-align:left;"
        "vertical-align:top}pre{background:#f6f6f6;padding:1em;overflow:auto}</style>"
        f"</head><body><h1>Karyi gateway {html.escape(__version__)}</h1>"
        f"<p>{html.escape(DESCRIPTION)}</p><table><tr><th>operation</th><th>what</th>"
        f"<th>statuses</th></tr>{''.join(rows)}</table>"
        f"<h2>OpenAPI schema</h2><p><a href='/openapi.json'>/openapi.json</a></p>"
        f"<pre>{body}</pre></body></html>"
    )
